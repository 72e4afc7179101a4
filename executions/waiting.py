"""Run and wait in one HTTP request (`POST /runs/?wait=S`, `GET /runs/{id}/verdict/?wait=S`): for
a scheduler's HTTP task, which sends one request and judges its status code or a text in its body.

The verdict table lives here, once: what a run's end means for the workflow, the HTTP status, the
body's marker. Exit codes of `dq_run`, `dq_gate` and clients/dq_client.py follow the same verdicts
(README "Workflows: run and wait, exit codes").

A waiting request holds a web thread (gunicorn's gthread worker: conf/gunicorn.conf.py) while it
polls the database twice a second. So each web process lets at most DQ_RUN_WAIT_SLOTS requests wait
at once, fewer than its threads; one more is refused at once (429 with Retry-After, no run
started), and the other requests keep their threads.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError

from .evaluation import verdict_in_words
from .models import Result, Run
from .stored_words import reworded

MARKER = "DQ_VERDICT="
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Verdict:
    name: str  # passed | blocked | error | timeout (busy: no run was waited on)
    http_status: int

    @property
    def marker(self) -> str:
        return f"{MARKER}{self.name.upper()}"


# Nothing blocks (every check passed, an `alert` check failed, or one could not decide yet): the
# workflow goes on, as DolphinScheduler's ALERT strategy keeps its task successful.
PASSED = Verdict("passed", 200)
# A `block` check failed: the data conflicts with a rule that must hold.
BLOCKED = Verdict("blocked", 409)
# The run ended `error` (a check could not be evaluated) or was cancelled: it says nothing about
# the data, and a workflow must not go on as if it had passed.
ERROR = Verdict("error", 424)
# The wait ended first; the run goes on (`poll` says where to ask again).
TIMEOUT = Verdict("timeout", 408)
# Every waiting slot of this web process is taken; nothing was started.
BUSY = Verdict("busy", 429)


def wait_seconds(query_params) -> int | None:
    """`?wait=S` as a whole number of seconds from 0 to DQ_RUN_WAIT_MAX; None without `wait`."""
    raw = query_params.get("wait")
    if raw is None:
        return None
    limit = settings.DQ_RUN_WAIT_MAX
    if not raw.strip().isdigit() or len(raw.strip()) > 9:
        raise ValidationError({"wait": [_("A whole number of seconds from 0 to %(max)s.") % {"max": limit}]})
    seconds = int(raw.strip())
    if seconds > limit:
        raise ValidationError(
            {
                "wait": [
                    _(
                        "At most %(max)s seconds (DQ_RUN_WAIT_MAX). Wait again with GET /api/v1/runs/{id}/verdict/?wait= "
                        "for longer runs."
                    )
                    % {"max": limit}
                ]
            }
        )
    return seconds


class _Slots:
    """The waiting requests one web process allows at once (made on first use, after settings)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._semaphore: threading.BoundedSemaphore | None = None

    def take(self) -> bool:
        with self._lock:
            if self._semaphore is None:
                self._semaphore = threading.BoundedSemaphore(settings.DQ_RUN_WAIT_SLOTS)
        return self._semaphore.acquire(blocking=False)

    def give_back(self) -> None:
        assert self._semaphore is not None
        self._semaphore.release()


slots = _Slots()


def busy_answer() -> tuple[int, dict[str, Any], dict[str, str]]:
    retry_after = min(30, max(1, settings.DQ_RUN_WAIT_MAX // 10))
    body = {
        "verdict": BUSY.name,
        "marker": BUSY.marker,
        "message": _(
            "%(slots)s requests are waiting for runs on this web process already; nothing was started. "
            "Try again in %(seconds)s seconds."
        )
        % {"slots": settings.DQ_RUN_WAIT_SLOTS, "seconds": retry_after},
        "retry_after": retry_after,
    }
    return BUSY.http_status, body, {"Retry-After": str(retry_after)}


def wait_for_end(run: Run, seconds: int) -> Run:
    """The run, re-read until it has ended or `seconds` have passed."""
    deadline = time.monotonic() + seconds
    while run.status not in Run.FINISHED and time.monotonic() < deadline:
        time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
        run.refresh_from_db(fields=["status", "blocking", "message", "finished_at"])
    return run


def verdict_of(run: Run) -> Verdict:
    if run.status not in Run.FINISHED:
        return TIMEOUT
    if run.status in (Run.Status.ERROR, Run.Status.CANCELLED):
        return ERROR
    return BLOCKED if run.blocking else PASSED


def answer(run: Run, request, waited: int) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of a run's verdict after waiting `waited` seconds."""
    verdict = verdict_of(run)
    results = _results(run) if run.status in Run.FINISHED else []
    poll = request.build_absolute_uri(reverse("run-verdict", args=[run.pk])) + f"?wait={max(waited, 1)}"
    body = {
        "status": run.status,
        "verdict": verdict.name,
        "marker": verdict.marker,
        "blocking": run.blocking,
        "run": run.pk,
        "url": request.build_absolute_uri(reverse("run-detail", args=[run.pk])),
        "poll": poll,
        "message": _message(run, verdict, results, waited),
        "alerts": sum(r["status"] in (Result.Status.FAIL, Result.Status.ERROR) and not r["blocks"] for r in results),
        "results": results,
    }
    return verdict.http_status, body


def _results(run: Run) -> list[dict[str, Any]]:
    rows = Result.objects.filter(run=run).select_related("check_version").order_by("id")
    return [
        {
            "check": r.rule_check_id,
            "name": _unmarked(r.check_version.name),
            "status": r.status,
            "failure_strategy": r.failure_strategy,
            "blocks": r.blocks,
            "statistic": r.statistics_value,
            "expected": r.comparison_value,
            # Worded for the reader (the stored text is the English record).
            "message": _unmarked(reworded(r.message) if r.message else verdict_in_words(r)),
        }
        for r in rows
    ]


def _unmarked(text: str) -> str:
    """A check named (or a message holding) the marker must not be read as the run's verdict."""
    return text.replace(MARKER, "DQ_VERDICT =")


def _message(run: Run, verdict: Verdict, results: list[dict], waited: int) -> str:
    numbers = {"id": run.pk, "status": run.get_status_display(), "seconds": waited}
    if verdict is TIMEOUT:
        return _("Run %(id)s is still %(status)s after %(seconds)s seconds; it goes on. Ask `poll` again.") % numbers
    if verdict is ERROR:
        detail = _unmarked(run.message) or "; ".join(
            f"{r['name']}: {r['message']}" for r in results if r["status"] == Result.Status.ERROR
        )
        return _("Run %(id)s ended %(status)s: %(detail)s") % {**numbers, "detail": detail}
    if verdict is BLOCKED:
        names = ", ".join(r["name"] for r in results if r["blocks"])
        return _("Run %(id)s is blocking: check(s) with failure strategy block failed: %(names)s.") % {
            **numbers,
            "names": names,
        }
    alerts = [r["name"] for r in results if r["status"] in (Result.Status.FAIL, Result.Status.ERROR)]
    if alerts:
        return _("Run %(id)s ended %(status)s; nothing blocks (alert only: %(names)s).") % {
            **numbers,
            "names": ", ".join(alerts),
        }
    return _("Run %(id)s ended %(status)s; nothing blocks.") % numbers
