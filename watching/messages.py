"""The message a run sends to a channel: one per run and channel, listing the checks that failed
or errored (statistic, expected value, the verdict sentence, whether it blocks, the batch) and
the checks that recovered, with a link to the run page.

Worded in the active language: the caller renders each channel's message inside
`translation.override(channel.language)` (watching/alerting.py). The webhook's JSON payload keeps
its machine values (statuses, numbers); its `verdict` and `message` are worded like the text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from executions.evaluation import verdict_in_words
from executions.models import Result, Run
from executions.scopes import scope_words
from executions.stored_words import reworded

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
        subject=_("[DQ] Test message for channel %(channel)s") % {"channel": channel_name},
        text=_(
            "This is a test from the data quality platform (%(url)s).\n"
            "Messages about failing checks will reach this channel (%(channel)s)."
        )
        % {"url": settings.DQ_PUBLIC_URL, "channel": channel_name},
        payload={"event": "dq.test", "channel": channel_name},
    )


def _subject(run: Run, failures: list[Failure], recoveries: list[Incident]) -> str:
    parts = []
    failed = [f for f in failures if f.result.status == Result.Status.FAIL]
    errored = [f for f in failures if f.result.status == Result.Status.ERROR]
    if failed:
        parts.append(
            ngettext("%(count)s check failed", "%(count)s checks failed", len(failed)) % {"count": len(failed)}
        )
    if errored:
        parts.append(_("%(count)s could not be evaluated") % {"count": len(errored)})
    if recoveries:
        parts.append(_("%(count)s recovered") % {"count": len(recoveries)})
    what = _(", ").join(parts)
    if len(failures) == 1 and not recoveries:
        subject = _("[DQ] Run %(run)s: %(check)s: %(what)s") % {
            "run": run.pk,
            "check": failures[0].result.check_version.name,
            "what": what,
        }
    else:
        subject = _("[DQ] Run %(run)s: %(what)s") % {"run": run.pk, "what": what}
    if any(f.result.blocks for f in failures):
        subject = _("%(subject)s — BLOCKS") % {"subject": subject}
    return subject


def _text(run: Run, failures: list[Failure], recoveries: list[Incident]) -> str:
    values = {
        "run": run.pk,
        "trigger": Run.Trigger(run.trigger).label if run.trigger in Run.Trigger.values else run.trigger,
        "date": f"{run.biz_date:%Y-%m-%d}",  # ISO: read alike in English and Chinese
        "status": Run.Status(run.status).label if run.status in Run.Status.values else run.status,
    }
    if run.blocking:
        first = _("Run %(run)s (%(trigger)s, business date %(date)s) ended %(status)s, blocking.") % values
    else:
        first = _("Run %(run)s (%(trigger)s, business date %(date)s) ended %(status)s.") % values
    lines = [first]
    if failures:
        lines += ["", _("Failing checks:")]
        for failure in failures:
            lines += _failure_lines(run, failure)
    if recoveries:
        lines += ["", _("Passing again:")]
        for incident in recoveries:
            lines.append(
                "✓ "
                + _(
                    "%(check)s passes again on %(scope)s (incident %(incident)s, open since %(since)s UTC, "
                    "%(count)s failing run(s))."
                )
                % {
                    "check": incident.rule_check.name,
                    "scope": scope_words(incident.partition_key),
                    "incident": incident.pk,
                    "since": f"{incident.opened_at:%Y-%m-%d %H:%M}",
                    "count": incident.occurrences,
                }
            )
    lines += ["", _("Run page: %(url)s") % {"url": run_url(run)}]
    return "\n".join(lines)


STRATEGIES = {"alert": gettext_lazy("alert"), "block": gettext_lazy("block")}


def _failure_lines(run: Run, failure: Failure) -> list[str]:
    r = failure.result
    blocks = _("blocks") if r.blocks else _("does not block")
    status = str(Result.Status(r.status).label if r.status in Result.Status.values else r.status).upper()
    strategy = STRATEGIES.get(r.failure_strategy, r.failure_strategy)
    lines = [
        _("✗ %(name)s — %(status)s (%(strategy)s, %(blocks)s)")
        % {"name": r.check_version.name, "status": status, "strategy": strategy, "blocks": blocks}
    ]
    if r.status == Result.Status.ERROR:
        lines.append(
            "  " + _("error: %(message)s") % {"message": reworded(r.message) or _("the check could not be evaluated")}
        )
    else:
        lines.append(
            "  "
            + _("statistic %(name)s = %(actual)s; expected %(expected)s")
            % {"name": r.statistic_name, "actual": _number(r.statistics_value), "expected": _number(r.comparison_value)}
        )
        lines.append(f"  {verdict_in_words(r)}")
    lines.append("  " + _("batch: %(batch)s") % {"batch": _batch_words(run, r.batch)})
    if r.error_row_count:
        lines.append("  " + _("offending rows: %(count)s") % {"count": r.error_row_count})
    if failure.incident.occurrences > 1:
        lines.append(
            "  "
            + _("incident %(incident)s: failing for %(count)s runs")
            % {"incident": failure.incident.pk, "count": failure.incident.occurrences}
        )
    return lines


def _batch(run: Run, name: str) -> dict[str, Any]:
    return dict((run.batches.get("definitions") or {}).get(name) or {})


def _batch_words(run: Run, name: str) -> str:
    batch = _batch(run, name)
    if not batch:
        return name
    values = {
        "datasource": batch.get("datasource"),
        "table": batch.get("table"),
        "filter": batch.get("filter"),
        "mode": SCAN_MODES.get(batch.get("scan_mode", "full"), batch.get("scan_mode")),
    }
    if batch.get("filter"):
        return _("%(datasource)s %(table)s where %(filter)s (%(mode)s)") % values
    return _("%(datasource)s %(table)s (%(mode)s)") % values


SCAN_MODES = {"full": gettext_lazy("full"), "partition": gettext_lazy("partition"), "sample": gettext_lazy("sample")}


def _number(value: float | None) -> str:
    if value is None:
        return _("none")
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
        "verdict": verdict_in_words(r),
        "message": reworded(r.message),
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
