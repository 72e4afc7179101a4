"""The trend chart's threshold band (`passing_band`) and its points: the band is exactly where the
verdict passes, errored results stay on the trend, and the check form's preview words the rule
as the verdicts do."""

from __future__ import annotations

import itertools

import pytest

from executions.evaluation import CHECK_TYPES, OPERATORS, evaluate, passing_band
from executions.tests.test_dashboard import _check, _result

STATISTICS = [-50, -1, 0, 0.5, 1, 9, 10, 11, 49.5, 50, 90, 99, 100, 101, 110, 150, 1000]


def _inside(band, statistic: float) -> bool:
    above = band.low is None or statistic >= band.low
    below = band.high is None or statistic <= band.high
    return above and below


@pytest.mark.parametrize(
    ("check_type", "operator", "threshold", "comparison"),
    [
        (t, o, threshold, comparison)
        for t, o in itertools.product(CHECK_TYPES, OPERATORS)
        for threshold, comparison in [(0, 0), (10, 100), (-5, 40), (50, 100), (100, 100)]
    ],
)
def test_the_band_holds_exactly_the_statistics_that_pass(check_type, operator, threshold, comparison):
    band = passing_band(check_type, operator, threshold, comparison)
    if band is None:
        return  # nothing drawn (a percentage of 0, = or ≠ on |difference|, an impossible spread)
    for statistic in STATISTICS:
        verdict = evaluate(statistic, comparison, check_type, operator, threshold).status
        if statistic in (band.low, band.high):
            # On the edge the formula equals the threshold: it passes when the operator allows equality.
            assert (verdict == "pass") == (operator in ("le", "ge", "eq")), (statistic, band)
            continue
        inside = _inside(band, statistic)
        assert (inside if band.passes == "inside" else not inside) == (verdict == "pass"), (statistic, band)


def test_no_band_without_an_expected_value_or_for_a_percentage_of_zero():
    assert passing_band("statistics_minus_comparison", "le", 0, None) is None
    assert passing_band("statistics_comparison_percentage", "ge", 90, 0) is None


def test_a_band_reads_in_numbers():
    band = passing_band("statistics_comparison_difference_comparison_percentage", "le", 10, 200)
    assert band.as_dict() == {"low": 180.0, "high": 220.0, "passes": "inside"}
    assert passing_band("comparison_minus_statistics", "le", 0, 7).as_dict() == {
        "low": 7.0,
        "high": None,
        "passes": "inside",
    }


@pytest.mark.django_db
def test_the_trend_keeps_errored_results_with_their_reason_and_each_point_its_band(cast, api_as, make_datasource):
    source = make_datasource(name="open", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")
    check = _check("emails", source)
    _result(check, "fail", hours_ago=3)
    errored = _result(check, "error", hours_ago=2, statistic=None)
    errored.message = "The table shop.orders does not exist."
    errored.comparison_value = None
    errored.save()
    points = api_as(cast.author).get(f"/api/v1/checks/{check.pk}/history/").json()
    assert [p["status"] for p in points] == ["fail", "error"]
    assert points[1]["statistics_value"] is None and "does not exist" in points[1]["message"]
    assert points[0]["passing_band"] == {"low": None, "high": 0.0, "passes": "inside"}
    assert points[1]["passing_band"] is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "formula"),
    [
        ("check_type=statistics_minus_comparison&operator=le&threshold=0", "Pass when actual − expected ≤ 0"),
        (
            "check_type=statistics_comparison_percentage&operator=ge&threshold=99.5",
            "Pass when actual ÷ expected × 100 ≥ 99.5",
        ),
    ],
)
def test_the_form_preview_words_a_rule_like_the_verdicts(cast, api_as, query, formula):
    response = api_as(cast.author).get(f"/api/v1/formula/?{query}")
    assert response.status_code == 200 and response.json() == {"formula": formula, "by_range": False}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "rule"),
    [
        (
            "last_7_runs_3_sigma",
            "Pass when the statistic lies within the mean ± 3 standard deviations of this check's last 7 normal runs",
        ),
        (
            "last_7_runs_20_pct",
            "Pass when the statistic lies within 20% of the mean of this check's last 7 normal runs",
        ),
        (
            "anomaly",
            "Warn or fail when the statistic leaves the range learned from this check's earlier normal results",
        ),
    ],
)
def test_the_form_preview_of_a_dynamic_range_words_the_range_not_the_formula(cast, api_as, kind, rule):
    # The formula's fields are still on the form; the range decides, so they must not be worded.
    query = f"check_type=statistics_minus_comparison&operator=le&threshold=0&comparison_type={kind}"
    body = api_as(cast.author).get(f"/api/v1/formula/?{query}").json()
    assert body["formula"].startswith(rule) and body["by_range"] is True
    assert "actual − expected" not in body["formula"]
    alone = api_as(cast.author).get(f"/api/v1/formula/?comparison_type={kind}")  # no formula needed
    assert alone.status_code == 200 and alone.json()["formula"] == body["formula"]


@pytest.mark.django_db
def test_the_form_preview_of_a_fixed_value_still_words_the_formula(cast, api_as):
    query = "check_type=statistics_minus_comparison&operator=le&threshold=0&comparison_type=fix_value"
    assert api_as(cast.author).get(f"/api/v1/formula/?{query}").json()["formula"] == "Pass when actual − expected ≤ 0"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ("operator=le&threshold=0", {"check_type"}),
        ("check_type=nope&operator=le&threshold=0", {"check_type"}),
        ("check_type=statistics_minus_comparison&operator=~&threshold=x", {"operator", "threshold"}),
        ("check_type=statistics_minus_comparison&operator=le&threshold=inf", {"threshold"}),
    ],
)
def test_the_form_preview_refuses_an_incomplete_rule_field_by_field(cast, api_as, query, fields):
    response = api_as(cast.author).get(f"/api/v1/formula/?{query}")
    assert response.status_code == 400 and set(response.json()["fields"]) == fields
