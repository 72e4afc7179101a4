"""Suggested checks from hand-made profile documents (pure: no Django, no database)."""

from __future__ import annotations

import math

import pytest

from profiling.backtest import judge
from profiling.suggesting import SHAPES, suggest, wilson_upper

from .profile_documents import column, document, matches

Z = 2.5758293035489


def kinds(suggestions, name=None):
    return {s["kind"] for s in suggestions if name is None or s["column"] == name}


def one(suggestions, name, kind):
    found = [s for s in suggestions if s["column"] == name and s["kind"] == kind]
    assert len(found) == 1, [(s["column"], s["kind"]) for s in suggestions]
    return found[0]


def wilson_by_quadratic(x: int, n: int) -> float:
    """The larger p with (x/n − p)² = z² p (1 − p) / n: the Wilson interval's upper end, solved anew."""
    p_hat = x / n
    a = 1 + Z * Z / n
    b = -(2 * p_hat + Z * Z / n)
    c = p_hat * p_hat
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


# --- nullness ------------------------------------------------------------------------------------
def test_a_column_without_nulls_in_a_full_profile_is_suggested_not_null_with_no_tolerance():
    doc = document([column("order_id", "number", 1000, min=1, max=1000)], 1000)

    s = one(suggest(doc, datasource_id=7), "order_id", "not_null")

    assert s["template"] == "null_check"
    assert s["params"] == {
        "src_datasource_id": 7,
        "src_table": "orders",
        "src_field": "order_id",
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": "alert",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    assert s["evidence"]["rows"] == 1000 and s["evidence"]["nulls"] == 0
    assert s["evidence"]["sample"] == {"method": "full", "rows": 1000, "table_rows": 1000, "fraction": None}
    assert "1,000 rows" in s["why"]


def test_a_column_with_some_nulls_gets_a_share_bound_at_the_99_percent_wilson_upper_bound_rounded_up():
    doc = document([column("email", "string", 1000, nulls=12, distinct=988)], 1000)

    s = one(suggest(doc), "email", "null_share")

    bound = wilson_by_quadratic(12, 1000) * 100  # 2.462… %
    assert s["params"]["check_type"] == "statistics_comparison_percentage"
    assert s["params"]["comparison_type"] == "src_table_total_rows" and "comparison_value" not in s["params"]
    assert bound <= s["params"]["threshold"] <= bound * 1.05  # rounded up to two significant digits
    assert s["params"]["threshold"] == 2.5
    assert "not_null" not in kinds(suggest(doc), "email")
    assert "12 of 1,000" in s["why"]


def test_wilson_upper_bound_agrees_with_the_quadratic_solution():
    for x, n in [(0, 10), (1, 10), (5, 100), (999, 1000), (3, 7)]:
        assert wilson_upper(x, n) == pytest.approx(wilson_by_quadratic(x, n), rel=1e-9)


def test_empty_strings_count_as_nulls_because_the_null_check_counts_them():
    doc = document([column("note", "string", 100, nulls=0, empty=3)], 100)

    found = suggest(doc)

    assert "not_null" not in kinds(found, "note")
    assert one(found, "note", "null_share")["evidence"]["statistic"]["null_or_empty"] == 3


def test_a_sample_without_nulls_suggests_a_share_bound_not_a_zero_count():
    doc = document([column("order_id", "number", 500, min=1, max=9)], 100_000, method="sample", sample_rows=500)

    found = suggest(doc)

    s = one(found, "order_id", "null_share")
    assert s["params"]["threshold"] >= wilson_by_quadratic(0, 500) * 100 and s["params"]["threshold"] < 2
    assert "a sample of 500 of 100,000 rows" in s["why"]


# --- uniqueness ----------------------------------------------------------------------------------
def test_uniqueness_only_when_every_non_null_value_is_distinct_counted_exactly_over_every_row():
    unique = column("id", "number", 100, nulls=2, distinct=98, min=1, max=98)
    repeated = column("customer", "number", 100, distinct=60, min=1, max=60)
    approximate = column("ref", "number", 100, distinct=100, distinct_exact=False, min=1, max=100)

    full = suggest(document([unique, repeated, approximate], 100))
    sampled = suggest(document([unique], 10_000, method="sample", sample_rows=100))

    assert "unique" in kinds(full, "id")
    assert "unique" not in kinds(full, "customer") and "unique" not in kinds(full, "ref")
    assert "unique" not in kinds(sampled)  # a sample hides duplicates


# --- enumeration ---------------------------------------------------------------------------------
def test_an_enumeration_lists_the_top_values_when_they_cover_every_non_null_row():
    top = [{"value": "paid", "count": 70}, {"value": "void", "count": 25}, {"value": "shipped", "count": 5}]
    doc = document([column("status", "string", 100, distinct=3, top_values=top)], 100)

    s = one(suggest(doc), "status", "enumeration")

    assert s["template"] == "enumeration_check"
    assert s["params"]["enum_list"] == ["paid", "shipped", "void"]
    assert s["params"]["comparison_type"] == "fix_value" and s["params"]["threshold"] == 0


def test_no_enumeration_when_top_values_miss_rows_list_an_empty_string_or_look_like_a_key():
    partial = column(
        "a", "string", 100, distinct=2, top_values=[{"value": "x", "count": 60}, {"value": "y", "count": 30}]
    )
    empty = column("b", "string", 100, distinct=2, top_values=[{"value": "x", "count": 90}, {"value": "", "count": 10}])
    key = column("c", "string", 5, distinct=5, top_values=[{"value": v, "count": 1} for v in "vwxyz"])
    fractions = column(
        "d",
        "number",
        100,
        distinct=2,
        top_values=[{"value": 0.5, "count": 50}, {"value": 1.5, "count": 50}],
        min=0.5,
        max=1.5,
    )

    found = suggest(document([partial, empty, key, fractions], 100))

    assert "enumeration" not in kinds(found)


def test_an_enumeration_with_nulls_allows_their_share_since_the_template_counts_null_as_not_allowed():
    top = [{"value": 1, "count": 60}, {"value": 2, "count": 38}]
    doc = document([column("level", "number", 100, nulls=2, distinct=2, top_values=top, min=1, max=2)], 100)

    s = one(suggest(doc), "level", "enumeration")

    assert s["params"]["enum_list"] == [1, 2]
    assert s["params"]["check_type"] == "statistics_comparison_percentage"
    assert s["params"]["threshold"] >= wilson_by_quadratic(2, 100) * 100


# --- numbers -------------------------------------------------------------------------------------
def test_non_negative_when_the_smallest_value_is_zero_or_more_and_not_otherwise():
    doc = document(
        [
            column("amount", "number", 50, min=0, max=80, type="numeric(10,2)"),
            column("delta", "number", 50, min=-3, max=8),
        ],
        50,
    )

    found = suggest(doc)

    s = one(found, "amount", "non_negative")
    assert s["template"] == "value_range_check" and s["params"]["min_value"] == 0 and "max_value" not in s["params"]
    assert "non_negative" not in kinds(found, "delta")


def test_a_range_is_widened_by_a_tenth_of_the_observed_range_rounded_outward_never_the_observed_extremes():
    doc = document([column("price", "number", 200, min=12.5, max=87.25, type="numeric(10,2)")], 200)

    s = one(suggest(doc), "price", "range")

    low, high = s["params"]["min_value"], s["params"]["max_value"]
    margin = (87.25 - 12.5) / 10  # 7.475
    assert low <= 12.5 - margin and high >= 87.25 + margin  # at least the margin, outward
    assert low > 12.5 - 2 * margin and high < 87.25 + 2 * margin  # rounding adds less than another margin
    assert (low, high) == (5, 95)  # 5.025 → 5 and 94.725 → 95 at the margin's power of ten (1)
    assert s["margin"]["rule"] == "10 % of the observed range (max − min)"


def test_an_integer_range_has_whole_bounds_and_a_non_negative_column_keeps_its_lower_bound_at_zero():
    doc = document(
        [
            column("qty", "number", 40, distinct=5, min=1, max=5),
            column("temp", "number", 40, distinct=11, min=-7, max=3),
        ],
        40,
    )

    found = suggest(doc)

    qty, temp = one(found, "qty", "range")["params"], one(found, "temp", "range")["params"]
    assert (qty["min_value"], qty["max_value"]) == (0, 6)  # margin 1 (at least one unit): −0 clamped, 6
    assert (temp["min_value"], temp["max_value"]) == (-8, 4)
    assert all(isinstance(v, int) for v in (qty["min_value"], qty["max_value"], temp["min_value"], temp["max_value"]))


def test_a_constant_column_gets_a_range_around_its_value():
    s = one(suggest(document([column("rate", "number", 10, min=100, max=100, distinct=1)], 10)), "rate", "range")

    assert s["params"]["min_value"] < 100 < s["params"]["max_value"]


def test_time_columns_get_no_range_since_new_rows_carry_later_times():
    doc = document([column("created_at", "time", 10, min="2026-01-01T00:00:00", max="2026-02-01T00:00:00")], 10)

    assert kinds(suggest(doc)) == {"not_null", "unique"}


# --- strings -------------------------------------------------------------------------------------
def test_an_email_pattern_when_every_non_null_value_looks_like_an_email_and_not_when_one_does_not():
    every = column("email", "string", 100, nulls=4, looks={"numeric": 0, "date": 0, "email": 96})
    all_but_one = column("contact", "string", 100, nulls=4, looks={"numeric": 0, "date": 0, "email": 95})

    found = suggest(document([every, all_but_one], 100))

    s = one(found, "email", "email")
    assert s["template"] == "regexp_check" and s["params"]["regexp_pattern"] == SHAPES["email"]
    assert "email" not in kinds(found, "contact")


def test_the_shapes_accept_the_values_they_stand_for_and_refuse_others():
    assert all(matches(SHAPES["email"], v) for v in ["a@b.io", "first.last+tag@mail.example.co.uk"])
    assert not any(matches(SHAPES["email"], v) for v in ["a@b", "a b@c.io", "@b.io", "a@@b.io", ""])
    assert all(matches(SHAPES["numeric"], v) for v in ["12", "-3.5", "+0.25", ".5", "1e9", "7."])
    assert not any(matches(SHAPES["numeric"], v) for v in ["12a", "1,5", "", "--1", " 12"])
    assert all(matches(SHAPES["date"], v) for v in ["2026-12-01", "2026-12-01 10:00", "2026-12-01T10:00:00.5"])
    assert not any(matches(SHAPES["date"], v) for v in ["01/12/2026", "2026-12-1", "2026-12-01x"])


def test_numeric_and_date_texts_get_their_patterns():
    numbers = column("zip", "string", 30, looks={"numeric": 30, "date": 0, "email": 0})
    dates = column("day", "string", 30, looks={"numeric": 0, "date": 30, "email": 0})

    found = suggest(document([numbers, dates], 30))

    assert one(found, "zip", "numeric_text")["params"]["regexp_pattern"] == SHAPES["numeric"]
    assert one(found, "day", "date_text")["params"]["regexp_pattern"] == SHAPES["date"]


def test_lengths_get_a_margin_and_a_fixed_length_is_suggested_exactly():
    doc = document(
        [
            column("name", "string", 100, length={"min": 10, "max": 43, "mean": 12.0}),
            column("country", "string", 100, distinct=12, length={"min": 2, "max": 2, "mean": 2.0}),
            column("tag", "string", 100, length={"min": 1, "max": 6, "mean": 3.0}),
        ],
        100,
    )

    found = suggest(doc)

    longest = one(found, "name", "max_length")["params"]
    assert (longest["logic_operator"], longest["field_length"]) == (">", 47)  # 43 + ⌈10 % of 33⌉
    shortest = one(found, "name", "min_length")["params"]
    assert (shortest["logic_operator"], shortest["field_length"]) == ("<", 6)  # 10 − 4
    exact = one(found, "country", "exact_length")["params"]
    assert (exact["logic_operator"], exact["field_length"]) == ("<>", 2)
    assert "min_length" not in kinds(found, "tag")  # 1 − 1 = 0: "shorter than 0" counts nothing


def test_booleans_and_other_kinds_get_only_nullness():
    doc = document([column("flag", "boolean", 10, distinct=2), column("blob", "other", 10)], 10)

    assert {(s["column"], s["kind"]) for s in suggest(doc)} == {("flag", "not_null"), ("blob", "not_null")}


def test_a_profile_of_a_batch_suggests_nothing_for_the_whole_table():
    doc = document([column("id", "number", 10, min=1, max=10)], 10, filter="day = '2026-12-01'")

    assert suggest(doc) == []


# --- fingerprints --------------------------------------------------------------------------------
def test_the_fingerprint_changes_only_when_the_suggested_check_changes():
    def range_of(maximum):
        doc = document([column("amount", "number", 100, distinct=90, min=0, max=maximum)], 100)
        return one(suggest(doc, datasource_id=1), "amount", "range")

    same_bounds_a, same_bounds_b, wider = range_of(1040), range_of(1050), range_of(2000)

    assert same_bounds_a["params"]["max_value"] == same_bounds_b["params"]["max_value"] == 1200
    assert same_bounds_a["fingerprint"] == same_bounds_b["fingerprint"]
    assert wider["fingerprint"] != same_bounds_a["fingerprint"]


# --- backtest ------------------------------------------------------------------------------------
def test_the_backtest_judges_each_earlier_profile_from_its_figures_and_says_when_it_cannot():
    now = document(
        [column("amount", "number", 100, min=0, max=90), column("email", "string", 100)], 100, at="2026-12-03"
    )
    had_nulls = document([column("amount", "number", 100, nulls=1, min=-5, max=90)], 100, at="2026-12-02")
    sampled = document(
        [column("amount", "number", 50, min=1, max=80)], 1000, method="sample", sample_rows=50, at="2026-12-01"
    )
    no_column = document([column("other", "number", 100, min=1, max=2)], 100, at="2026-11-30")

    found = suggest(now, [had_nulls, sampled, no_column])

    not_null = one(found, "amount", "not_null")["backtest"]
    assert [e["verdict"] for e in not_null["earlier"]] == ["fail", "not_decidable", "not_decidable"]
    assert "sample of 50 of 1,000" in not_null["earlier"][1]["reason"]
    assert "was not in this profile" in not_null["earlier"][2]["reason"]
    assert not_null["summary"] == {"pass": 0, "fail": 1, "not_decidable": 2}
    assert not_null["this_profile"]["verdict"] == "pass"
    non_negative = one(found, "amount", "non_negative")["backtest"]["earlier"]
    assert [e["verdict"] for e in non_negative] == ["fail", "not_decidable", "not_decidable"]


def test_a_share_bound_passes_or_fails_on_earlier_profiles_by_their_share():
    now = document([column("email", "string", 1000, nulls=10)], 1000, at="2026-12-03")
    fewer = document([column("email", "string", 1000, nulls=5)], 1000, at="2026-12-02")
    many = document([column("email", "string", 1000, nulls=100)], 1000, at="2026-12-01")

    backtest = one(suggest(now, [fewer, many]), "email", "null_share")["backtest"]

    assert [e["verdict"] for e in backtest["earlier"]] == ["pass", "fail"]


def test_an_enumeration_fails_on_an_earlier_profile_that_had_another_value():
    top_now = [{"value": "paid", "count": 60}, {"value": "void", "count": 40}]
    top_then = [{"value": "paid", "count": 60}, {"value": "void", "count": 39}, {"value": "bogus", "count": 1}]
    now = document([column("status", "string", 100, distinct=2, top_values=top_now)], 100, at="2026-12-02")
    then = document([column("status", "string", 100, distinct=3, top_values=top_then)], 100, at="2026-12-01")

    entry = one(suggest(now, [then]), "status", "enumeration")["backtest"]["earlier"][0]

    assert entry["verdict"] == "fail" and "At least 1 violating" in entry["reason"]


def test_the_holdout_judges_what_each_earlier_profile_would_have_suggested_on_the_profile_after_it():
    newest = document([column("amount", "number", 100, distinct=50, min=0, max=300)], 100, at="2026-12-03")
    middle = document([column("amount", "number", 100, distinct=50, min=0, max=105)], 100, at="2026-12-02")
    oldest = document([column("amount", "number", 100, distinct=50, min=0, max=100)], 100, at="2026-12-01")

    holdout = one(suggest(newest, [middle, oldest]), "amount", "range")["backtest"]["holdout"]

    # From the oldest: [0, 110], held on the middle (max 105); from the middle: [0, 120], broken by 300.
    assert [(p["suggested_from"], p["judged_on"]["verdict"]) for p in holdout["pairs"]] == [
        ("2026-12-02", "fail"),
        ("2026-12-01", "pass"),
    ]
    assert holdout["summary"] == {"pass": 1, "fail": 1, "not_decidable": 0}


def test_every_suggestion_passes_its_own_full_profile():
    top = [{"value": "a", "count": 5}, {"value": "b", "count": 5}]
    doc = document(
        [
            column("id", "number", 10, min=1, max=10),
            column("s", "string", 10, nulls=0, distinct=2, top_values=top, length={"min": 1, "max": 1, "mean": 1.0}),
            column(
                "e",
                "string",
                10,
                nulls=3,
                looks={"numeric": 0, "date": 0, "email": 7},
                length={"min": 5, "max": 30, "mean": 9.0},
            ),
        ],
        10,
    )

    assert {s["backtest"]["this_profile"]["verdict"] for s in suggest(doc)} == {"pass"}
    assert (
        judge("range", {"min_value": 0, "max_value": 5, "comparison_type": "fix_value"}, "id", doc)["verdict"] == "fail"
    )


def test_a_histogram_proves_how_many_rows_an_earlier_profile_had_outside_a_tolerated_range():
    # Suggested from a sample (so the range allows a share), judged on an earlier full profile
    # whose histogram puts 15 of 100 rows in a bin wholly above the new maximum.
    now = document(
        [column("amount", "number", 100, distinct=60, min=0, max=100)], 10_000, method="sample", sample_rows=100, at="b"
    )
    histogram = {"edges": [0, 50, 100, 200, 300], "counts": [30, 30, 25, 15]}
    then = document([column("amount", "number", 100, min=0, max=300, histogram=histogram)], 100, at="a")

    entry = one(suggest(now, [then]), "amount", "range")["backtest"]["earlier"][0]

    # The range is [0, 110]: the bin [200, 300] (15 rows) lies wholly above it, [100, 200) straddles.
    assert entry["verdict"] == "fail" and "At least 15 %" in entry["reason"]


def test_an_empty_table_and_a_column_of_nulls_suggest_nothing_about_their_values():
    nulls_only = column("note", "string", 50, nulls=50, distinct=0, length={"min": None, "max": None, "mean": None})
    empty_table = document([column("id", "number", 0, min=None, max=None)], 0)

    assert kinds(suggest(document([nulls_only], 50)), "note") == set()  # a bound of 100 % checks nothing
    assert suggest(empty_table) == []


def test_a_string_column_whose_empty_strings_are_unknown_gets_no_nullness_suggestion():
    unknown = column("note", "string", 50, empty=None)

    assert {"not_null", "null_share"} & kinds(suggest(document([unknown], 50))) == set()


def test_each_suggestion_names_its_evidence_and_a_check_name_with_table_and_column():
    doc = document([column("qty", "number", 30, min=1, max=5, distinct=5)], 3000, method="sample", sample_rows=30)

    for s in suggest(doc, table="shop.orders"):
        assert s["name"].startswith("shop.orders qty: ")
        assert s["evidence"]["sample"] == {"method": "sample", "rows": 30, "table_rows": 3000, "fraction": 0.01}
        assert s["params"]["comparison_type"] == "src_table_total_rows"  # a sample: a tolerance, never zero
        assert "a sample of 30 of 3,000 rows" in s["why"]


def test_whole_numbers_all_different_look_like_a_key_and_get_no_range_since_keys_grow():
    key = column("order_id", "number", 100, min=1, max=100)
    measured = column("weight", "number", 100, min=1, max=100, type="double precision")

    found = suggest(document([key, measured], 100))

    assert "range" not in kinds(found, "order_id") and {"non_negative", "unique"} <= kinds(found, "order_id")
    assert "range" in kinds(found, "weight")


def test_the_shapes_are_the_ones_the_profiler_counts_looks_with():
    queries = pytest.importorskip("dq_engine.profiling.queries", reason="the profiler is not merged yet")

    assert SHAPES == queries.SHAPES
