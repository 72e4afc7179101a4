"""The message a run sends to a channel: one per run and channel, listing the checks that failed
or errored (statistic, expected value, the verdict sentence, whether it blocks, the batch) and
the checks that recovered, with a link to the run page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from executions.models import Result, Run
from executions.scopes import scope_words

from .channels import Message
from .models import Incident


@dataclass(frozen=True)
class Failure:
    result: Result
    incident: Incident


def run_url(run: Run) -> str:
    return f"{settings.DQ_PUBLIC_URL.rstrip('/')}/runs/{run.pk}"


def run_message(run: Run, failures: list[Failure], recoveries: list[Incident]) -> Message:
    return Message(
        subject=_subject(run, failures, recoveries),
        text=_text(run, failures, recoveries),
        payload={
            "event": "dq.run",
            "run": _run_payload(run),
            "failures": [_failure_payload(f) for f in failures],
            "recoveries": [_recovery_payload(i) for i in recoveries],
        },
    )


def test_message(channel_name: str) -> Message:
    return Message(
        subject=f"[DQ] Test message for channel {channel_name}",
        text=(
            f"This is a test from the data quality platform ({settings.DQ_PUBLIC_URL}).\n"
            f"Messages about failing checks will reach this channel ({channel_name})."
        ),
        payload={"event": "dq.test", "channel": channel_name},
    )


def _subject(run: Run, failures: list[Failure], recoveries: list[Incident]) -> str:
    parts = []
    failed = [f for f in failures if f.result.status == Result.Status.FAIL]
    errored = [f for f in failures if f.result.status == Result.Status.ERROR]
    if failed:
        parts.append(f"{len(failed)} check{'s' if len(failed) > 1 else ''} failed")
    if errored:
        parts.append(f"{len(errored)} could not be evaluated")
    if recoveries:
        parts.append(f"{len(recoveries)} recovered")
    blocks = " — BLOCKS" if any(f.result.blocks for f in failures) else ""
    lone = f": {failures[0].result.check_version.name}" if len(failures) == 1 and not recoveries else ""
    return f"[DQ] Run {run.pk}{lone}: {', '.join(parts)}{blocks}"


def _text(run: Run, failures: list[Failure], recoveries: list[Incident]) -> str:
    lines = [
        f"Run {run.pk} ({run.trigger}, business date {run.biz_date:%Y-%m-%d}) ended {run.status}"
        + (", blocking" if run.blocking else "")
        + "."
    ]
    if failures:
        lines += ["", "Failing checks:"]
        for failure in failures:
            lines += _failure_lines(run, failure)
    if recoveries:
        lines += ["", "Passing again:"]
        for incident in recoveries:
            lines.append(
                f"✓ {incident.rule_check.name} passes again on {scope_words(incident.partition_key)} "
                f"(incident {incident.pk}, open since "
                f"{incident.opened_at:%Y-%m-%d %H:%M} UTC, {incident.occurrences} failing run(s))."
            )
    lines += ["", f"Run page: {run_url(run)}"]
    return "\n".join(lines)


def _failure_lines(run: Run, failure: Failure) -> list[str]:
    r = failure.result
    blocks = "blocks" if r.blocks else "does not block"
    lines = [f"✗ {r.check_version.name} — {r.status.upper()} ({r.failure_strategy}, {blocks})"]
    if r.status == Result.Status.ERROR:
        lines.append(f"  error: {r.message or 'the check could not be evaluated'}")
    else:
        lines.append(
            f"  statistic {r.statistic_name} = {_number(r.statistics_value)}; expected {_number(r.comparison_value)}"
        )
        lines.append(f"  {r.verdict}")
    lines.append(f"  batch: {_batch_words(run, r.batch)}")
    if r.error_row_count:
        lines.append(f"  offending rows: {r.error_row_count}")
    if failure.incident.occurrences > 1:
        lines.append(f"  incident {failure.incident.pk}: failing for {failure.incident.occurrences} runs")
    return lines


def _batch(run: Run, name: str) -> dict[str, Any]:
    return dict((run.batches.get("definitions") or {}).get(name) or {})


def _batch_words(run: Run, name: str) -> str:
    batch = _batch(run, name)
    if not batch:
        return name
    where = f" where {batch['filter']}" if batch.get("filter") else ""
    return f"{batch.get('datasource')} {batch.get('table')}{where} ({batch.get('scan_mode', 'full')})"


def _number(value: float | None) -> str:
    if value is None:
        return "none"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _run_payload(run: Run) -> dict[str, Any]:
    return {
        "id": run.pk,
        "status": run.status,
        "blocking": run.blocking,
        "trigger": run.trigger,
        "biz_date": run.biz_date.isoformat(),
        "url": run_url(run),
    }


def _failure_payload(failure: Failure) -> dict[str, Any]:
    r = failure.result
    return {
        "check": r.rule_check_id,
        "check_name": r.check_version.name,
        "check_version": r.check_version.number,
        "result": r.pk,
        "status": r.status,
        "statistic_name": r.statistic_name,
        "statistics_value": r.statistics_value,
        "comparison_value": r.comparison_value,
        "verdict": r.verdict,
        "message": r.message,
        "failure_strategy": r.failure_strategy,
        "blocks": r.blocks,
        "error_row_count": r.error_row_count,
        "batch": {"name": r.batch, **_batch(r.run, r.batch)},
        "incident": failure.incident.pk,
    }


def _recovery_payload(incident: Incident) -> dict[str, Any]:
    return {
        "check": incident.rule_check_id,
        "check_name": incident.rule_check.name,
        "incident": incident.pk,
        "partition": incident.partition_key,
        "opened_at": incident.opened_at.isoformat(),
        "occurrences": incident.occurrences,
    }
