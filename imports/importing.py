"""Importing a DolphinScheduler export: datasources mapped, each check validated as the API
validates a new check (CheckSerializer against the live catalog), then created in one transaction,
or only those that passed when the user accepts a partial import. The API view and the
`dq_import_ds` command both call `import_dolphinscheduler`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_platform.ids import as_id
from rules.serializers import CheckSerializer
from watching import cron
from watching.serializers import ScheduleSerializer

from . import dolphinscheduler as ds

TAG = "dolphinscheduler"


class MappingInvalid(Exception):
    """The datasource mapping names something the user cannot use: {DS id: [message]}."""

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


@dataclass
class ExportAnswer:
    imported: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    other_tasks: dict[str, int] = field(default_factory=dict)
    schedules: list[dict[str, Any]] = field(default_factory=list)
    ds_version: str = "3.2"
    dry_run: bool = False
    accept_partial: bool = False

    @property
    def refused(self) -> bool:
        """All or nothing: a skipped data-quality task refuses the import unless partial is accepted."""
        return bool(self.skipped) and not self.accept_partial

    def answer(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "applicable": not self.refused,
            "accept_partial": self.accept_partial,
            "ds_version": self.ds_version,
            "semantics": semantics_words(self.ds_version),
            "imported": self.imported,
            "skipped": self.skipped,
            "other_tasks": {
                "count": sum(self.other_tasks.values()),
                "by_type": dict(sorted(self.other_tasks.items())),
                "reason": _("Only DATA_QUALITY tasks become checks; other task types stay in DolphinScheduler."),
            },
            "schedules": self.schedules,
            "summary": self.summary(),
        }

    def summary(self) -> str:
        counts = {"imported": len(self.imported), "skipped": len(self.skipped), "other": sum(self.other_tasks.values())}
        if self.refused and self.dry_run:
            return (
                _(
                    "Dry run: this import would be refused, %(skipped)s data-quality tasks cannot be imported "
                    "(see skipped). Fix them, or accept a partial import to import the other %(imported)s."
                )
                % counts
            )
        if self.refused:
            return (
                _(
                    "Nothing was imported: %(skipped)s data-quality tasks cannot be imported (see skipped). "
                    "Fix them, or accept a partial import to import the other %(imported)s."
                )
                % counts
            )
        if self.dry_run:
            return (
                _(
                    "Dry run: checks that would be imported: %(imported)s, tasks skipped: %(skipped)s, other tasks ignored: %(other)s."
                )
                % counts
            )
        return _("Checks imported: %(imported)s, tasks skipped: %(skipped)s, other tasks ignored: %(other)s.") % counts


def semantics_words(ds_version: str) -> str:
    if ds_version == "3.1":
        return _(
            "DolphinScheduler 3.1.x (and 3.0.0-3.0.3): a check failed when `formula operator threshold` held, "
            "so each operator was negated; the imported check passes when the negated comparison holds."
        )
    return _(
        "DolphinScheduler 3.2.x (and 3.0.4-3.0.6): a check passes when `formula operator threshold` holds, as here."
    )


def resolve_mapping(raw: dict[Any, Any], user) -> dict[str, Datasource]:
    """{DS datasource id: datasource} from the user's `{ds id: id or name}`; MappingInvalid naming
    each entry the user may not use (or that names nothing)."""
    usable = Datasource.objects.visible_to(user)
    resolved: dict[str, Datasource] = {}
    problems: dict[str, list[str]] = {}
    for key, value in raw.items():
        ds_id = str(key).strip()
        if as_id(ds_id) is None:
            problems[ds_id or "?"] = [_("%(key)r is not a DolphinScheduler datasource id (a number).") % {"key": key}]
            continue
        target = as_id(value)
        found = (
            usable.filter(pk=target).first() if target is not None else usable.filter(name=str(value).strip()).first()
        )
        if found is None:
            problems[ds_id] = [
                _("Datasource %(name)r does not exist or you may not create checks on it.") % {"name": str(value)}
            ]
            continue
        resolved[ds_id] = found
    if problems:
        raise MappingInvalid(problems)
    return resolved


def import_dolphinscheduler(
    data: Any,
    user,
    mapping: dict[Any, Any],
    *,
    dry_run: bool = False,
    accept_partial: bool = False,
    ds_version: str = "3.2",
    create_schedules: bool = False,
    request=None,
) -> ExportAnswer:
    """Read, map, validate and (unless `dry_run` or refused) create. ExportInvalid or MappingInvalid
    for input that cannot be read at all; every other problem skips its own task with a reason."""
    export = ds.read_export(data, ds_version)
    datasources = resolve_mapping(mapping, user)
    request = request or SimpleNamespace(user=user)  # the command has no request; serializers read its user
    outcome = ExportAnswer(ds_version=ds_version, dry_run=dry_run, accept_partial=accept_partial)
    for task in export.other:
        outcome.other_tasks[task.task_type] = outcome.other_tasks.get(task.task_type, 0) + 1
    catalogs: dict[int, list[str] | None] = {}
    valid: list[tuple[ds.Task, CheckSerializer]] = []
    for task in export.data_quality:
        reasons, checked = _validate(task, datasources, catalogs, request)
        if reasons:
            outcome.skipped.append(_skipped(task, reasons))
        else:
            valid.append((task, checked))
    if outcome.refused or dry_run:
        outcome.imported = [_imported(task, checked, None) for task, checked in valid]
        outcome.schedules = _plan_schedules(export, valid, create_schedules, None, request)
        return outcome
    with transaction.atomic():
        created = [(task, checked, _create(checked)) for task, checked in valid]
        outcome.imported = [_imported(task, checked, check) for task, checked, check in created]
        outcome.schedules = _plan_schedules(
            export, valid, create_schedules, {t.code: c for t, _s, c in created}, request
        )
    return outcome


def _validate(task: ds.Task, datasources, catalogs, request) -> tuple[dict[str, list[str]], CheckSerializer | None]:
    if task.problems:
        return {name: [message] for name, message in task.problems.items()}, None
    params = dict(task.params)
    unmapped = {}
    for field_name, ds_id in task.ds_datasources.items():
        datasource = datasources.get(ds_id)
        if datasource is None:
            unmapped[field_name] = [
                _(
                    "DolphinScheduler datasource %(id)s is not mapped to a datasource here; map it "
                    "(e.g. %(id)s=warehouse) to import this task."
                )
                % {"id": ds_id}
            ]
            continue
        params[field_name] = datasource.pk
        table_field = field_name.replace("_datasource_id", "_table")
        if table_field in params:
            params[table_field], several = _catalog_name(datasource, params[table_field], catalogs)
            if several:
                unmapped[table_field] = [
                    _(
                        "The export names table %(table)r without a database, and datasource %(source)r has "
                        "several: %(names)s. Add the database (%(database)s) to the task in the export."
                    )
                    % {
                        "table": params[table_field],
                        "source": datasource.name,
                        "names": ", ".join(several),
                        "database": table_field.replace("_table", "_database"),
                    }
                ]
    if unmapped:
        return unmapped, None
    body = {
        "name": task.check_name,
        "template": task.template,
        "params": params,
        "tags": [TAG],
        "message": _("Imported from DolphinScheduler task %(code)s (%(name)s) of workflow %(workflow)s.")
        % {"code": task.code, "name": task.name, "workflow": task.workflow},
    }
    checked = CheckSerializer(data=body, context={"request": request})
    if checked.is_valid():
        return {}, checked
    return _reasons(checked.errors), None


def _catalog_name(datasource: Datasource, table: str, catalogs: dict[int, list[str] | None]) -> tuple[str, list[str]]:
    """The catalog's name of a DolphinScheduler table: `database.table` when the catalog has it,
    else the one catalog table of that name in any schema (DolphinScheduler before 3.2 had no
    database field), with the candidates when there are several. Unchanged when the catalog
    cannot say; validation then names the table."""
    if datasource.pk not in catalogs:
        try:
            catalogs[datasource.pk] = connector_for(datasource).tables()
        except ConnectorError:
            catalogs[datasource.pk] = None
    names = catalogs[datasource.pk]
    if not names or table in names:
        return table, []
    if "." in table:
        return table, []  # a database was named: validation says the table is not there
    candidates = [n for n in names if n.endswith(f".{table}")]
    if len(candidates) == 1:
        return candidates[0], []
    return table, candidates


def _reasons(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """The serializer's errors as {field: [messages]}, params' fields by their own names."""
    found: dict[str, list[str]] = {}
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = key if key != "params" else ""
            found.update(_reasons(value, f"{prefix}{name}" if not prefix or not name else f"{prefix}.{name}"))
        return found
    if isinstance(errors, list) and all(not isinstance(e, (dict, list)) for e in errors):
        return {prefix or "check": [str(e) for e in errors]}
    if isinstance(errors, list):
        for index, item in enumerate(errors):
            found.update(_reasons(item, f"{prefix}.{index}"))
        return found
    return {prefix or "check": [str(errors)]}


def _skipped(task: ds.Task, reasons: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "workflow": task.workflow,
        "task_code": task.code,
        "task_name": task.name,
        "template": task.template,
        "fields": reasons,
        "reason": " ".join(f"{name}: {message}" for name, messages in reasons.items() for message in messages),
    }


def _imported(task: ds.Task, checked: CheckSerializer, check) -> dict[str, Any]:
    validated = checked.validated_data
    return {
        "workflow": task.workflow,
        "task_code": task.code,
        "task_name": task.name,
        "check_name": validated["name"],
        "template": validated["template"].key,
        "params": validated["params"],
        "notes": task.notes,
        "warnings": list(getattr(checked, "_save_warnings", [])),
        "check_id": check.pk if check else None,
        "link": f"/checks/{check.pk}" if check else None,
    }


def _create(checked: CheckSerializer):
    """CheckSerializer.create: the check, its first version and its tags, as the API saves them."""
    return checked.save()


def _plan_schedules(export: ds.Export, valid, create: bool, created: dict[str, Any] | None, request) -> list[dict]:
    """Each workflow schedule: its cron here, or why there is none. Created (when asked, not in a
    dry run, `created` holding the new checks by task code) for the workflow's imported checks,
    through the schedule serializer as the API creates one."""
    imported_codes = {task.code for task, _checked in valid}
    answers = []
    for schedule in export.schedules:
        codes = [c for c in schedule.task_codes if c in imported_codes]
        answer = {
            "workflow": schedule.workflow,
            "quartz": schedule.quartz,
            "cron": schedule.cron,
            "timezone": schedule.timezone,
            "enabled": schedule.enabled,
            "created": False,
            "schedule_id": None,
            "reason": schedule.problem or _schedule_problem(schedule),
        }
        answers.append(answer)
        if answer["reason"]:
            continue
        if not codes:
            answer["reason"] = _("None of the workflow's data-quality tasks is imported; there is nothing to schedule.")
        elif not create:
            answer["reason"] = _("Not created: schedules are created only when asked (create_schedules).")
        elif created is not None:
            body = {
                "name": _("%(workflow)s (DolphinScheduler)") % {"workflow": schedule.workflow},
                "cron": schedule.cron,
                "timezone": schedule.timezone,
                "enabled": schedule.enabled,
                "checks": [created[c].pk for c in codes],
            }
            checked = ScheduleSerializer(data=body, context={"request": request})
            if checked.is_valid():
                answer["schedule_id"], answer["created"] = checked.save().pk, True
            else:
                answer["reason"] = " ".join(f"{k}: {' '.join(map(str, v))}" for k, v in checked.errors.items())
    return answers


def _schedule_problem(schedule: ds.Schedule) -> str | None:
    """Why the cron or timezone cannot be a schedule here, as the schedule form would say."""
    try:
        cron.parse(schedule.cron or "")
        cron.zone(schedule.timezone)
    except cron.CronInvalid as exc:
        return str(exc)
    return None
