"""`python manage.py dq_gate --datasource NAME --table T [--partition k=v …] [--wait --timeout S]`
for workflow schedulers (DolphinScheduler, Airflow): may the job downstream consume the newest
batch of that table's partition?

Exit codes: 0 may consume (published), 1 held (quarantined or awaiting approval), 2 anything else
(still validating after --timeout, unknown, no batch, bad input). One line on stdout or stderr.
`clients/dq_client.py gate` answers the same over HTTP (README "Workflows: run and wait, exit codes").
"""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from gates import gate
from gates.models import Batch

EXIT_CONSUME, EXIT_HELD, EXIT_OTHER = 0, 1, 2
HELD = (Batch.State.QUARANTINED, Batch.State.AWAITING_APPROVAL)
WAITING = (*Batch.IN_PROGRESS, *Batch.VERDICTS)


class Command(BaseCommand):
    help = "Ask the quality gate; exit 0 (may consume), 1 (quarantined or awaiting approval) or 2 (anything else)."

    def add_arguments(self, parser):
        parser.add_argument("--datasource", required=True, help="Datasource name (or id).")
        parser.add_argument("--table", required=True)
        parser.add_argument(
            "--partition",
            action="append",
            default=[],
            help='column=value (repeatable), or one JSON object for values holding commas: {"country": "CN,HK"}.',
        )
        parser.add_argument("--wait", action="store_true", help="Wait while the batch is being validated.")
        parser.add_argument("--timeout", type=int, default=3600, help="Seconds to wait (default 3600).")
        parser.add_argument("--user", default=None, help="Ask as this user (default: the first administrator).")

    def handle(self, *args, **options):
        user = self._user(options["user"])
        datasource = gate.find_datasource(user, options["datasource"])
        if datasource is None:
            self._exit(EXIT_OTHER, f"No datasource {options['datasource']!r}.")
        try:
            partition = gate.parse_partition(options["partition"], "=")
        except ValueError as exc:
            self._exit(EXIT_OTHER, f"--partition {exc}")
        deadline = time.monotonic() + options["timeout"]
        while True:
            answer = gate.answer(user, datasource, options["table"], partition)
            if not (options["wait"] and answer.state in WAITING) or time.monotonic() > deadline:
                break
            time.sleep(1)
        line = f"{answer.state or 'no batch'}: {answer.reason}" + (f" (batch {answer.batch})" if answer.batch else "")
        if answer.may_consume:
            self.stdout.write(f"may consume — {line}")
            return
        if answer.state in HELD:
            self._exit(EXIT_HELD, f"held — {line}")
        if answer.state in WAITING and options["wait"]:
            line = f"still {answer.state} after {options['timeout']} s (batch {answer.batch})"
        self._exit(EXIT_OTHER, f"not consumable — {line}")

    def _user(self, username):
        users = get_user_model().objects
        user = (
            users.filter(username=username).first()
            if username
            else users.filter(is_staff=True).order_by("-is_superuser", "pk").first()
        )
        if user is None:
            self._exit(EXIT_OTHER, f"No user {username!r}." if username else "No administrator exists; pass --user.")
        return user

    def _exit(self, code: int, message: str):
        raise CommandError(message, returncode=code)
