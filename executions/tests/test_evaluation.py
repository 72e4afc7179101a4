"""The check formula, operators, thresholds and percentage rules, exhaustively."""

from decimal import Decimal

import pytest

from executions.evaluation import CHECK_TYPES, OPERATORS, evaluate, formula_value, holds, rule_in_words


@pytest.mark.parametrize(
    ("check_type", "statistic", "comparison", "expected"),
    [
        ("comparison_minus_statistics", 12, 0, Decimal(-12)),
        ("comparison_minus_statistics", 3, 10, Decimal(7)),
        ("statistics_minus_comparison", 12, 0, Decimal(12)),
        ("statistics_minus_comparison", 0.3, 0.1, Decimal("0.2")),
        ("statistics_comparison_percentage", 37, 5000, Decimal("0.74")),
        ("statistics_comparison_percentage", 5, 0, Decimal(0)),  # comparison ≤ 0 → 0
        ("statistics_comparison_percentage", 5, -2, Decimal(0)),
        ("statistics_comparison_difference_comparison_percentage", 90, 100, Decimal(10)),
        ("statistics_comparison_difference_comparison_percentage", 110, 100, Decimal(10)),  # absolute difference
        ("statistics_comparison_difference_comparison_percentage", 7, 0, Decimal(0)),
    ],
)
def test_each_formula_computes_what_dolphinscheduler_defined(check_type, statistic, comparison, expected):
    assert formula_value(check_type, statistic, comparison) == expected


@pytest.mark.parametrize(
    ("operator", "value", "threshold", "expected"),
    [
        ("eq", 0, 0, True),
        ("eq", 1, 0, False),
        ("lt", -1, 0, True),
        ("lt", 0, 0, False),
        ("le", 0, 0, True),
        ("le", 1, 0, False),
        ("gt", 1, 0, True),
        ("gt", 0, 0, False),
        ("ge", 0, 0, True),
        ("ge", -1, 0, False),
        ("ne", 1, 0, True),
        ("ne", 0, 0, False),
    ],
)
def test_each_operator_compares_the_formula_with_the_threshold(operator, value, threshold, expected):
    assert holds(Decimal(value), operator, threshold) is expected


def test_true_means_pass_and_the_sentence_shows_the_arithmetic():
    verdict = evaluate(12, 0, "statistics_minus_comparison", "le", 0)
    assert verdict.status == "fail" and verdict.formula_value == 12
    assert verdict.sentence == "Pass when actual − expected ≤ 0: 12 − 0 = 12 > 0 → fail"
    passing = evaluate(0, 0, "statistics_minus_comparison", "le", 0)
    assert passing.status == "pass" and passing.sentence.endswith("0 − 0 = 0 ≤ 0 → pass")


def test_a_decimal_statistic_compares_exactly_with_eq():
    assert evaluate(0.3, 0.1, "statistics_minus_comparison", "eq", 0.2).status == "pass"


def test_a_missing_comparison_value_is_unknown_not_pass():
    verdict = evaluate(5, None, "statistics_minus_comparison", "le", 0)
    assert verdict.status == "unknown" and verdict.formula_value is None
    assert "no expected value yet" in verdict.sentence


def test_a_missing_statistic_is_unknown():
    assert evaluate(None, 3, "statistics_minus_comparison", "le", 0).status == "unknown"


def test_a_percentage_against_a_non_positive_expected_value_says_why_it_is_zero():
    verdict = evaluate(5, 0, "statistics_comparison_percentage", "le", 1)
    assert verdict.status == "pass" and "(expected 0 ≤ 0, so the percentage is 0)" in verdict.sentence


def test_a_null_rate_check_reads_naturally():
    verdict = evaluate(37, 5000, "statistics_comparison_percentage", "le", 1)
    assert verdict.sentence == "Pass when actual ÷ expected × 100 ≤ 1: 37 ÷ 5000 × 100 = 0.74 ≤ 1 → pass"


@pytest.mark.parametrize("check_type", list(CHECK_TYPES))
@pytest.mark.parametrize("operator", list(OPERATORS))
def test_every_combination_gives_pass_or_fail_and_the_rule_in_words(check_type, operator):
    verdict = evaluate(4, 8, check_type, operator, 0)
    assert verdict.status in ("pass", "fail")
    assert verdict.sentence.startswith(rule_in_words(check_type, operator, 0))


def test_unknown_check_types_and_operators_are_refused():
    with pytest.raises(ValueError, match="Unknown check type"):
        formula_value("ratio", 1, 1)
    with pytest.raises(ValueError, match="Unknown operator"):
        holds(Decimal(1), "approx", 0)
