"""A profile's life in the worker: claim it, build the engine's profile spec (secrets decrypted
here, in memory only, as for runs: executions/jobs.py), run dq_engine.profiling on the worker's
engines (the warm SparkSession only if the table needs Spark), store the document.

A profile whose worker died (or whose message was lost) ends `error` when read after its time
limit has passed (`end_if_lost`), so a page polling it always gets an end."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from datasources.connectors import connector_for

from .models import Profile

log = logging.getLogger(__name__)
Status = Profile.Status
GRACE_SECONDS = 60


def profile_spec(profile: Profile, secrets: dict[str, str]) -> dict[str, Any]:
    datasource = profile.datasource
    source = connector_for(datasource).engine_source(profile.table, secrets)
    if source["kind"] == "jdbc":  # how many ranges Spark reads the table in, when it reads it
        source["options"] = {"numPartitions": str(settings.DQ_SPARK_JDBC_PARTITIONS), **source["options"]}
    return {
        "source": source,
        "datasource": datasource.name,
        "table": profile.table,
        "filter": profile.filter or None,
        "engine": profile.engine or datasource.pinned_engine,
        "row_guard": settings.DQ_PROFILE_ROW_GUARD,
        "exact_rows": settings.DQ_PROFILE_EXACT_ROWS,
        "statement_timeout_seconds": settings.DQ_RUN_TIME_LIMIT,
    }


def claim(profile_id: int) -> Profile | None:
    taken = Profile.objects.filter(pk=profile_id, status=Status.QUEUED).update(
        status=Status.RUNNING, started_at=timezone.now()
    )
    return Profile.objects.select_related("datasource").get(pk=profile_id) if taken else None


def execute(profile: Profile) -> str:
    """Run a claimed profile and store its end."""
    from dq_engine.profiling import profile as run_profile
    from executions.launcher import spark_session

    try:
        secrets: dict[str, str] = {}
        spec = profile_spec(profile, secrets)
        document = run_profile(
            spec,
            secrets,
            spark=spark_session,
            engine_options={"duckdb_memory_limit": settings.DQ_DUCKDB_MEMORY_LIMIT or None},
        )
    except SoftTimeLimitExceeded:
        raise  # the task says the time limit passed
    except Exception as exc:  # noqa: BLE001 - the page polling it must get an end, with a reason
        log.exception("Profile %s failed", profile.pk)
        return finish(profile, Status.ERROR, message=f"The table could not be profiled: {exc}")
    if document.get("error"):
        return finish(profile, Status.ERROR, message=document["error"], document=document)
    return finish(profile, Status.DONE, document=document)


def finish(profile: Profile, status: str, **fields: Any) -> str:
    Profile.objects.filter(pk=profile.pk, status=Status.RUNNING).update(
        status=status, finished_at=timezone.now(), **fields
    )
    return status


def end_if_lost(profile: Profile) -> None:
    """A queued or running profile past its time limit (plus a grace) ends `error` saying why."""
    if profile.status not in Profile.IN_FLIGHT:
        return
    limit = settings.DQ_RUN_TIME_LIMIT + GRACE_SECONDS
    since = profile.started_at or profile.created_at
    if timezone.now() - since <= timedelta(seconds=limit):
        return
    message = (
        "No worker took the profile in time (all busy, or none running); ask again."
        if profile.status == Status.QUEUED
        else "The worker profiling the table stopped before answering; ask again."
    )
    if Profile.objects.filter(pk=profile.pk, status=profile.status).update(
        status=Status.ERROR, message=message, finished_at=timezone.now()
    ):
        profile.refresh_from_db()
