"""Moving batches along as their runs start and end, and as releases expire.

Driven by executions' `run_started`/`run_finished` signals (gates/receivers.py), by beat
(`gates.tasks.expire_releases`), and lazily by every read (`catch_up`), so the gate answers right
even between beat ticks and for runs that ended without a signal (cancelled, ended by the reaper).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from executions.models import Run
from executions.stored_words import register

from .models import Batch, BatchAttempt, Release, TablePolicy
from .policy import CheckOutcome, decide

RUN_STARTED = gettext_noop("Run %(run)s started.")
ENDED_WITHOUT_RESULTS = gettext_noop("Run %(run)s ended %(status)s without results.")
ENDED_WITHOUT_RESULTS_SAYING = gettext_noop("Run %(run)s ended %(status)s without results: %(message)s")
RELEASE_EXPIRED = gettext_noop("Release by %(user)s expired at %(at)s UTC. %(reason)s")


def run_started(run: Run) -> None:
    attempt = BatchAttempt.objects.filter(run=run).select_related("batch").first()
    if attempt and attempt.batch.state == Batch.State.PENDING and _is_latest(attempt):
        attempt.batch.move(Batch.State.VALIDATING, RUN_STARTED % {"run": run.pk}, by=f"run {run.pk}")


def run_ended(run: Run) -> None:
    attempt = BatchAttempt.objects.filter(run=run).select_related("batch").first()
    if attempt is not None:
        conclude(attempt.batch, attempt)


def conclude(batch: Batch, attempt: BatchAttempt | None, no_result_reason: str = "") -> None:
    """The verdict of the batch's latest attempt (None: no check is bound), then the policy's outcome."""
    if batch.state not in Batch.IN_PROGRESS or (attempt is not None and not _is_latest(attempt)):
        return
    by = f"run {attempt.run_id}" if attempt else "registration"
    outcomes, why_none = _outcomes(batch, attempt) if attempt else ([], no_result_reason)
    fail_mode, source = TablePolicy.fail_mode_for(batch.datasource_id, batch.table)
    decision = decide(outcomes, fail_mode, source, why_none)
    with transaction.atomic():
        # A stale copy (moved to `validating` meanwhile) loses the conditional update once and is
        # refreshed by it; whoever concluded first wins, the others change nothing.
        while not batch.move(decision.verdict, decision.verdict_reason, by=by):
            if batch.state not in Batch.IN_PROGRESS:
                return
        batch.move(
            decision.outcome,
            decision.outcome_reason,
            by="policy",
            warnings=decision.warnings,
            policy_state=decision.outcome,
            policy_reason=decision.outcome_reason,
        )


# How a batch's reasons and warnings name a check that reads another datasource than the batch's:
# they are shown to whoever sees the batch, who may not see that check (its name, its tables).
HIDDEN_CHECK = gettext_noop("a check that also reads another datasource")
NOT_RUN = gettext_noop("not run: its requester may not read what it compares with")
register(RUN_STARTED, ENDED_WITHOUT_RESULTS, ENDED_WITHOUT_RESULTS_SAYING, RELEASE_EXPIRED, NOT_RUN)


def _outcomes(batch: Batch, attempt: BatchAttempt) -> tuple[list[CheckOutcome], str]:
    run = attempt.run
    results = run.results.select_related("check_version").order_by("id")
    outcomes = [_outcome(batch, r) for r in results]
    # A bound check left out of the run (its requester may not read its other side) is undecided,
    # so the batch cannot pass without it: the table's fail mode decides.
    outcomes += [
        CheckOutcome(s["name"] if s.get("public") else HIDDEN_CHECK, "unknown", s.get("failure_strategy", ""), NOT_RUN)
        for s in attempt.skipped_checks
    ]
    if outcomes:
        return outcomes, ""
    ended = {"run": run.pk, "status": run.status, "message": run.message}
    return [], (ENDED_WITHOUT_RESULTS_SAYING if run.message else ENDED_WITHOUT_RESULTS) % ended


def _outcome(batch: Batch, result) -> CheckOutcome:
    version = result.check_version
    read = {version.params.get(f) for f in ("src_datasource_id", "target_datasource_id")} - {None}
    if read <= {batch.datasource_id}:
        return CheckOutcome(version.name, result.status, result.failure_strategy, result.message)
    return CheckOutcome(HIDDEN_CHECK, result.status, result.failure_strategy, "")


def _is_latest(attempt: BatchAttempt) -> bool:
    return not BatchAttempt.objects.filter(batch_id=attempt.batch_id, number__gt=attempt.number).exists()


def expire_release(release: Release) -> bool:
    """End a due release and return its batch to what the policy says (False when not due)."""
    if release.ended_at is not None or release.expires_at > timezone.now():
        return False
    with transaction.atomic():
        if not release.end("expired"):
            return False
        batch = release.batch
        if batch.state == Batch.State.PUBLISHED and batch.policy_state != Batch.State.PUBLISHED:
            batch.move(
                batch.policy_state,
                RELEASE_EXPIRED
                % {
                    "user": released_by(release),
                    "at": f"{release.expires_at:%Y-%m-%d %H:%M}",
                    "reason": batch.policy_reason,
                },
                by="release expiry",
            )
    return True


def expire_due_releases() -> int:
    """Every due release (beat, gates.tasks.expire_releases)."""
    due = Release.objects.filter(ended_at__isnull=True, expires_at__lte=timezone.now()).select_related("batch")
    return sum(expire_release(release) for release in due)


def catch_up(batch: Batch) -> Batch:
    """Bring one batch up to date before it is shown or asked: a due release expires, a finished
    run that sent no signal concludes, a started one makes the batch `validating`."""
    release = batch.active_release()
    if release is not None:
        expire_release(release)
    if batch.state in Batch.IN_PROGRESS:
        attempt = batch.latest_attempt()
        if attempt is not None and attempt.run.status in Run.FINISHED:
            conclude(batch, attempt)
        elif attempt is not None and attempt.run.status == Run.Status.RUNNING:
            run_started(attempt.run)
    batch.refresh_from_db()
    return batch


def released_by(release: Release) -> str:
    return release.released_by.get_username() if release.released_by_id else "a deleted user"
