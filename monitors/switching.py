"""Switching monitors on and off: the checks and the schedule a monitor is made of.

Each kind is an ordinary check on a built-in template, validated like any check (rules/params.py,
against the live catalog), so it runs, is recorded, alerts and feeds the gate as any check does:

- volume: `table_count_check` (rows per business date with a filter on the time column), compared
  with the monitor's `volume_comparison` (default: the dynamic range of the last 7 normal runs);
- freshness: `freshness_check` (the newest value of the time column, as an age) or, for a file
  dataset without a time column, `file_freshness_check` (its files' modification time); passes
  while the age is at most `freshness_max_age`;
- schema: `schema_change_check` (columns added, removed or retyped since the last seen schema,
  read from the live catalog by the platform); passes with 0 changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from sqlglot import exp

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from rules.models import Check, RuleTemplate
from rules.params import ParamsInvalid, validate_params
from rules.range_bounds import DATE, TIMESTAMP, column_kind
from watching.models import Schedule

from .models import FRESHNESS, SCHEMA, VOLUME, Monitor, MonitorCheck

# A whole datasource is switched on table by table; past this many tables, name the tables.
MAX_TABLES = 200


class MonitorInvalid(Exception):
    """{field: [messages]}: the request's fields that do not fit the datasource's live catalog."""

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


@dataclass
class Plan:
    """What switching a monitor on makes: (kind, table, template key, params) per check, and the
    kinds left out for a table, with why (a whole datasource's table without the time column)."""

    checks: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def plan_checks(datasource: Datasource, settings: dict[str, Any]) -> Plan:
    """The checks for `settings` (the monitor's validated fields) on every table they cover,
    their columns read from the live catalog. MonitorInvalid names the field that does not fit."""
    connector = connector_for(datasource)
    table = settings.get("table") or ""
    tables = connector.tables()
    if table and table not in tables:
        raise MonitorInvalid(
            {
                "table": [
                    _("Table %(table)s does not exist in datasource %(name)s.")
                    % {"table": repr(table), "name": repr(datasource.name)}
                ]
            }
        )
    covered = [table] if table else tables
    if not covered:
        raise MonitorInvalid(
            {"datasource": [_("Datasource %(name)s has no table to monitor.") % {"name": repr(datasource.name)}]}
        )
    if len(covered) > MAX_TABLES:
        raise MonitorInvalid(
            {
                "table": [
                    f"Datasource {datasource.name!r} has {len(covered)} tables; monitor at most {MAX_TABLES} at once."
                ]
            }
        )
    time_column = settings.get("time_column") or ""
    plan, found_time_column = Plan(), False
    for name in covered:
        time_kind = None
        if time_column:
            try:
                types = {c.name: c.type for c in connector.columns(name)}
            except ConnectorError as exc:
                if table:
                    raise
                # One dataset of a whole datasource that cannot be read now: its time column is unknown.
                plan.skipped.append({"table": name, "kind": "time_column", "reason": f"columns unreadable: {exc}"})
                types = {}
            if time_column in types:
                found_time_column = True
                time_kind = column_kind(types[time_column])
                if time_kind not in (DATE, TIMESTAMP):
                    problem = f"Column {time_column!r} of {name!r} holds {types[time_column]} values, not dates or timestamps."
                    if table:
                        raise MonitorInvalid({"time_column": [problem]})
                    plan.skipped.append({"table": name, "kind": "time_column", "reason": problem})
            elif table:
                raise MonitorInvalid(
                    {
                        "time_column": [
                            _("Table %(name)s has no column %(time_column)s.")
                            % {"name": repr(name), "time_column": repr(time_column)}
                        ]
                    }
                )
        _plan_table(plan, datasource, settings, name, time_column if time_kind else "")
    if time_column and not found_time_column:
        raise MonitorInvalid(
            {
                "time_column": [
                    _("No table of datasource %(name)s has a column %(time_column)s.")
                    % {"name": repr(datasource.name), "time_column": repr(time_column)}
                ]
            }
        )
    return plan


def _plan_table(plan: Plan, datasource: Datasource, settings: dict[str, Any], table: str, time_column: str) -> None:
    src = {"src_datasource_id": datasource.pk, "src_table": table}
    verdict = {
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": settings["failure_strategy"],
    }
    kinds = settings["kinds"]
    if VOLUME in kinds:
        params = {**src, **verdict, "comparison_type": settings["volume_comparison"]}
        if settings["volume_by_date"]:
            if time_column:
                params["src_filter"] = business_date_filter(time_column)
            else:
                plan.skipped.append(
                    {
                        "table": table,
                        "kind": VOLUME,
                        "reason": f"no time column {settings['time_column']!r}: counts every row",
                    }
                )
        plan.checks.append((VOLUME, table, "table_count_check", params))
    if FRESHNESS in kinds:
        age = {**verdict, "comparison_type": "fix_value", "comparison_value": settings["freshness_max_age"]}
        age["age_unit"] = settings["freshness_unit"]
        if time_column:
            plan.checks.append((FRESHNESS, table, "freshness_check", {**src, "src_field": time_column, **age}))
        elif datasource.type == Datasource.Type.FILE:
            plan.checks.append((FRESHNESS, table, "file_freshness_check", {**src, **age}))
        elif settings.get("table"):
            raise MonitorInvalid(
                {
                    "time_column": [
                        "Freshness of a database table needs its time column (a date or timestamp column); "
                        "file datasets can use their files' modification time instead."
                    ]
                }
            )
        else:
            plan.skipped.append({"table": table, "kind": FRESHNESS, "reason": "no time column"})
    if SCHEMA in kinds:
        plan.checks.append(
            (
                SCHEMA,
                table,
                "schema_change_check",
                {**src, **verdict, "comparison_type": "fix_value", "comparison_value": 0},
            )
        )


def business_date_filter(column: str) -> str:
    """`CAST(`column` AS DATE) = CAST('${biz_date}' AS DATE)` in the filters' stored form (Spark
    SQL): the column quoted as an identifier by SQLGlot, never pasted; the run resolves ${biz_date}
    (a validated date), and the check's param validation parses the whole filter."""
    quoted = exp.column(column, quoted=True).sql(dialect="spark")
    return f"CAST({quoted} AS DATE) = CAST('${{biz_date}}' AS DATE)"


def switch_on(datasource: Datasource, settings: dict[str, Any], user) -> tuple[Monitor, list[dict[str, str]]]:
    """Create the monitor, its checks (each validated as any check is) and its schedule, all or
    nothing. Raises MonitorInvalid; ConnectorError when the datasource does not answer."""
    plan = plan_checks(datasource, settings)
    templates = {t.key: t for t in RuleTemplate.objects.filter(key__in={c[2] for c in plan.checks})}
    cleaned = []
    for kind, table, template, params in plan.checks:
        try:
            cleaned.append((kind, table, templates[template], validate_params(templates[template], params, user)))
        except ParamsInvalid as exc:
            raise MonitorInvalid({_field_of(kind, name): messages for name, messages in exc.fields.items()}) from None
    with transaction.atomic():
        monitor = Monitor.objects.create(
            datasource=datasource,
            owner=user,
            **{k: settings[k] for k in ("table", "kinds", "time_column", "volume_by_date", "volume_comparison")},
            **{k: settings[k] for k in ("freshness_max_age", "freshness_unit", "failure_strategy")},
        )
        checks = []
        for kind, table, template, params in cleaned:
            check = Check.objects.create(
                name=_free_name(datasource, table, kind, monitor), template=template, params=params, owner=user
            )
            check.record_version(user)
            MonitorCheck.objects.create(monitor=monitor, rule_check=check, kind=kind, table=table)
            checks.append(check)
        schedule = Schedule.objects.create(
            name=f"Monitors of {datasource.name}/{monitor.table or '*'} (monitor {monitor.pk})",
            cron=settings["cron"],
            timezone=settings["timezone"],
            owner=user,
            # Yesterday's rows are complete: rows per business date count the day before the slot.
            biz_date_offset_days=-1,
        )
        schedule.checks.set(checks)
        monitor.schedule = schedule
        monitor.save(update_fields=["schedule"])
    return monitor, plan.skipped


def _field_of(kind: str, param: str) -> str:
    """A check param's problem as the monitor's field it comes from."""
    return {
        "src_table": "table",
        "src_field": "time_column",
        "src_filter": "time_column",
        "src_datasource_id": "datasource",
    }.get(param, kind)


def _free_name(datasource: Datasource, table: str, kind: str, monitor: Monitor) -> str:
    name = f"{kind.capitalize()} monitor: {datasource.name}/{table}"[:180]
    if Check.objects.alive().filter(name=name).exists():
        name = f"{name} (monitor {monitor.pk})"
    return name


def ensure_schedule(monitor: Monitor, cron_text: str, zone: str, user) -> Schedule:
    """The monitor's schedule, made again (of its live checks) when someone deleted it through
    the schedules API."""
    if monitor.schedule is not None:
        return monitor.schedule
    schedule = Schedule.objects.create(
        name=f"Monitors of {monitor.datasource.name}/{monitor.table or '*'} (monitor {monitor.pk})",
        cron=cron_text,
        timezone=zone,
        owner=user,
        biz_date_offset_days=-1,
    )
    schedule.checks.set(Check.objects.alive().filter(pk__in=monitor.monitor_checks.values("rule_check_id")))
    monitor.schedule = schedule
    monitor.save(update_fields=["schedule"])
    return schedule


def set_enabled(monitor: Monitor, enabled: bool) -> None:
    """Switch the monitor's schedule on or off (resuming does not catch up missed slots)."""
    schedule = monitor.schedule
    if schedule is not None and schedule.enabled != enabled:
        schedule.enabled = enabled
        schedule.save()


def switch_off_for_good(monitor: Monitor) -> None:
    """DELETE: the monitor and its checks are hidden (their results stay), its schedule goes."""
    with transaction.atomic():
        for link in monitor.monitor_checks.select_related("rule_check"):
            if link.rule_check.deleted_at is None:
                link.rule_check.soft_delete()
        if monitor.schedule is not None:
            monitor.schedule.delete()
            monitor.schedule = None
        monitor.deleted_at = timezone.now()
        monitor.save(update_fields=["deleted_at", "schedule"])


__all__ = ["ConnectorError", "MonitorInvalid", "set_enabled", "switch_off_for_good", "switch_on"]
