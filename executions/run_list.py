"""The runs list's page (GET /api/v1/runs/) as plain rows: the JSON RunListSerializer describes,
built straight from `values()` rows.

A page of 50 runs of a hundred checks each carries 5,000 checks; through the serializer (a
model instance and a field object per value) the page took several times what the database
did. Each value here is rendered as the serializer's field would render it (dates in ISO 8601,
times in the current time zone with `Z` for UTC), so a row is the run as its own page
(RunSerializer) shows it: executions/tests/test_runs_list.py compares the two, field by field
and in order, so a field added to RunSerializer must be added here too."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, QuerySet

from accounts.rights import run_permissions
from dq_platform import api_times

from .models import Result, Run
from .serializers import batches_as_run
from .stored_words import reworded

# What a row is built from: the run's own columns and its author's name, nothing per row.
COLUMNS = (
    "id",
    "status",
    "blocking",
    "trigger",
    "attempt",
    "retry_of_id",
    "worker",
    "biz_date",
    "data_time",
    "parameters",
    "batches",
    "rule_set_hash",
    "scan_mode",
    "spark_application_id",
    "plan",
    "message",
    "created_by__username",
    "created_by_id",
    "created_at",
    "started_at",
    "finished_at",
)


def page_rows(runs: QuerySet) -> QuerySet:
    """The runs as `values()` rows of COLUMNS, in the list's order, for the paginator to slice."""
    return runs.values(*COLUMNS)


def list_rows(page: list[dict], user) -> list[dict]:
    """A page of `page_rows` rows as the list's JSON rows for `user`, with their checks and result
    counts (two grouped queries for the whole page) and what `user` may do with each run."""
    ids = [row["id"] for row in page]
    counts, checks = result_counts(ids), checks_of(ids)
    moment = api_times.formatter()  # DRF's DateTimeField output

    return [
        {
            "id": row["id"],
            "status": row["status"],
            "blocking": bool(row["blocking"]),
            "trigger": row["trigger"],
            "attempt": row["attempt"],
            "retry_of": row["retry_of_id"],
            "worker": row["worker"],
            "biz_date": row["biz_date"].isoformat() if row["biz_date"] else None,
            "data_time": moment(row["data_time"]),
            "parameters": row["parameters"],
            "batches": batches_as_run(row["batches"], row["plan"]),
            "checks": checks[row["id"]],
            "rule_set_hash": row["rule_set_hash"],
            "scan_mode": row["scan_mode"],
            "spark_application_id": row["spark_application_id"],
            "plan": row["plan"],
            "message": reworded(row["message"]),
            "created_by": row["created_by__username"],
            "created_at": moment(row["created_at"]),
            "started_at": moment(row["started_at"]),
            "finished_at": moment(row["finished_at"]),
            "duration_seconds": _duration(row["started_at"], row["finished_at"]),
            "permissions": run_permissions(user, row["created_by_id"]),
            "result_counts": counts[row["id"]],
        }
        for row in page
    ]


def _duration(started: datetime | None, finished: datetime | None) -> float | None:
    return (finished - started).total_seconds() if started and finished else None  # Run.duration_seconds


def result_counts(run_ids: list[int]) -> dict[int, dict[str, int]]:
    """{run id: {status: results}} for a page of runs, in one grouped query."""
    counts: dict[int, dict[str, int]] = {run_id: {} for run_id in run_ids}
    grouped = (
        Result.objects.filter(run_id__in=run_ids).order_by().values_list("run_id", "status").annotate(n=Count("id"))
    )
    for run_id, status, n in grouped:
        counts[run_id][status] = n
    return counts


def checks_of(run_ids: list[int]) -> dict[int, list[dict]]:
    """{run id: [{check, version, name}]} for a page of runs, in one query of plain values (a page
    of runs of a hundred checks each holds thousands)."""
    checks: dict[int, list[dict]] = {run_id: [] for run_id in run_ids}
    links = (
        Run.check_versions.through.objects.filter(run_id__in=run_ids)
        .order_by("checkversion__parent_check_id", "checkversion__number")
        .values_list("run_id", "checkversion__parent_check_id", "checkversion__number", "checkversion__name")
    )
    for run_id, check, number, name in links:
        checks[run_id].append({"check": check, "version": number, "name": name})
    return checks
