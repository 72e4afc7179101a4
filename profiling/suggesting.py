"""Suggested checks from a profile document (PROFILE_CONTRACT): pure Python, no Django.

`suggest(document, earlier=(), datasource_id=…, table=…)` → a list of suggestion dicts, each the
exact template and params of the check POST /api/v1/checks/ would create, a sentence of why, the
profile figures behind it, and a backtest on the table's earlier profiles (profiling/backtest.py).

What is suggested when (README, "Suggested checks", says the same for users):

- not_null (null_check, count = 0) when a full profile saw no NULL (and, for strings, no '':
  the template counts '' as empty); null_share (null_check, share of the rows ≤ a bound) when it
  saw some, or when the profile is a sample (no NULL in a sample is no proof of none in the table).
- unique (uniqueness_check) when distinct = non-NULL rows, distinct is exact and the profile read
  every row: a sample hides duplicates (both rows of a pair are in a 10 % sample 1 % of the time).
- enumeration (enumeration_check) when top_values cover every non-NULL row, with at least two
  rows per value on average (five distinct values in five rows is a key, not a code list).
- non_negative (value_range_check, min 0) when a number column's min ≥ 0; range (value_range_check)
  with min − m and max + m, m = 10 % of the observed range (max − min), rounded outward to a round
  number, the lower bound kept at 0 when no value was negative. Never the observed min/max. No range
  for whole numbers that are all different: an id or a counter grows.
- email / numeric_text / date_text (regexp_check) when `looks.<shape>` counts every non-NULL value.
- max_length / min_length (field_length_check) with a margin of max(1, 10 % of the length range)
  characters; exact_length when every value has the same length.

Tolerance: a suggestion from a full profile allows no violation (count = 0, fixed). From a sample,
or for NULLs that exist, it allows a share of the rows: the upper end of the 99 % Wilson score
interval of the observed share (violations / sample rows), rounded up, as a percentage of the
table's rows (check type actual ÷ expected × 100 against src_table_total_rows).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

# Two-sided 99 % normal quantile: the Wilson interval's upper end is a 99.5 % one-sided bound.
Z_99 = 2.5758293035489
RANGE_MARGIN_SHARE = Decimal("0.10")  # of the observed range max − min
LENGTH_MARGIN_SHARE = 0.10  # of the observed length range, at least one character
ENUM_MIN_ROWS_PER_VALUE = 2

# The shapes a regexp suggestion checks: the very patterns the profiler counts `looks.<shape>` with
# (dq_engine/profiling/queries.py), so a column whose every value has the shape passes the check
# suggested from it. ASCII classes, anchored: Java, RE2, PostgreSQL, PCRE and Python read them alike.
SHAPES = {
    "numeric": r"^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$",
    "date": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?$",
    "email": r"^[^@ ]+@[^@ ]+[.][^@ ]+$",
}
SHAPE_KINDS = {"email": "email", "numeric": "numeric_text", "date": "date_text"}
SHAPE_WORDS = {
    "email": gettext_noop("an e-mail address"),
    "numeric": gettext_noop("a number"),
    "date": gettext_noop("an ISO date (YYYY-MM-DD, optional time)"),
}

ZERO = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}
_INTEGER_TYPE = re.compile(r"^\s*(u?int\d*|tinyint|smallint|mediumint|bigint|integer|int|long|short|byte)\b", re.I)

LABELS = {
    "not_null": "not null",
    "null_share": "few nulls",
    "unique": "unique",
    "enumeration": "allowed values",
    "non_negative": "not negative",
    "range": "in range",
    "email": "e-mail addresses",
    "numeric_text": "numeric text",
    "date_text": "date text",
    "max_length": "not too long",
    "min_length": "not too short",
    "exact_length": "fixed length",
}


# --- the document ------------------------------------------------------------------------------
def whole_table(document: dict) -> bool:
    """Only profiles of the whole table (no filter) suggest checks of the whole table."""
    return not ((document.get("source") or {}).get("filter"))


def sample_of(document: dict) -> dict:
    sample = document.get("sample") or {}
    rows = document.get("row_count") or 0
    return {
        "method": sample.get("method") or "full",
        "rows": rows if sample.get("rows") is None else sample["rows"],
        "table_rows": rows,
        "fraction": sample.get("fraction"),
    }


def is_full(document: dict) -> bool:
    sample = sample_of(document)
    return sample["method"] == "full" and sample["rows"] == sample["table_rows"]


def column_of(document: dict, name: str) -> dict | None:
    for column in document.get("columns") or []:
        if column.get("name") == name:
            return column
    return None


def non_null(column: dict) -> int:
    return (column.get("rows") or 0) - (column.get("nulls") or 0)


def empty_or_null(column: dict) -> int | None:
    """What null_check counts: NULLs, and '' in a string column (None when a string column's
    empties are unknown)."""
    nulls = column.get("nulls") or 0
    if column.get("kind") != "string":
        return nulls
    empty = column.get("empty")
    return None if empty is None else nulls + empty


# --- numbers -----------------------------------------------------------------------------------
def wilson_upper(violations: int, rows: int, z: float = Z_99) -> float:
    """The upper end of the Wilson score interval of the share violations / rows."""
    if rows <= 0:
        return 1.0
    p = violations / rows
    denominator = 1 + z * z / rows
    centre = p + z * z / (2 * rows)
    spread = z * math.sqrt(p * (1 - p) / rows + z * z / (4 * rows * rows))
    return min(1.0, (centre + spread) / denominator)


def ceil_significant(value: float, digits: int = 2) -> float:
    """`value` rounded up to `digits` significant digits (0.012345 → 0.013): a bound never below
    the figure it bounds."""
    if value <= 0:
        return 0
    exponent = math.floor(math.log10(value)) - digits + 1
    step = Decimal(1).scaleb(exponent)
    rounded = (Decimal(repr(value)) / step).to_integral_value(ROUND_CEILING) * step
    return plain_number(rounded)


def plain_number(value: Decimal | float | int) -> int | float:
    """12 for 12.0, 0.25 for Decimal('0.250'): the form rules/params.py cleans numbers to."""
    number = Decimal(str(value)) if not isinstance(value, Decimal) else value
    if number == number.to_integral_value():
        return int(number)
    return float(number.normalize())


def round_outward(low: Decimal, high: Decimal, margin: Decimal, integer: bool) -> tuple[Decimal, Decimal]:
    """[low, high] rounded outward to a multiple of the power of ten at or below the margin (so
    that a bound is a round number and a small change of the data keeps the same suggestion)."""
    step = Decimal(1).scaleb(math.floor(math.log10(margin))) if margin > 0 else Decimal(1)
    if integer:
        step = max(step, Decimal(1))
    return (low / step).to_integral_value(ROUND_FLOOR) * step, (high / step).to_integral_value(ROUND_CEILING) * step


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def numeric_range(column: dict) -> dict | None:
    """The range suggestion's bounds and how they were widened, or None without a usable min/max."""
    low, high = _decimal(column.get("min")), _decimal(column.get("max"))
    if low is None or high is None or low > high:
        return None
    integer = bool(_INTEGER_TYPE.match(column.get("type") or ""))
    spread = high - low
    if spread > 0:
        # xgettext:no-python-format
        margin, rule = spread * RANGE_MARGIN_SHARE, gettext_noop("10 % of the observed range (max − min)")
    else:
        # xgettext:no-python-format
        one_value = gettext_noop("10 % of the one observed value (at least 1)")
        margin, rule = max(abs(low) * RANGE_MARGIN_SHARE, Decimal(1)), one_value
    if integer:
        margin = max(margin, Decimal(1))
    lower, upper = round_outward(low - margin, high + margin, margin, integer)
    if low >= 0 and lower < 0:
        lower = Decimal(0)  # no value was negative: the bound does not invite negatives
    return {
        "min_value": plain_number(lower),
        "max_value": plain_number(upper),
        "margin": {
            "rule": rule,
            "width": plain_number(margin),
            "observed_min": column["min"],
            "observed_max": column["max"],
        },
    }


# --- suggestions -------------------------------------------------------------------------------
def fingerprint(column: str, kind: str, template: str, params: dict) -> str:
    """What a rejection remembers: the column, the kind and every param that decides the check
    (not the datasource and table, which the rejection is filed under). Changed figures that
    change a bound change the fingerprint, so the new suggestion is offered again."""
    body = {k: v for k, v in params.items() if k not in ("src_datasource_id", "src_table")}
    text = json.dumps(
        {"column": column, "kind": kind, "template": template, "params": body}, sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _normal(value: Any) -> Any:
    """Numbers as rules/params.py cleans them (2.0 → 2), so equal checks hash alike."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, float) and math.isfinite(value):
        return plain_number(value)
    return value


def check_key(template: str, params: dict) -> str:
    """Equal for a suggestion and a check with the same template and params (besides the
    datasource and table, which the caller compares): the suggestion is then already a check."""
    body = {k: _normal(v) for k, v in params.items() if k not in ("src_datasource_id", "src_table") and v is not None}
    return hashlib.sha256(
        json.dumps({"template": template, "params": body}, sort_keys=True, default=str).encode()
    ).hexdigest()


def tolerance(violations: int, document: dict, column: dict) -> tuple[dict, dict]:
    """(verdict params, how the tolerance was chosen): none from a full profile that saw no
    violation, else the Wilson bound of the observed share, as a percentage of the table's rows."""
    rows = column.get("rows") or 0
    if violations == 0 and is_full(document):
        return dict(ZERO), {"rule": "none: a full profile saw no violation", "threshold_percent": None}
    bound = wilson_upper(violations, rows)
    percent = ceil_significant(bound * 100)
    return (
        {
            "check_type": "statistics_comparison_percentage",
            "operator": "le",
            "threshold": percent,
            "failure_strategy": "alert",
            "comparison_type": "src_table_total_rows",
        },
        {
            "rule": "upper end of the 99 % Wilson interval of the observed share, rounded up",
            "observed": violations,
            "of_rows": rows,
            "observed_percent": round(violations / rows * 100, 6) if rows else 0,
            "threshold_percent": percent,
        },
    )


def suggest(
    document: dict,
    earlier: list[dict] | tuple = (),
    datasource_id: int | None = None,
    table: str | None = None,
) -> list[dict]:
    """Every suggestion the profile supports, with its backtest on the earlier documents
    (newest first; those of another filter are left out)."""
    from .backtest import backtest

    if not whole_table(document):
        return []
    table = table or (document.get("source") or {}).get("table")
    earlier = [d for d in earlier if whole_table(d)]
    found = []
    for column in document.get("columns") or []:
        for raw in column_suggestions(document, column):
            found.append(_finish(raw, document, column, earlier, datasource_id, table, backtest))
    return found


def _finish(raw, document, column, earlier, datasource_id, table, backtest) -> dict:
    params = {"src_datasource_id": datasource_id, "src_table": table, "src_field": column["name"], **raw["params"]}
    suggestion = {
        "fingerprint": fingerprint(column["name"], raw["kind"], raw["template"], params),
        "column": column["name"],
        "kind": raw["kind"],
        "template": raw["template"],
        "name": f"{table} {column['name']}: {LABELS[raw['kind']]}",
        "params": params,
        "why": raw["why"],
        "evidence": {
            "statistic": raw["statistic"],
            "rows": column.get("rows"),
            "nulls": column.get("nulls"),
            "distinct": column.get("distinct"),
            "distinct_exact": column.get("distinct_exact"),
            "sample": sample_of(document),
            "profiled_at": document.get("profiled_at"),
            "engine": document.get("engine"),
        },
        "tolerance": raw.get("tolerance"),
        "margin": raw.get("margin"),
    }
    suggestion["backtest"] = backtest(suggestion, document, earlier)
    return suggestion


def column_suggestions(document: dict, column: dict) -> list[dict]:
    """The raw suggestions of one column: kind, template, params besides the source, why, statistic."""
    if not column.get("name") or not (column.get("rows") or 0):
        return []
    found = _nullness(document, column)
    kind = column.get("kind")
    if kind in ("number", "string", "time"):
        found += _unique(document, column)
    if kind in ("number", "string"):
        found += _enumeration(document, column)
    if kind == "number":
        found += _numbers(document, column)
    if kind == "string":
        found += _shapes(document, column) + _lengths(document, column)
    return found


def _sample_words(document: dict) -> str:
    sample = sample_of(document)
    if is_full(document):
        return _("all %(rows)s rows") % {"rows": f"{sample['table_rows']:,}"}
    return _("a sample of %(rows)s of %(table_rows)s rows") % {
        "rows": f"{sample['rows']:,}",
        "table_rows": f"{sample['table_rows']:,}",
    }


def _nullness(document: dict, column: dict) -> list[dict]:
    counted = empty_or_null(column)
    if counted is None:
        return []
    rows = column["rows"]
    what = _("NULL or empty ('')") if column.get("kind") == "string" else "NULL"
    verdict, how = tolerance(counted, document, column)
    if counted == 0 and is_full(document):
        kind, why = (
            "not_null",
            _("No value is %(what)s in %(sample)s.") % {"what": what, "sample": _sample_words(document)},
        )
    else:
        if how["threshold_percent"] >= 100:
            return []
        kind = "null_share"
        why = _(
            "%(counted)s of %(rows)s values are %(what)s (%(observed)s %%) in %(sample)s; "
            "the check allows up to %(allowed)s %%, the 99 %% upper confidence bound of that share."
        ) % {
            "counted": f"{counted:,}",
            "rows": f"{rows:,}",
            "what": what,
            "observed": f"{how['observed_percent']:.3g}",
            "sample": _sample_words(document),
            "allowed": f"{how['threshold_percent']:g}",
        }
    return [
        {
            "kind": kind,
            "template": "null_check",
            "params": verdict,
            "why": why,
            "statistic": {"null_or_empty": counted, "nulls": column.get("nulls"), "empty": column.get("empty")},
            "tolerance": how,
        }
    ]


def _unique(document: dict, column: dict) -> list[dict]:
    count = non_null(column)
    if not (is_full(document) and column.get("distinct_exact") and count >= 2 and column.get("distinct") == count):
        return []
    return [
        {
            "kind": "unique",
            "template": "uniqueness_check",
            "params": dict(ZERO),
            "why": _(
                "Each of the %(count)s non-NULL values is different (%(distinct)s distinct, counted exactly) in %(sample)s."
            )
            % {"count": f"{count:,}", "distinct": f"{column['distinct']:,}", "sample": _sample_words(document)},
            "statistic": {"distinct": column["distinct"], "non_null": count},
        }
    ]


def enumeration_values(column: dict) -> list | None:
    """The allowed values, when top_values cover every non-NULL row and can be listed."""
    top = column.get("top_values")
    if not top:
        return None
    values = [t for t in top if t.get("value") is not None]
    if sum(t.get("count") or 0 for t in values) != non_null(column):
        return None
    listed = [t["value"] for t in values]
    if column.get("kind") == "number":
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer() for v in listed):
            return None  # fractions are not listed: their text forms differ between engines
        listed = [int(v) for v in listed]
    elif not all(isinstance(v, str) and v.strip() for v in listed):
        return None  # '' cannot be listed (rules/params.py), nor a non-text value of a string column
    if len(set(map(str, listed))) != len(listed):
        return None
    return sorted(listed, key=lambda v: (str(type(v)), v))


def _enumeration(document: dict, column: dict) -> list[dict]:
    values = enumeration_values(column)
    count = non_null(column)
    if not values or count < ENUM_MIN_ROWS_PER_VALUE * len(values):
        return []
    nulls = column.get("nulls") or 0
    verdict, how = tolerance(nulls, document, column)
    if how["threshold_percent"] is not None and how["threshold_percent"] >= 100:
        return []
    shown = ", ".join(map(str, values[:8])) + (" …" if len(values) > 8 else "")
    why = _("The %(count)s non-NULL values take only %(distinct)s values (%(shown)s) in %(sample)s.") % {
        "count": f"{count:,}",
        "distinct": len(values),
        "shown": shown,
        "sample": _sample_words(document),
    }
    if how["threshold_percent"] is not None:
        why += " " + _(
            "The template counts NULL as not allowed, and values unseen in a sample may exist: the check allows "
            "up to %(allowed)s %% of the rows."
        ) % {"allowed": f"{how['threshold_percent']:g}"}
    return [
        {
            "kind": "enumeration",
            "template": "enumeration_check",
            "params": {"enum_list": values, **verdict},
            "why": why,
            "statistic": {"top_values": column.get("top_values"), "non_null": count, "nulls": nulls},
            "tolerance": how,
        }
    ]


def _numbers(document: dict, column: dict) -> list[dict]:
    low, high = column.get("min"), column.get("max")
    if _decimal(low) is None or _decimal(high) is None:
        return []
    found = []
    verdict, how = tolerance(0, document, column)
    if low >= 0:
        found.append(
            {
                "kind": "non_negative",
                "template": "value_range_check",
                "params": {"min_value": 0, **verdict},
                "why": _("No value is negative (the smallest is %(low)s) in %(sample)s.")
                % {"low": f"{low:g}", "sample": _sample_words(document)},
                "statistic": {"min": low},
                "tolerance": how,
            }
        )
    bounds = None if looks_like_a_key(column) else numeric_range(column)
    if bounds is not None:
        found.append(
            {
                "kind": "range",
                "template": "value_range_check",
                "params": {"min_value": bounds["min_value"], "max_value": bounds["max_value"], **verdict},
                "why": _(
                    "Values lie between %(low)s and %(high)s in %(sample)s; the check allows "
                    "%(min)s to %(max)s, widened by %(rule)s and rounded outward."
                )
                % {
                    "low": f"{low:g}",
                    "high": f"{high:g}",
                    "sample": _sample_words(document),
                    "min": f"{bounds['min_value']:g}",
                    "max": f"{bounds['max_value']:g}",
                    "rule": _(bounds["margin"]["rule"]),
                },
                "statistic": {"min": low, "max": high, "quantiles": column.get("quantiles")},
                "tolerance": how,
                "margin": bounds["margin"],
            }
        )
    return found


def looks_like_a_key(column: dict) -> bool:
    """Whole numbers all different: an identifier or a counter, which grows; a maximum would fail
    on the next rows, so it gets no range (non-negative still holds)."""
    count = non_null(column)
    integer = bool(_INTEGER_TYPE.match(column.get("type") or ""))
    return integer and count >= 2 and bool(column.get("distinct_exact")) and column.get("distinct") == count


def _shapes(document: dict, column: dict) -> list[dict]:
    looks, count = column.get("looks") or {}, non_null(column)
    found = []
    for shape, pattern in SHAPES.items():
        matching = looks.get(shape)
        if count <= 0 or matching != count:
            continue
        verdict, how = tolerance(0, document, column)
        found.append(
            {
                "kind": SHAPE_KINDS[shape],
                "template": "regexp_check",
                "params": {"regexp_pattern": pattern, **verdict},
                "why": _("Every one of the %(count)s non-NULL values looks like %(shape)s in %(sample)s.")
                % {"count": f"{count:,}", "shape": _(SHAPE_WORDS[shape]), "sample": _sample_words(document)},
                "statistic": {f"looks.{shape}": matching, "non_null": count},
                "tolerance": how,
            }
        )
    return found


def length_limits(column: dict) -> dict | None:
    length = column.get("length") or {}
    shortest, longest = length.get("min"), length.get("max")
    if not isinstance(shortest, int) or not isinstance(longest, int) or non_null(column) <= 0:
        return None
    if shortest == longest:
        return {"exact": shortest}
    margin = max(1, math.ceil(LENGTH_MARGIN_SHARE * (longest - shortest)))
    return {
        "longest": longest + margin,
        "shortest": shortest - margin,
        "margin": margin,
        "min": shortest,
        "max": longest,
    }


def _lengths(document: dict, column: dict) -> list[dict]:
    limits = length_limits(column)
    if limits is None:
        return []
    verdict, how = tolerance(0, document, column)
    words = _sample_words(document)
    statistic = {"length": column.get("length"), "non_null": non_null(column)}
    if "exact" in limits:
        if non_null(column) < 2:
            return []
        return [
            {
                "kind": "exact_length",
                "template": "field_length_check",
                "params": {"logic_operator": "<>", "field_length": limits["exact"], **verdict},
                "why": _("Every non-NULL value is %(length)s characters long in %(sample)s.")
                % {"length": limits["exact"], "sample": words},
                "statistic": statistic,
                "tolerance": how,
            }
        ]
    margin = {
        "rule": "max(1, 10 % of the observed length range) characters",
        "width": limits["margin"],
        "observed_min": limits["min"],
        "observed_max": limits["max"],
    }
    found = [
        {
            "kind": "max_length",
            "template": "field_length_check",
            "params": {"logic_operator": ">", "field_length": limits["longest"], **verdict},
            "why": _(
                "The longest value has %(max)s characters in %(sample)s; the check counts values longer "
                "than %(longest)s (%(margin)s more)."
            )
            % {"max": limits["max"], "sample": words, "longest": limits["longest"], "margin": limits["margin"]},
            "statistic": statistic,
            "tolerance": how,
            "margin": margin,
        }
    ]
    if limits["shortest"] >= 1:
        found.append(
            {
                "kind": "min_length",
                "template": "field_length_check",
                "params": {"logic_operator": "<", "field_length": limits["shortest"], **verdict},
                "why": _(
                    "The shortest value has %(min)s characters in %(sample)s; the check counts values "
                    "shorter than %(shortest)s (%(margin)s fewer)."
                )
                % {"min": limits["min"], "sample": words, "shortest": limits["shortest"], "margin": limits["margin"]},
                "statistic": statistic,
                "tolerance": how,
                "margin": margin,
            }
        )
    return found
