"""The one vocabulary: template definitions become spec metrics, every predicate renders in every
SQL dialect the engines speak, and the save-time checks catch fields that do not fit together."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.vocabulary import PREDICATES, ColumnRef, Dialect, engine_metric, metric_problems, row_metric
from dq_engine.vocabulary.expressions import CATEGORIES, DATE, NUMERIC, STRING, TIMESTAMP

# A column each predicate accepts, and fields it can build with. A new predicate needs a row here.
SAMPLES = {
    "null_or_empty": (STRING, {}),
    "regexp_mismatch": (STRING, {"pattern": r"^[\w.]+@x\.com$"}),
    "not_in_list_or_null": (NUMERIC, {"values": [1, "2", 2.5]}),
    "length_compare": (STRING, {"operator": "<>", "length": 3}),
    "time_between": (TIMESTAMP, {"begin": "2026-11-01 00:00:00", "end": "2026-11-30 23:59:59", "format": None}),
    "outside_range": (DATE, {"min": "2026-01-01", "max": None}),
}
TYPES = {STRING: "text", NUMERIC: "decimal(10,2)", DATE: "date", TIMESTAMP: "timestamp"}
DIALECTS = ("spark", "postgres", "mysql", "duckdb")


def _column(category: str) -> ColumnRef:
    return ColumnRef(
        "Ünïcode `col`", category, exp.DataType.build(TYPES.get(category, "text")), TYPES.get(category, "")
    )


def test_every_predicate_has_a_sample_here():
    assert set(SAMPLES) == set(PREDICATES), "add the new predicate's sample column and fields to SAMPLES"


@pytest.mark.parametrize("predicate", sorted(PREDICATES))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_predicate_renders_as_a_condition_each_dialect_parses_back(predicate, dialect):
    category, fields = SAMPLES[predicate]
    metric = row_metric("conditional_count", _column(category), {"predicate": predicate, **fields}, Dialect())

    for expression in (metric.predicate, metric.aggregate):
        sql = expression.sql(dialect=dialect)
        reparsed = sqlglot.parse_one(sql, read=dialect)
        assert reparsed.sql(dialect=dialect) == sql, sql
    assert "Ünïcode" in metric.predicate.sql(dialect=dialect)  # the column, quoted, not lost


def test_a_user_value_is_a_literal_never_sql_text():
    evil = "x') OR 1=1 --"
    metric = row_metric(
        "conditional_count", _column(STRING), {"predicate": "not_in_list_or_null", "values": [evil]}, Dialect()
    )
    literals = [node.this for node in metric.predicate.find_all(exp.Literal) if node.is_string]
    assert literals == [evil]
    for dialect in DIALECTS:
        reparsed = sqlglot.parse_one(metric.predicate.sql(dialect=dialect), read=dialect)
        assert [n.this for n in reparsed.find_all(exp.Literal) if n.is_string] == [evil]


def test_a_predicate_refuses_a_column_type_it_cannot_judge_with_the_reason():
    with pytest.raises(CheckError, match="holds boolean values; a value range needs a numeric, date or timestamp"):
        row_metric(
            "conditional_count",
            ColumnRef("flag", "boolean", exp.DataType.build("boolean"), "boolean"),
            {"predicate": "outside_range", "min": 0, "max": 1},
            Dialect(),
        )
    assert "boolean" in CATEGORIES


def test_a_template_definition_with_a_checks_params_becomes_the_specs_metric():
    regexp = {
        "kind": "conditional_count",
        "predicate": "regexp_mismatch",
        "column_param": "src_field",
        "pattern_param": "regexp_pattern",
    }
    accuracy = {"kind": "unmatched_rows", "mapping_param": "mapping_columns"}
    custom = {"kind": "custom_sql", "sql_param": "statistics_execute_sql", "name_param": "statistics_name"}
    params = {
        "src_field": "email",
        "regexp_pattern": r"\d",
        "mapping_columns": [{"src_field": "a", "operator": "<=>", "target_field": "b"}],
        "statistics_execute_sql": "SELECT 1",
        "statistics_name": "ones",
    }

    assert engine_metric(regexp, params) == {
        "kind": "conditional_count",
        "predicate": "regexp_mismatch",
        "column": "email",
        "pattern": r"\d",
    }
    assert engine_metric(accuracy, params) == {
        "kind": "unmatched_rows",
        "mappings": [{"source": "a", "operator": "<=>", "target": "b"}],
    }
    assert engine_metric(custom, params) == {"kind": "custom_sql", "sql": "SELECT 1"}  # the name is the platform's


def test_fields_that_do_not_fit_together_are_named_by_the_param_that_feeds_them():
    window = {
        "kind": "conditional_count",
        "predicate": "time_between",
        "column_param": "src_field",
        "begin_param": "begin_time",
        "end_param": "deadline",
        "format_param": "datetime_format",
    }
    bounds = {
        "kind": "conditional_count",
        "predicate": "outside_range",
        "column_param": "src_field",
        "min_param": "min_value",
        "max_param": "max_value",
    }

    late = {"begin_time": "2026-11-30 00:00:00", "deadline": "2026-11-01 00:00:00"}
    assert metric_problems(window, late) == {"deadline": "The window end must not be before its start."}
    assert metric_problems(bounds, {"min_value": 5, "max_value": 1}) == {
        "max_value": "The maximum must not be below the minimum."
    }
    assert metric_problems(bounds, {}) == {"min_value": "Give a minimum, a maximum, or both."}
    assert metric_problems(bounds, {"min_value": 1, "max_value": 1}) == {}
