"""Scores: among the checks that decided on their latest result (it passed or it failed), the share
that passed. Errored and unknown results decided nothing about the data: they are counted and
shown apart, never in the score; so are checks never run."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.utils.translation import gettext, gettext_noop

from executions.models import Result
from rules.models import QUALITY_DIMENSIONS

from .scope import ScopedCheck

FORMULA = gettext_noop(
    "score = passed ÷ (passed + failed) × 100, over each check's latest result; "
    "errored, unknown and never-run checks are counted apart and left out of the score"
)


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    unknown: int = 0
    never_run: int = 0

    def add(self, status: str | None) -> None:
        if status == Result.Status.PASS:
            self.passed += 1
        elif status == Result.Status.FAIL:
            self.failed += 1
        elif status == Result.Status.ERROR:
            self.errors += 1
        elif status == Result.Status.UNKNOWN:
            self.unknown += 1
        else:
            self.never_run += 1

    @property
    def decided(self) -> int:
        return self.passed + self.failed

    @property
    def checks(self) -> int:
        return self.decided + self.errors + self.unknown + self.never_run

    @property
    def score(self) -> float | None:
        """None when no check decided: no score rather than a made-up 0 or 100."""
        return round(self.passed * 100 / self.decided, 1) if self.decided else None

    def as_dict(self) -> dict:
        return {
            "score": self.score,
            "checks": self.checks,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "unknown": self.unknown,
            "never_run": self.never_run,
        }


@dataclass
class Scores:
    overall: Tally = field(default_factory=Tally)
    dimensions: dict[str, Tally] = field(default_factory=lambda: {d: Tally() for d in QUALITY_DIMENSIONS})

    def add(self, check: ScopedCheck, status: str | None) -> None:
        self.overall.add(status)
        self.dimensions[check.dimension].add(status)


def latest_statuses(user, check_ids: Iterable[int]) -> dict[int, str]:
    """The status of each check's newest result the user may read (`Result.objects.visible_to`);
    checks with none are absent."""
    ids = list(check_ids)
    if not ids:
        return {}
    results = Result.objects.visible_to(user).filter(rule_check_id__in=ids).newest_of_each_check()
    return dict(results.values_list("rule_check_id", "status"))


def scores_of(checks: Iterable[ScopedCheck], statuses: dict[int, str]) -> Scores:
    scores = Scores()
    for check in checks:
        scores.add(check, statuses.get(check.id))
    return scores


# The dimensions' names as people read them (`label`; `dimension` stays the key).
DIMENSION_LABELS = {
    "completeness": gettext_noop("Completeness"),
    "uniqueness": gettext_noop("Uniqueness"),
    "validity": gettext_noop("Validity"),
    "timeliness": gettext_noop("Timeliness"),
    "accuracy": gettext_noop("Accuracy"),
    "consistency": gettext_noop("Consistency"),
}


def dimension_rows(scores: Scores) -> list[dict]:
    return [
        {"dimension": key, "label": gettext(DIMENSION_LABELS.get(key, key)), **tally.as_dict()}
        for key, tally in scores.dimensions.items()
    ]
