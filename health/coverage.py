"""Coverage: how much of the catalog the checks look at.

- tables: the catalog's tables with at least one check ÷ the tables in the catalog;
- columns: the distinct catalog columns named by a check (its column inputs and column pairs on the
  source table) ÷ the columns of the catalog's tables whose columns are known.

Only datasources whose catalog could be read count; the others are listed with the reason."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from .catalog import current_snapshots
from .scope import Scope, ScopedCheck

UNCHECKED_LISTED = 20
DEFINITION = gettext_noop(
    "tables: catalog tables with at least one check ÷ tables in the catalog; columns: distinct catalog "
    "columns named by a check ÷ columns of the catalog tables whose columns are known"
)


def _share(part: int, whole: int) -> float | None:
    return round(part * 100 / whole, 1) if whole else None


def coverage_of(scope: Scope, checks: list[ScopedCheck]) -> dict:
    snapshots = current_snapshots(list(scope.datasources))
    checked_columns: dict[tuple[int, str], set[str]] = {}
    for check in checks:
        checked_columns.setdefault((check.datasource_id, check.table), set()).update(check.columns)
    tables = tables_checked = columns = columns_checked = 0
    catalogs, unchecked = [], []
    for datasource_id, name in scope.datasources.items():
        snapshot = snapshots.get(datasource_id)
        known = snapshot is not None and snapshot.known
        entry = {
            "datasource": datasource_id,
            "datasource_name": name,
            "known": known,
            "taken_at": snapshot.taken_at if snapshot else None,
            "message": snapshot.message if snapshot else "",
            "tables": 0,
            "tables_checked": 0,
        }
        catalogs.append(entry)
        if not known:
            continue
        for table, column_names in snapshot.tables.items():
            if scope.table and table != scope.table:
                continue
            tables += 1
            entry["tables"] += 1
            named = checked_columns.get((datasource_id, table))
            tables_checked += named is not None
            entry["tables_checked"] += named is not None
            if named is None:
                unchecked.append({"datasource": datasource_id, "datasource_name": name, "table": table})
            if column_names is not None:
                columns += len(column_names)
                columns_checked += len(set(column_names) & (named or set()))
    return {
        "definition": gettext(DEFINITION),
        "tables": tables,
        "tables_checked": tables_checked,
        "table_share": _share(tables_checked, tables),
        "columns": columns,
        "columns_checked": columns_checked,
        "column_share": _share(columns_checked, columns),
        "catalogs": catalogs,
        "unchecked_tables": unchecked[:UNCHECKED_LISTED],
    }
