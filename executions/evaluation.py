"""The check formula: pure functions (the results page, the alerts and the CLI print the same words).

The words are Django translations (gettext) in the language active when they are made: a result
stores its verdict as recorded (English, the worker's language) and the screens and alerts word it
again from its numbers (`result_verdict`) in the reader's or the channel's language.

A check states what must hold: `formula(statistic, comparison) <operator> threshold`. True means
pass. Percentage formulas yield 0 when the comparison value is ≤ 0 (as DolphinScheduler did), the
difference percentage uses the absolute difference, and a missing comparison value gives
`unknown` rather than a guess.
"""

from __future__ import annotations

import operator as op
from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

# The formulas in words (translated where they are shown).
CHECK_TYPES = {
    "comparison_minus_statistics": gettext_noop("expected − actual"),
    "statistics_minus_comparison": gettext_noop("actual − expected"),
    "statistics_comparison_percentage": gettext_noop("actual ÷ expected × 100"),
    "statistics_comparison_difference_comparison_percentage": gettext_noop("|expected − actual| ÷ expected × 100"),
}
OPERATORS = {
    "eq": (op.eq, "="),
    "lt": (op.lt, "<"),
    "le": (op.le, "≤"),
    "gt": (op.gt, ">"),
    "ge": (op.ge, "≥"),
    "ne": (op.ne, "≠"),
}
NEGATED = {"eq": "≠", "lt": "≥", "le": ">", "gt": "≤", "ge": "<", "ne": "="}
HUNDRED = Decimal(100)


@dataclass(frozen=True)
class Verdict:
    status: str  # pass | fail | unknown
    formula_value: float | None
    sentence: str
    reasoning: str = ""  # the sentence without its "→ outcome"


def _outcome(reasoning: str, outcome: str) -> str:
    """ "… → pass", with the outcome word in the active language."""
    words = {"pass": _("pass"), "fail": _("fail"), "unknown": _("unknown"), "warn": _("warn")}
    return _("%(reasoning)s → %(outcome)s") % {"reasoning": reasoning, "outcome": words.get(outcome, outcome)}


def _judged(status: str, formula_value: float | None, reasoning: str, outcome: str | None = None) -> Verdict:
    return Verdict(status, formula_value, _outcome(reasoning, outcome or status), reasoning)


def _decimal(value: float | int | Decimal) -> Decimal:
    # Through str so that 0.1 stays 0.1: `eq` comparisons must not fail on binary noise.
    return value if isinstance(value, Decimal) else Decimal(str(value))


def formula_value(check_type: str, statistic: float, comparison: float) -> Decimal:
    actual, expected = _decimal(statistic), _decimal(comparison)
    if check_type == "comparison_minus_statistics":
        return expected - actual
    if check_type == "statistics_minus_comparison":
        return actual - expected
    if check_type == "statistics_comparison_percentage":
        return actual / expected * HUNDRED if expected > 0 else Decimal(0)
    if check_type == "statistics_comparison_difference_comparison_percentage":
        return abs(expected - actual) / expected * HUNDRED if expected > 0 else Decimal(0)
    raise ValueError(f"Unknown check type {check_type!r}; expected one of {', '.join(CHECK_TYPES)}.")


def holds(value: Decimal, operator: str, threshold: float) -> bool:
    try:
        compare = OPERATORS[operator][0]
    except KeyError:
        raise ValueError(f"Unknown operator {operator!r}; expected one of {', '.join(OPERATORS)}.") from None
    return compare(value, _decimal(threshold))


def rule_in_words(check_type: str, operator: str, threshold: float) -> str:
    """ "Pass when actual − expected ≤ 0" — used by the results page and the CLI."""
    return _("Pass when %(formula)s %(operator)s %(threshold)s") % {
        "formula": _(CHECK_TYPES[check_type]),
        "operator": OPERATORS[operator][1],
        "threshold": _number(threshold),
    }


def formula_in_words(check_type: str, operator: str, threshold: float | None) -> str:
    """`rule_in_words`, or "" for a rule not complete or not known here (the checks list shows it
    for every check, the results for every result)."""
    if check_type not in CHECK_TYPES or operator not in OPERATORS or threshold is None:
        return ""
    try:
        return rule_in_words(check_type, operator, threshold)
    except (ArithmeticError, ValueError, TypeError):
        return ""


def evaluate(
    statistic: float | None, comparison: float | None, check_type: str, operator: str, threshold: float
) -> Verdict:
    rule = rule_in_words(check_type, operator, threshold)
    if statistic is None:
        return _judged("unknown", None, _("%(rule)s: no statistic was measured") % {"rule": rule})
    if comparison is None:
        return _judged("unknown", None, _("%(rule)s: no expected value yet (no earlier results)") % {"rule": rule})
    value = formula_value(check_type, statistic, comparison)
    passed = holds(value, operator, threshold)
    symbol = OPERATORS[operator][1] if passed else NEGATED[operator]
    arithmetic = _arithmetic(check_type, statistic, comparison)
    calculation = f"{arithmetic} = {_number(value)} {symbol} {_number(threshold)}"
    reasoning = _("%(rule)s: %(calculation)s") % {"rule": rule, "calculation": calculation}
    return _judged("pass" if passed else "fail", float(value), reasoning)


def _arithmetic(check_type: str, statistic: float, comparison: float) -> str:
    actual, expected = _number(statistic), _number(comparison)
    if check_type == "comparison_minus_statistics":
        return f"{expected} − {actual}"
    if check_type == "statistics_minus_comparison":
        return f"{actual} − {expected}"
    if _decimal(comparison) <= 0:
        return _("(expected %(expected)s ≤ 0, so the percentage is 0)") % {"expected": expected}
    if check_type == "statistics_comparison_percentage":
        return f"{actual} ÷ {expected} × 100"
    return f"|{expected} − {actual}| ÷ {expected} × 100"


def _number(value: float | Decimal) -> str:
    """12 not 12.0; 3.5 stays 3.5; long fractions are rounded to 4 places for reading."""
    number = _decimal(value)
    if number == number.to_integral_value():
        return str(int(number))
    return f"{float(round(number, 4)):g}"


# The operator that holds for the statistic when `expected − actual <op> t` holds for the formula.
MIRRORED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


@dataclass(frozen=True)
class Band:
    """The statistic values that pass, given one comparison value: between `low` and `high`
    (`passes == "inside"`) or anywhere but there (`"outside"`); None is unbounded."""

    low: float | None
    high: float | None
    passes: str

    def as_dict(self) -> dict:
        return {"low": self.low, "high": self.high, "passes": self.passes}


def passing_band(check_type: str, operator: str, threshold: float, comparison: float | None) -> Band | None:
    """Where the statistic passes, for the trend chart's threshold band; None where no band can be
    drawn (no comparison value, a percentage of an expected value ≤ 0, `=`/`≠` on |difference|).

    The formula solved for the statistic: actual − expected ≤ t ⇔ actual ≤ expected + t, and so on.
    """
    if comparison is None or operator not in OPERATORS or check_type not in CHECK_TYPES:
        return None
    expected, limit = _decimal(comparison), _decimal(threshold)
    if check_type == "statistics_minus_comparison":
        return _one_sided(operator, expected + limit)
    if check_type == "comparison_minus_statistics":
        return _one_sided(MIRRORED[operator], expected - limit)
    if expected <= 0:
        return None  # the percentage is 0 whatever the statistic: nothing to draw
    if check_type == "statistics_comparison_percentage":
        return _one_sided(operator, expected * limit / HUNDRED)
    return _around(operator, expected, expected * limit / HUNDRED)


def result_band(result) -> Band | None:
    """The band a result was judged against. A dynamic threshold's is the range it learned, as
    stored with the result when it was judged (its formula played no part in the verdict, and
    later history must not move an old point's band), anomaly detection's its warn band (where
    it passes); every other result's is its formula's."""
    source = result.comparison_source or {}
    if source.get("source") == "anomaly":
        learned = source.get("expected_range")
        return Band(*[None if v is None else float(v) for v in learned], "inside") if learned else None
    if source.get("source") == "range":
        learned = source.get("expected_range")
        return Band(float(learned[0]), float(learned[1]), "inside") if learned else None
    return passing_band(result.check_type, result.operator, result.threshold, result.comparison_value)


def result_fail_band(result) -> Band | None:
    """Anomaly detection's fail band, as judged: beyond it the result failed; between it and the
    passing band it warned. None for every other comparison (they have no warn)."""
    source = result.comparison_source or {}
    learned = source.get("fail_range") if source.get("source") == "anomaly" else None
    return Band(*[None if v is None else float(v) for v in learned], "inside") if learned else None


def _one_sided(operator: str, bound: Decimal) -> Band:
    value = float(bound)
    if operator in ("lt", "le"):
        return Band(None, value, "inside")
    if operator in ("gt", "ge"):
        return Band(value, None, "inside")
    return Band(value, value, "inside" if operator == "eq" else "outside")


def _around(operator: str, expected: Decimal, spread: Decimal) -> Band | None:
    """|expected − actual| <op> spread: within `spread` of expected, or farther than that."""
    if operator in ("eq", "ne") or spread < 0:
        return None
    low, high = float(expected - spread), float(expected + spread)
    return Band(low, high, "inside" if operator in ("lt", "le") else "outside")


def evaluate_range(
    statistic: float | None,
    expected: tuple[float, float] | None,
    baseline: int,
    unit: str,
    needed: int,
    learned: str = "",
) -> Verdict:
    """A dynamic threshold: pass when the statistic lies within the expected range (bounds
    included). "9,800,000 is below the expected range [9,650,000, 10,450,000] from 7 normal
    batches → fail"; too few normal batches → unknown. `learned` says what the baseline was made
    of ("learned from 7 of 9 earlier results: 2 failed excluded") and is added in parentheses."""
    note = _(" (%(learned)s)") % {"learned": learned} if learned else ""
    if statistic is None:
        return _judged("unknown", None, _("No statistic was measured"))
    if expected is None:
        return _judged(
            "unknown",
            None,
            _("%(statistic)s: too few normal %(unit)s for an expected range (%(baseline)s of the %(needed)s needed)")
            % {"statistic": _grouped(statistic), "unit": unit_words(unit), "baseline": baseline, "needed": needed}
            + note,
        )
    low, high = expected
    span = f"[{_grouped(low)}, {_grouped(high)}]"
    where = {
        "below": _("%(statistic)s is below the expected range %(range)s from %(baseline)s normal %(unit)s"),
        "above": _("%(statistic)s is above the expected range %(range)s from %(baseline)s normal %(unit)s"),
        "within": _("%(statistic)s is within the expected range %(range)s from %(baseline)s normal %(unit)s"),
    }["below" if statistic < low else "above" if statistic > high else "within"]
    reasoning = where % {
        "statistic": _grouped(statistic),
        "range": span,
        "baseline": baseline,
        "unit": unit_words(unit),
    }
    passed = low <= statistic <= high
    return _judged("pass" if passed else "fail", None, reasoning + note)


# What a baseline counts, in words: "7 normal batches".
UNITS = {"batches": gettext_noop("batches"), "runs": gettext_noop("runs")}


def unit_words(unit: str) -> str:
    return _(UNITS[unit]) if unit in UNITS else unit


# Why an earlier result was left out of a baseline (executions/history.py, anomaly_judging.py).
EXCLUDED = {
    "backfill": gettext_noop("backfill"),
    "rerun": gettext_noop("rerun"),
    "re-validation": gettext_noop("re-validation"),
    "non-business day": gettext_noop("non-business day"),
    "released": gettext_noop("released"),
    "failed": gettext_noop("failed"),
    "errored": gettext_noop("errored"),
    "unknown": gettext_noop("unknown"),
    "warned": gettext_noop("warned"),
    "anomaly": gettext_noop("anomaly"),
    "expected": gettext_noop("expected"),
    "repeat of its slot": gettext_noop("repeat of its slot"),
}


def learned_words(learned: dict) -> str:
    """ "learned from 5 of 9 earlier results: 2 failed, 1 backfill excluded", in the active
    language, from the counts a baseline stored (its stored `sentence` is the English one)."""
    used, considered = learned["used"], learned["considered"]
    sentence = ngettext(
        "learned from %(used)s of %(considered)s earlier result",
        "learned from %(used)s of %(considered)s earlier results",
        considered,
    ) % {"used": used, "considered": considered}
    counts = learned.get("excluded") or {}
    if counts:
        listed = _(", ").join(
            _("%(count)s %(reason)s") % {"count": n, "reason": _(EXCLUDED[reason]) if reason in EXCLUDED else reason}
            for reason, n in counts.items()
        )
        sentence = _("%(learned)s: %(listed)s excluded") % {"learned": sentence, "listed": listed}
    return sentence


def _grouped(value: float) -> str:
    """9800000 → 9,800,000; 12.3456 → 12.35: ranges are read at a glance."""
    number = _decimal(value)
    if number == number.to_integral_value():
        return f"{int(number):,}"
    return f"{float(round(number, 2)):,}"


def evaluate_anomaly(statistic: float | None, source: dict) -> Verdict:
    """Anomaly detection's verdict in words, from the evidence the detector returned:
    "9,100 is below the expected range [9,400, 10,600] (fail beyond [9,000, 11,000]); anomaly
    detection anomaly-v1, seasonality day of week, learned from 60 of 64 earlier results: … → warn".
    The status is pass, fail (warn is a fail that never blocks: the caller records it so) or
    unknown."""
    note = _(" (%(learned)s)") % {"learned": learned_words(source["learned"])} if source.get("learned") else ""
    verdict = source.get("verdict")
    if statistic is None:
        return _judged("unknown", None, _("No statistic was measured"))
    if verdict == "unknown":
        return _judged("unknown", None, f"{_grouped(statistic)}: {source.get('message', '')}{note}")
    warn, fail = source["warn_range"], source["fail_range"]
    where = source.get("side") or "within"
    sides = {
        "below": _("%(statistic)s is below the expected range %(range)s (fail beyond %(fail)s)"),
        "above": _("%(statistic)s is above the expected range %(range)s (fail beyond %(fail)s)"),
        "within": _("%(statistic)s is within the expected range %(range)s (fail beyond %(fail)s)"),
    }
    seasonality = str(source.get("seasonality", "none"))
    reasoning = (
        (sides.get(where) or sides["within"])
        % {
            "statistic": _grouped(statistic),
            "range": _span(warn),
            "fail": _span(fail),
        }
        + _("; anomaly detection %(version)s, seasonality %(seasonality)s")
        % {
            "version": source.get("algorithm_version"),
            "seasonality": _(SEASONALITY[seasonality]) if seasonality in SEASONALITY else seasonality.replace("_", " "),
        }
        + note
    )
    if verdict == "warn":
        return Verdict(
            "fail", None, _("%(reasoning)s → warn (an alert; it never blocks)") % {"reasoning": reasoning}, reasoning
        )
    return _judged("pass" if verdict == "pass" else "fail", None, reasoning, verdict)


SEASONALITY = {
    "none": gettext_noop("none"),
    "day_of_week": gettext_noop("day of week"),
    "hour_of_day": gettext_noop("hour of day"),
}


def _span(band: list | None) -> str:
    if not band:
        return "[]"
    low, high = band
    return f"[{'−∞' if low is None else _grouped(low)}, {'∞' if high is None else _grouped(high)}]"


def verdict_of(statistic, comparison, source: dict, check_type: str, operator: str, threshold) -> Verdict:
    """A result's verdict from what it was judged by: the learned range of a dynamic threshold,
    anomaly detection's evidence, or its formula (executions/recording.py records it; the screens
    and alerts word it again with `result_verdict`)."""
    if source.get("source") == "range":
        return evaluate_range(
            statistic,
            source.get("expected_range"),
            len(source["baseline"]),
            source["unit"],
            source["needed"],
            learned=learned_words(source["learned"]) if source.get("learned") else "",
        )
    if source.get("source") == "anomaly":
        return evaluate_anomaly(statistic, source)
    return evaluate(statistic, comparison, check_type, operator, threshold)


def empty_partition_sentence(reasoning: str, scope: str) -> str:
    """A pass on a partition with no rows is no evidence (executions/recording.py makes it unknown)."""
    return _("%(reasoning)s; but %(scope)s has no rows, and passing on no rows is no evidence → unknown") % {
        "reasoning": reasoning,
        "scope": scope,
    }


def result_verdict(
    stored: str,
    status: str,
    statistic,
    comparison,
    source: dict | None,
    check_type: str,
    operator: str,
    threshold,
    partition_key: str = "",
) -> str:
    """The verdict of a recorded result in the active language, worded again from the numbers and
    evidence it was judged by (the same words it was recorded with, when the language is English);
    the stored sentence when it cannot be (an error has none, a result of an older shape)."""
    if status == "error":
        return stored
    from .scopes import scope_words

    source = source or {}
    try:
        verdict = verdict_of(statistic, comparison, source, check_type, operator, threshold)
    except (KeyError, TypeError, ValueError, ArithmeticError, IndexError):
        return stored
    if source.get("empty_partition") and verdict.status == "pass" and status == "unknown":
        return empty_partition_sentence(verdict.reasoning, scope_words(partition_key))
    return verdict.sentence


def verdict_in_words(result) -> str:
    """`result_verdict` of a Result."""
    return result_verdict(
        result.verdict,
        result.status,
        result.statistics_value,
        result.comparison_value,
        result.comparison_source,
        result.check_type,
        result.operator,
        result.threshold,
        result.partition_key,
    )
