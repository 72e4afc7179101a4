"""The tables of a scope ranked worst first: lowest score first, then most failing checks, then
most errored; tables with no decided check (no score) after every scored one."""

from __future__ import annotations

from .scope import ScopedCheck
from .scores import Tally


def ranked_tables(checks: list[ScopedCheck], statuses: dict[int, str], names: dict[int, str]) -> list[dict]:
    tallies: dict[tuple[int, str], Tally] = {}
    for check in checks:
        tallies.setdefault((check.datasource_id, check.table), Tally()).add(statuses.get(check.id))
    rows = [
        {"datasource": ds, "datasource_name": names.get(ds, ""), "table": table, **tally.as_dict()}
        for (ds, table), tally in tallies.items()
    ]
    rows.sort(
        key=lambda r: (
            r["score"] is None,
            r["score"] if r["score"] is not None else 0,
            -r["failed"],
            -r["errors"],
            r["datasource_name"],
            r["table"],
        )
    )
    return rows


def datasource_rows(checks: list[ScopedCheck], statuses: dict[int, str], names: dict[int, str]) -> list[dict]:
    """Each datasource in scope with the tally of its checks, by name (those without checks too)."""
    tallies = {pk: Tally() for pk in names}
    for check in checks:
        tallies[check.datasource_id].add(statuses.get(check.id))
    return [
        {"datasource": pk, "datasource_name": names[pk], **tallies[pk].as_dict()}
        for pk in sorted(names, key=lambda pk: names[pk].lower())
    ]
