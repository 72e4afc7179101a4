"""How a suggested check would have fared, judged from profile documents alone (pure Python).

A profile holds figures (counts, min/max, lengths, top values), not rows, so a verdict is given
only where the figures decide it, and says what it rests on:

- `fail` when the figures prove at least one violating row (a min below the bound, a NULL, a
  length over the limit): a row seen in a sample exists in the table too;
- `pass` when the profile read every row and the figures prove no violation (or, for a check with
  a tolerance, the violating share is within it);
- `not_decidable` otherwise, with the reason: the column did not exist, a figure is missing or
  approximate, or a sample saw no violation (the rows it did not read may hold one).

Two questions are answered:

- `earlier`: the suggested check itself, on each earlier profile of the table (newest first);
- `holdout`: out of time, how this kind of suggestion has held up for this column: for each earlier
  profile, the suggestion it would have made, judged on the profile that followed it. The profile
  has no held-out half of the rows (PROFILE_CONTRACT), so this is the honest hold-out it allows.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from .suggesting import column_of, column_suggestions, empty_or_null, is_full, non_null, plain_number, sample_of

PASS, FAIL, UNDECIDED = "pass", "fail", "not_decidable"


class Count:
    """Violations the figures show among the rows read: `at_least` rows, exactly so when `exact`."""

    def __init__(self, at_least: int, exact: bool):
        self.at_least, self.exact = at_least, exact


class Unknown(Exception):
    """The figures do not say; the message says why."""


def judge(kind: str, params: dict, column_name: str, document: dict) -> dict[str, Any]:
    """The verdict of one check (its kind and params) on one profile document."""
    column = column_of(document, column_name)
    basis = "full" if is_full(document) else "sample"
    entry = {"profiled_at": document.get("profiled_at"), "basis": basis, "rows": (column or {}).get("rows")}
    if column is None:
        return {
            **entry,
            "verdict": UNDECIDED,
            "reason": _("The column %(column)s was not in this profile.") % {"column": repr(column_name)},
        }
    try:
        count = violations(kind, params, column)
    except Unknown as why:
        return {**entry, "verdict": UNDECIDED, "reason": str(why)}
    return {**entry, **_verdict(count, params, column, document)}


def _verdict(count: Count, params: dict, column: dict, document: dict) -> dict[str, str]:
    rows = column.get("rows") or 0
    read = sample_of(document)
    if params.get("comparison_type") == "fix_value":  # no violation allowed
        if count.at_least > 0:
            reason = _("At least %(count)s violating row(s) among the rows read.") % {"count": f"{count.at_least:,}"}
            return {"verdict": FAIL, "reason": reason}
        if is_full(document):
            return {"verdict": PASS, "reason": _("No violation among all rows.")}
        return {
            "verdict": UNDECIDED,
            "reason": _(
                "No violation in a sample of %(rows)s of %(table_rows)s rows; the rows it did not read may hold one."
            )
            % {"rows": f"{read['rows']:,}", "table_rows": f"{read['table_rows']:,}"},
        }
    limit = params["threshold"]
    share = count.at_least / rows * 100 if rows else 0
    if share > limit:
        reason = _("At least %(share)s %% of the rows violate it; it allows %(limit)s %%.") % {
            "share": f"{share:.4g}",
            "limit": f"{limit:g}",
        }
        return {"verdict": FAIL, "reason": reason}
    if not count.exact:
        return {
            "verdict": UNDECIDED,
            "reason": _("The figures give only a lower bound of the violations, within the tolerance."),
        }
    if is_full(document):
        reason = _("%(share)s %% of all rows violate it; it allows %(limit)s %%.")
    else:
        reason = _("%(share)s %% of a sample (an estimate of the table's share) violate it; it allows %(limit)s %%.")
    return {"verdict": PASS, "reason": reason % {"share": f"{share:.4g}", "limit": f"{limit:g}"}}


def violations(kind: str, params: dict, column: dict) -> Count:
    """The violating rows the column's figures show, for each kind of suggestion."""
    if kind in ("not_null", "null_share"):
        counted = empty_or_null(column)
        if counted is None:
            raise Unknown(_("The profile does not count the empty strings of this column."))
        return Count(counted, True)
    if kind == "unique":
        if not column.get("distinct_exact") or column.get("distinct") is None:
            raise Unknown(_("The distinct count is approximate."))
        return Count(1 if column["distinct"] < non_null(column) else 0, column["distinct"] >= non_null(column))
    if kind == "enumeration":
        return _outside_list(params["enum_list"], column)
    if kind in ("non_negative", "range"):
        return _outside_range(params.get("min_value"), params.get("max_value"), column)
    if kind in ("email", "numeric_text", "date_text"):
        shape = {"email": "email", "numeric_text": "numeric", "date_text": "date"}[kind]
        matching = (column.get("looks") or {}).get(shape)
        if matching is None:
            raise Unknown(
                _("The profile does not count values shaped like %(shape)s for this column.") % {"shape": shape}
            )
        return Count(non_null(column) - matching, True)
    if kind in ("max_length", "min_length", "exact_length"):
        return _lengths(kind, params["field_length"], column)
    raise Unknown(_("No backtest for %(kind)s.") % {"kind": repr(kind)})


def _same(value: Any) -> str:
    """Values compared as the engine lists them: numbers by value (1 and 1.0 alike), texts as texts."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(plain_number(value))
    return str(value)


def _outside_list(allowed: list, column: dict) -> Count:
    nulls = column.get("nulls") or 0
    listed = {_same(v) for v in allowed}
    top = [t for t in column.get("top_values") or [] if t.get("value") is not None]
    outside = sum(t.get("count") or 0 for t in top if _same(t["value"]) not in listed)
    if top and sum(t.get("count") or 0 for t in top) == non_null(column):
        return Count(nulls + outside, True)
    if column.get("distinct_exact") and column.get("distinct") is not None:
        # Each distinct value beyond the list occurs at least once.
        extra = max(column["distinct"] - len(listed), 0)
        return Count(nulls + max(outside, extra), False)
    return (
        Count(nulls + outside, False)
        if nulls + outside
        else _unknown(_("The values are not all listed in the profile."))
    )


def _outside_range(low: Any, high: Any, column: dict) -> Count:
    if non_null(column) == 0:
        return Count(0, True)
    smallest, largest = column.get("min"), column.get("max")
    if not isinstance(smallest, (int, float)) or not isinstance(largest, (int, float)):
        raise Unknown(_("The profile has no numeric min and max for this column."))
    below = low is not None and smallest < low
    above = high is not None and largest > high
    if below or above:
        # The min and max prove one row each; the histogram's bins wholly outside prove their counts.
        return Count(max(int(below) + int(above), histogram_outside(low, high, column.get("histogram"))), False)
    return Count(0, True)


def histogram_outside(low: Any, high: Any, histogram: dict | None) -> int:
    """Rows in bins lying wholly below `low` or above `high`: each of them is outside the range.
    A bin [a, b) holds values ≥ a and < b (the last one also b); one straddling a bound proves nothing."""
    if not histogram:
        return 0
    edges, counts = histogram.get("edges") or [], histogram.get("counts") or []
    if len(edges) != len(counts) + 1:
        return 0
    outside = 0
    for index, count in enumerate(counts):
        start, end = edges[index], edges[index + 1]
        if (low is not None and end < low) or (high is not None and start > high):
            outside += count or 0
    return outside


def _lengths(kind: str, limit: int, column: dict) -> Count:
    length = column.get("length") or {}
    shortest, longest = length.get("min"), length.get("max")
    if non_null(column) == 0:
        return Count(0, True)
    if not isinstance(shortest, int) or not isinstance(longest, int):
        raise Unknown(_("The profile has no lengths for this column."))
    if kind == "max_length":
        bad = longest > limit
    elif kind == "min_length":
        bad = shortest < limit
    else:
        bad = not (shortest == longest == limit)
    return Count(1, False) if bad else Count(0, True)


def _unknown(message: str):
    raise Unknown(message)


def backtest(suggestion: dict, document: dict, earlier: list[dict]) -> dict[str, Any]:
    kind, params, column = suggestion["kind"], suggestion["params"], suggestion["column"]
    on_earlier = [judge(kind, params, column, older) for older in earlier]
    return {
        "this_profile": judge(kind, params, column, document),
        "earlier": on_earlier,
        "summary": _summary(on_earlier),
        "holdout": holdout(kind, column, [document, *earlier]),
    }


def _summary(entries: list[dict]) -> dict[str, int]:
    counted = {PASS: 0, FAIL: 0, UNDECIDED: 0}
    for entry in entries:
        counted[entry["verdict"]] += 1
    return counted


def holdout(kind: str, column_name: str, documents: list[dict]) -> dict[str, Any]:
    """For each profile with a newer one after it (documents newest first): the suggestion of this
    kind that profile made for the column, judged on the next profile."""
    pairs = []
    for newer, older in zip(documents, documents[1:], strict=False):  # pairs: one fewer than documents
        column = column_of(older, column_name)
        made = [s for s in column_suggestions(older, column) if s["kind"] == kind] if column else []
        if not made:
            continue
        verdict = judge(kind, made[0]["params"], column_name, newer)
        pairs.append({"suggested_from": older.get("profiled_at"), "params": made[0]["params"], "judged_on": verdict})
    return {
        "method": _("suggested from each earlier profile, judged on the profile after it"),
        "pairs": pairs,
        "summary": _summary([p["judged_on"] for p in pairs]),
    }
