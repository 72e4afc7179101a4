"""What a validation's results mean for downstream: pure functions, no database.

Verdict (what the data did): `failed` when any check failed, else `unknown` when any check could
not be evaluated (`error`) or had nothing to compare with (`unknown`), or no check ran, else
`passed`. Outcome (what downstream may do), in this order:
- a failed `block` check → `quarantined`;
- an `error`/`unknown` result (or no result at all) → the table's fail mode: `fail_closed` →
  `awaiting_approval`, `fail_open` → `published` with a warning;
- failures of `alert` checks only → `published` with a warning per failure;
- otherwise `published`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext_noop

from executions.stored_words import register

from .models import Batch, FailMode

# The reasons are stored in English as they are decided (`template % values`); the API and the gate
# word them in the reader's language (executions/stored_words.py).
ALERT_ONLY = gettext_noop("Check %(name)s failed (alert only).")
NO_RESULT = gettext_noop("No check produced a result.")
SOME_FAILED = gettext_noop("%(count)s of %(total)s checks failed: %(names)s")
SOME_UNDECIDED = gettext_noop("%(count)s of %(total)s checks could not decide: %(described)s")
ALL_PASSED = gettext_noop("All %(total)s checks passed.")
PASSED = gettext_noop("Passed.")
QUARANTINED_ONE = gettext_noop("Quarantined: blocking check %(names)s failed.")
QUARANTINED_MANY = gettext_noop("Quarantined: blocking checks %(names)s failed.")
UNDECIDED = gettext_noop("%(count)s check(s) could not decide")
PUBLISHED_ALTHOUGH = gettext_noop("Published although %(why)s (fail open, %(source)s).")
PUBLISHED_OPEN = gettext_noop("Published by fail open: %(why)s")
AWAITING = gettext_noop("Awaiting approval (fail closed, %(source)s): %(why)s")
PUBLISHED_WARNINGS = gettext_noop("Published with warnings: alert checks failed.")
CHECK_DESCRIBED = gettext_noop("%(name)s %(status)s (%(message)s)")
POLICY_OF_TABLE = gettext_noop("the policy of table %(table)s")
DATASOURCE_POLICY = gettext_noop("the datasource's policy")
DEFAULT_POLICY = gettext_noop("the default policy")
register(
    ALERT_ONLY,
    NO_RESULT,
    SOME_FAILED,
    SOME_UNDECIDED,
    ALL_PASSED,
    PASSED,
    QUARANTINED_ONE,
    QUARANTINED_MANY,
    UNDECIDED,
    PUBLISHED_ALTHOUGH,
    PUBLISHED_OPEN,
    AWAITING,
    PUBLISHED_WARNINGS,
    CHECK_DESCRIBED,
    POLICY_OF_TABLE,
    DATASOURCE_POLICY,
    DEFAULT_POLICY,
)


@dataclass(frozen=True)
class CheckOutcome:
    name: str
    status: str  # pass | fail | error | unknown
    failure_strategy: str  # alert | block
    message: str = ""


@dataclass
class Decision:
    verdict: str
    verdict_reason: str
    outcome: str
    outcome_reason: str
    warnings: list[str] = field(default_factory=list)


def decide(outcomes: list[CheckOutcome], fail_mode: str, fail_mode_source: str, no_result_reason: str = "") -> Decision:
    blocking = [o for o in outcomes if o.status == "fail" and o.failure_strategy == "block"]
    alerting = [o for o in outcomes if o.status == "fail" and o.failure_strategy != "block"]
    undecided = [o for o in outcomes if o.status in ("error", "unknown")]
    warnings = [ALERT_ONLY % {"name": repr(o.name)} for o in alerting]
    total = len(outcomes)
    if not outcomes:
        verdict, verdict_reason = Batch.State.UNKNOWN, no_result_reason or NO_RESULT
    elif blocking or alerting:
        verdict = Batch.State.FAILED
        failed = blocking + alerting
        verdict_reason = SOME_FAILED % {"count": len(failed), "total": total, "names": _names(failed)}
    elif undecided:
        verdict = Batch.State.UNKNOWN
        verdict_reason = SOME_UNDECIDED % {"count": len(undecided), "total": total, "described": _described(undecided)}
    else:
        return Decision(Batch.State.PASSED, ALL_PASSED % {"total": total}, Batch.State.PUBLISHED, PASSED)
    if blocking:
        reason = (QUARANTINED_MANY if len(blocking) > 1 else QUARANTINED_ONE) % {"names": _names(blocking)}
        return Decision(verdict, verdict_reason, Batch.State.QUARANTINED, reason, warnings)
    if not outcomes or undecided:
        why = verdict_reason if not outcomes else UNDECIDED % {"count": len(undecided)}
        if fail_mode == FailMode.FAIL_OPEN:
            warnings.append(PUBLISHED_ALTHOUGH % {"why": _lower(why), "source": fail_mode_source})
            return Decision(verdict, verdict_reason, Batch.State.PUBLISHED, PUBLISHED_OPEN % {"why": why}, warnings)
        reason = AWAITING % {"source": fail_mode_source, "why": why}
        return Decision(verdict, verdict_reason, Batch.State.AWAITING_APPROVAL, reason, warnings)
    return Decision(verdict, verdict_reason, Batch.State.PUBLISHED, PUBLISHED_WARNINGS, warnings)


def _names(outcomes: list[CheckOutcome]) -> str:
    return ", ".join(repr(o.name) for o in outcomes)


def _described(outcomes: list[CheckOutcome]) -> str:
    return "; ".join(
        CHECK_DESCRIBED % {"name": repr(o.name), "status": o.status, "message": o.message}
        if o.message
        else f"{o.name!r} {o.status}"
        for o in outcomes
    )


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]
