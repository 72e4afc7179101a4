"""Which checks a health answer speaks for: the checks the user may see (`Check.objects.visible_to`)
whose source table lies in the scope — the whole platform, one datasource, or one table of it.

A check belongs to the table it reads from (`src_datasource_id`, `src_table`), as the table page
binds it (gates/registering.py); a two-table check counts for its source table only. Deleted checks
are never in scope (visible_to leaves them out), nor checks of deleted datasources."""

from __future__ import annotations

from dataclasses import dataclass

from datasources.models import Datasource
from rules.models import Check, InputEntry, effective_dimension


@dataclass(frozen=True)
class ScopedCheck:
    id: int
    name: str
    datasource_id: int | None
    table: str
    dimension: str
    columns: frozenset[str]  # the source table's columns the check names


@dataclass(frozen=True)
class Scope:
    kind: str  # platform, datasource or table
    datasources: dict[int, str]  # the datasources in scope the user may use: id → name
    table: str = ""

    @property
    def datasource_id(self) -> int | None:
        return next(iter(self.datasources)) if self.kind != "platform" else None


def platform(user) -> Scope:
    return Scope("platform", dict(Datasource.objects.visible_to(user).values_list("pk", "name")))


def of_datasource(user, datasource_id: int, table: str = "") -> Scope | None:
    """None when the user may not use that datasource (or there is none): the views answer 404."""
    found = Datasource.objects.visible_to(user).filter(pk=datasource_id).values_list("pk", "name").first()
    if found is None:
        return None
    return Scope("table" if table else "datasource", {found[0]: found[1]}, table)


def checks_in(user, scope: Scope) -> list[ScopedCheck]:
    checks = Check.objects.visible_to(user)
    if scope.kind == "platform":
        checks = checks.filter(params__src_datasource_id__in=list(scope.datasources))
    else:
        checks = checks.filter(params__src_datasource_id=scope.datasource_id)
        if scope.table:
            checks = checks.filter(params__src_table=scope.table)
    column_fields = _source_column_fields()
    rows = checks.order_by("name").values_list("pk", "name", "params", "dimension", "template__dimension")
    return [
        ScopedCheck(
            id=pk,
            name=name,
            datasource_id=params.get("src_datasource_id"),
            table=str(params.get("src_table") or ""),
            dimension=effective_dimension(dimension, template_dimension),
            columns=_columns_named(params, column_fields),
        )
        for pk, name, params, dimension, template_dimension in rows
        if isinstance(params, dict) and params.get("src_datasource_id") in scope.datasources
    ]


def _source_column_fields() -> tuple[set[str], set[str]]:
    """The params naming a column of the source table, and the column-pair params (whose pairs'
    `src_field` does): from the input entries, so a new column input counts without code."""
    entries = InputEntry.objects.filter(
        value_type__in=(InputEntry.ValueType.COLUMN, InputEntry.ValueType.MAPPING)
    ).values_list("field", "value_type", "constraints")
    columns = {
        field
        for field, kind, constraints in entries
        if kind == InputEntry.ValueType.COLUMN and (constraints or {}).get("table_field", "src_table") == "src_table"
    }
    pairs = {field for field, kind, _ in entries if kind == InputEntry.ValueType.MAPPING}
    return columns, pairs


def _columns_named(params: dict, fields: tuple[set[str], set[str]]) -> frozenset[str]:
    column_fields, pair_fields = fields
    named = {params[f] for f in column_fields if isinstance(params.get(f), str) and params[f]}
    for field in pair_fields:
        for pair in params.get(field) or []:
            if isinstance(pair, dict) and isinstance(pair.get("src_field"), str) and pair["src_field"]:
                named.add(pair["src_field"])
    return frozenset(named)
