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

from .models import Batch, FailMode


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
    warnings = [f"Check {o.name!r} failed (alert only)." for o in alerting]
    if not outcomes:
        verdict, verdict_reason = Batch.State.UNKNOWN, no_result_reason or "No check produced a result."
    elif blocking or alerting:
        verdict = Batch.State.FAILED
        verdict_reason = f"{len(blocking) + len(alerting)} of {len(outcomes)} checks failed: " + _names(
            blocking + alerting
        )
    elif undecided:
        verdict = Batch.State.UNKNOWN
        verdict_reason = f"{len(undecided)} of {len(outcomes)} checks could not decide: " + _described(undecided)
    else:
        return Decision(Batch.State.PASSED, f"All {len(outcomes)} checks passed.", Batch.State.PUBLISHED, "Passed.")
    if blocking:
        reason = f"Quarantined: blocking check{'s' if len(blocking) > 1 else ''} {_names(blocking)} failed."
        return Decision(verdict, verdict_reason, Batch.State.QUARANTINED, reason, warnings)
    if not outcomes or undecided:
        why = verdict_reason if not outcomes else f"{len(undecided)} check(s) could not decide"
        if fail_mode == FailMode.FAIL_OPEN:
            warnings.append(f"Published although {_lower(why)} (fail open, {fail_mode_source}).")
            return Decision(verdict, verdict_reason, Batch.State.PUBLISHED, f"Published by fail open: {why}", warnings)
        reason = f"Awaiting approval (fail closed, {fail_mode_source}): {why}"
        return Decision(verdict, verdict_reason, Batch.State.AWAITING_APPROVAL, reason, warnings)
    return Decision(
        verdict, verdict_reason, Batch.State.PUBLISHED, "Published with warnings: alert checks failed.", warnings
    )


def _names(outcomes: list[CheckOutcome]) -> str:
    return ", ".join(repr(o.name) for o in outcomes)


def _described(outcomes: list[CheckOutcome]) -> str:
    return "; ".join(f"{o.name!r} {o.status}" + (f" ({o.message})" if o.message else "") for o in outcomes)


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]
