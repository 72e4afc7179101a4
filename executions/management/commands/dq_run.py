"""`python manage.py dq_run --check ID [--check ID …] [--biz-date D] --wait` for schedulers.

Exit codes: 0 nothing blocks, 1 the run is blocking (a `block` check failed), 2 on error (bad
input, a check that could not be evaluated, a cancelled run, or the wait timed out): the same as
clients/dq_client.py and the verdict of `POST /api/v1/runs/?wait=` (executions/waiting.py;
README "Workflows: run and wait, exit codes", one table for all).
"""

from __future__ import annotations

import time
from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from dq_engine.selection import AUTO
from dq_engine.selection import CHOICES as ENGINE_CHOICES
from executions.evaluation import rule_in_words
from executions.models import Result, Run
from executions.starting import RunRequestInvalid, start_run
from rules.models import Check

EXIT_OK, EXIT_BLOCKING, EXIT_ERROR = 0, 1, 2


class Command(BaseCommand):
    help = "Run checks and, with --wait, print a summary and exit 0 (ok), 1 (blocking) or 2 (error)."

    def add_arguments(self, parser):
        parser.add_argument("--check", type=int, action="append", required=True, help="Check id (repeatable).")
        parser.add_argument("--biz-date", type=date.fromisoformat, help="Business date YYYY-MM-DD (default today).")
        parser.add_argument("--wait", action="store_true", help="Wait for the run to end and exit with its verdict.")
        parser.add_argument("--timeout", type=int, default=3600, help="Seconds to wait (default 3600).")
        parser.add_argument(
            "--backfill", action="store_true", help="Mark as a backfill (kept out of history averages)."
        )
        parser.add_argument("--user", default=None, help="Run as this user (default: the first administrator).")
        parser.add_argument(
            "--engine",
            default=AUTO,
            choices=ENGINE_CHOICES,
            help="The engine that reads every batch (default auto: chosen per batch; README, Engines).",
        )

    def handle(self, *args, **options):
        user = self._user(options["user"])
        checks = list(Check.objects.visible_to(user).filter(pk__in=options["check"]))
        missing = sorted(set(options["check"]) - {c.pk for c in checks})
        if missing:
            self._exit(EXIT_ERROR, f"Unknown check id(s): {', '.join(map(str, missing))}.")
        trigger = Run.Trigger.BACKFILL if options["backfill"] else Run.Trigger.API
        by_id = {c.pk: c for c in checks}
        try:
            run, _ = start_run(
                [by_id[i] for i in dict.fromkeys(options["check"])],
                user,
                options["biz_date"],
                trigger,
                engine=options["engine"],
            )
        except RunRequestInvalid as exc:
            self._exit(EXIT_ERROR, " ".join(message for messages in exc.fields.values() for message in messages))
        self.stdout.write(f"Run {run.pk} queued ({len(checks)} check(s), business date {run.biz_date}).")
        if not options["wait"]:
            return
        run = self._wait(run, options["timeout"])
        self._summary(run, user)
        if run.status in (Run.Status.ERROR, Run.Status.CANCELLED):  # a cancelled run checked nothing
            self._exit(EXIT_ERROR, f"Run {run.pk} ended with status {run.status}: {run.message}")
        if run.blocking:
            self._exit(EXIT_BLOCKING, f"Run {run.pk} is blocking: a check with failure strategy 'block' failed.")
        self.stdout.write(f"Run {run.pk} {run.status}; nothing blocks.")

    def _user(self, username):
        users = get_user_model().objects
        user = (
            users.filter(username=username).first()
            if username
            else users.filter(is_staff=True).order_by("-is_superuser", "pk").first()
        )
        if user is None:
            self._exit(EXIT_ERROR, f"No user {username!r}." if username else "No administrator exists; pass --user.")
        return user

    def _wait(self, run: Run, timeout: int) -> Run:
        deadline = time.monotonic() + timeout
        while run.status not in Run.FINISHED:
            if time.monotonic() > deadline:
                self._exit(EXIT_ERROR, f"Run {run.pk} did not finish within {timeout} s (status {run.status}).")
            time.sleep(1)
            run.refresh_from_db()
        return run

    def _summary(self, run: Run, user) -> None:
        rows = [("check", "status", "statistic", "expected", "rule", "strategy")]
        # The same question every view asks, though a user reads the runs they start anyway.
        for r in Result.objects.visible_to(user).filter(run=run).select_related("check_version").order_by("id"):
            rule = rule_in_words(r.check_type, r.operator, r.threshold)
            rows.append(
                (
                    r.check_version.name,
                    r.status.upper(),
                    _fmt(r.statistics_value),
                    _fmt(r.comparison_value),
                    r.message or rule,
                    r.failure_strategy,
                )
            )
        widths = [min(max(len(str(row[i])) for row in rows), 60) for i in range(len(rows[0]))]
        for row in rows:
            self.stdout.write(
                "  ".join(str(cell)[:60].ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            )

    def _exit(self, code: int, message: str):
        raise CommandError(message, returncode=code)


def _fmt(value) -> str:
    if value is None:
        return "—"
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"
