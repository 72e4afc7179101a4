"""What changed between two profile documents: pure Python, hand-made documents."""

from __future__ import annotations

from profiling.changes import changes


def _doc(rows: int, **columns) -> dict:
    return {"row_count": rows, "columns": [{"name": name, **figures} for name, figures in columns.items()]}


def test_columns_added_removed_and_retyped_are_named():
    before = _doc(10, a={"type": "INTEGER"}, b={"type": "VARCHAR"})
    after = _doc(10, a={"type": "BIGINT"}, c={"type": "DATE"})

    found = changes(before, after)

    assert found["columns_added"] == [{"name": "c", "type": "DATE"}]
    assert found["columns_removed"] == [{"name": "b", "type": "VARCHAR"}]
    assert found["columns_retyped"] == [{"name": "a", "before": "INTEGER", "after": "BIGINT"}]
    assert found["row_count"] == {"before": 10, "after": 10, "change": 0, "relative": 0.0}


def test_only_moves_beyond_the_thresholds_are_listed():
    before = _doc(
        100,
        x={"type": "DOUBLE", "null_share": 0.01, "distinct": 100, "min": 0.0, "max": 10.0, "mean": 5.0},
        t={"type": "DATE", "null_share": 0.0, "min": "2026-01-01", "max": "2026-01-31"},
    )
    after = _doc(
        120,
        # null share +4 points (under 5), distinct +30% (over 10%), min unchanged, max +5% (under), mean -20% (over)
        x={"type": "DOUBLE", "null_share": 0.05, "distinct": 130, "min": 0.0, "max": 10.5, "mean": 4.0},
        t={"type": "DATE", "null_share": 0.10, "min": "2026-01-01", "max": "2026-02-28"},
    )

    moves = {(m["column"], m["figure"]): m for m in changes(before, after)["moves"]}

    assert set(moves) == {("x", "distinct"), ("x", "mean"), ("t", "null_share"), ("t", "max")}
    assert moves[("x", "mean")] == {"column": "x", "figure": "mean", "before": 5.0, "after": 4.0, "change": -1.0}
    assert moves[("t", "max")]["change"] is None and moves[("t", "max")]["after"] == "2026-02-28"


def test_a_first_profile_or_a_column_in_error_has_nothing_to_compare():
    after = _doc(5, x={"type": "INTEGER", "error": "Column x could not be profiled: ..."})

    assert changes(None, after)["moves"] == [] and changes(None, after)["row_count"] is None
    before = _doc(5, x={"type": "INTEGER", "null_share": 0.0})
    assert changes(before, after)["moves"] == []
