"""`manage.py dq_import_ds FILE --map 1=warehouse --map 2=7 [--dry-run] [--accept-partial]
[--ds-version 3.1] [--schedules] [--user NAME]`: the API's import, from a shell.

Exit 0 when the checks were imported (or, with --dry-run, would all be); non-zero with a message
otherwise (a refused import, an unreadable file, a mapping naming nothing)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from imports import dolphinscheduler as ds
from imports.importing import ExportAnswer, MappingInvalid, import_dolphinscheduler


class Command(BaseCommand):
    help = "Import the DATA_QUALITY tasks of a DolphinScheduler workflow export as checks."

    def add_arguments(self, parser):
        parser.add_argument("file", help="The export file (JSON) DolphinScheduler wrote.")
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="DS_ID=DATASOURCE",
            help="A DolphinScheduler datasource id and the datasource (id or name) here; repeat for each.",
        )
        parser.add_argument("--dry-run", action="store_true", help="Show what would happen; create nothing.")
        parser.add_argument("--accept-partial", action="store_true", help="Import what can be imported.")
        parser.add_argument(
            "--ds-version", choices=ds.DS_VERSIONS, default="3.2", help="Pass/fail semantics (default 3.2)."
        )
        parser.add_argument("--schedules", action="store_true", help="Create schedules from the workflows' schedules.")
        parser.add_argument("--user", help="Who imports (and owns the checks); default: the only administrator.")

    def handle(self, *args, **options):
        user = _user(options["user"])
        mapping = _mapping(options["map"])
        path = Path(options["file"])
        try:
            if path.stat().st_size > ds.MAX_EXPORT_BYTES:
                raise CommandError(
                    _("%(file)s is larger than %(mb)s MB.") % {"file": path, "mb": ds.MAX_EXPORT_BYTES // 1_000_000}
                )
            data = ds.load_json(path.read_bytes())
            outcome = import_dolphinscheduler(
                data,
                user,
                mapping,
                dry_run=options["dry_run"],
                accept_partial=options["accept_partial"],
                ds_version=options["ds_version"],
                create_schedules=options["schedules"],
            )
        except OSError as exc:
            raise CommandError(_("Cannot read %(file)s: %(error)s") % {"file": path, "error": exc.strerror}) from None
        except ds.ExportInvalid as exc:
            raise CommandError(str(exc)) from None
        except MappingInvalid as exc:
            lines = [f"--map {ds_id}: {' '.join(messages)}" for ds_id, messages in exc.fields.items()]
            raise CommandError("\n".join(lines)) from None
        self.stdout.write(summary_text(outcome))
        if outcome.refused:
            raise CommandError(outcome.summary())
        if not outcome.imported:
            raise CommandError(_("No check was imported."))


def summary_text(outcome: ExportAnswer) -> str:
    answer = outcome.answer()
    lines = [answer["semantics"], ""]
    verb = _("would import") if outcome.dry_run or outcome.refused else _("imported")
    for item in answer["imported"]:
        where = f" → check {item['check_id']}" if item["check_id"] else ""
        lines.append(
            f"  {verb}: [{item['task_code']}] {item['task_name']} ({item['workflow']}) as {item['template']}{where}"
        )
        lines.extend(f"      note: {note}" for note in item["notes"])
    for item in answer["skipped"]:
        lines.append(f"  skipped: [{item['task_code']}] {item['task_name']} ({item['workflow']}): {item['reason']}")
    other = answer["other_tasks"]
    if other["count"]:
        kinds = ", ".join(f"{kind} {count}" for kind, count in other["by_type"].items())
        lines.append(f"  ignored: {other['count']} other tasks ({kinds}). {other['reason']}")
    for schedule in answer["schedules"]:
        state = _("created") if schedule["created"] else schedule["reason"]
        lines.append(
            f"  schedule of {schedule['workflow']}: {schedule['quartz']} → {schedule['cron'] or '-'} "
            f"{schedule['timezone']}: {state}"
        )
    lines.extend(["", answer["summary"]])
    return "\n".join(lines)


def _user(name: str | None):
    users = get_user_model().objects.filter(is_active=True)
    if name:
        user = users.filter(username=name).first()
        if user is None:
            raise CommandError(_("No active user named %(name)r.") % {"name": name})
        return user
    admins = list(users.filter(is_staff=True)[:2])
    if len(admins) != 1:
        raise CommandError(_("Name the importing user with --user NAME (the checks will be theirs)."))
    return admins[0]


def _mapping(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        ds_id, sep, target = pair.partition("=")
        if not sep or not ds_id.strip() or not target.strip():
            raise CommandError(_("--map %(pair)r: write DS_ID=DATASOURCE, e.g. --map 1=warehouse.") % {"pair": pair})
        mapping[ds_id.strip()] = target.strip()
    return mapping
