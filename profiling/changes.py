"""What changed between two profiles of the same table (and filter): columns added, removed or
retyped, the row count's change, and per column the figures that moved beyond a threshold.

Pure Python over two profile documents. The thresholds are deliberately coarse: this is a list for
a person to read ("amount's null share went from 1% to 12%"), not a check; checks judge precisely.
"""

from __future__ import annotations

from typing import Any

# A null share moving by more than this many points (0.05 = 5 percentage points).
NULL_SHARE_POINTS = 0.05
# Distinct count, min, max and mean moving by more than this share of the larger magnitude.
RELATIVE = 0.10
THRESHOLDS = {"null_share_points": NULL_SHARE_POINTS, "relative": RELATIVE}


def _relative_move(before: Any, after: Any) -> float | None:
    if not isinstance(before, int | float) or not isinstance(after, int | float):
        return None
    if isinstance(before, bool) or isinstance(after, bool):
        return None
    scale = max(abs(before), abs(after))
    return 0.0 if scale == 0 else abs(after - before) / scale


def changes(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """{row_count, columns_added, columns_removed, columns_retyped, moves, thresholds}; with no
    `before`, only the thresholds and empty lists (nothing to compare with)."""
    answer: dict[str, Any] = {
        "row_count": None,
        "columns_added": [],
        "columns_removed": [],
        "columns_retyped": [],
        "moves": [],
        "thresholds": THRESHOLDS,
    }
    if not before:
        return answer
    rows_before, rows_after = before.get("row_count"), after.get("row_count")
    if isinstance(rows_before, int) and isinstance(rows_after, int):
        answer["row_count"] = {
            "before": rows_before,
            "after": rows_after,
            "change": rows_after - rows_before,
            "relative": None if rows_before == 0 else (rows_after - rows_before) / rows_before,
        }
    old = {c["name"]: c for c in before.get("columns") or []}
    new = {c["name"]: c for c in after.get("columns") or []}
    answer["columns_added"] = [{"name": n, "type": c.get("type")} for n, c in new.items() if n not in old]
    answer["columns_removed"] = [{"name": n, "type": c.get("type")} for n, c in old.items() if n not in new]
    for name, column in new.items():
        if name not in old:
            continue
        previous = old[name]
        if previous.get("type") != column.get("type"):
            answer["columns_retyped"].append(
                {"name": name, "before": previous.get("type"), "after": column.get("type")}
            )
        if "error" in previous or "error" in column:
            continue
        answer["moves"] += _moves(name, previous, column)
    return answer


def _moves(name: str, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    moves = []
    share_before, share_after = before.get("null_share"), after.get("null_share")
    if isinstance(share_before, int | float) and isinstance(share_after, int | float):
        if abs(share_after - share_before) > NULL_SHARE_POINTS:
            moves.append(_move(name, "null_share", share_before, share_after))
    for figure in ("distinct", "min", "max", "mean"):
        old, new = before.get(figure), after.get(figure)
        if old is None or new is None or old == new:
            continue
        moved = _relative_move(old, new)
        if moved is None:  # times (ISO text): any move of min or max is worth a line
            if figure in ("min", "max") and isinstance(old, str) and isinstance(new, str):
                moves.append(_move(name, figure, old, new))
            continue
        if moved > RELATIVE:
            moves.append(_move(name, figure, old, new))
    return moves


def _move(column: str, figure: str, before: Any, after: Any) -> dict[str, Any]:
    change = after - before if isinstance(before, int | float) and isinstance(after, int | float) else None
    return {"column": column, "figure": figure, "before": before, "after": after, "change": change}
