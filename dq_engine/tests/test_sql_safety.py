"""User SQL for checks: filters must be one boolean expression, statistic queries one read-only SELECT.

No Spark here: these tests pin what is refused and what the engine would run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from dq_engine.sql_safety import (
    ALLOWED_FUNCTIONS,
    ParsedSelect,
    UnsafeSQL,
    batch_aggregate,
    filter_to_spark_sql,
    parse_filter,
    parse_select,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
BOTH = ("src_table", "target_table")
VIEWS = {"src_table": "dq_src_1", "target_table": "dq_target_1"}


@pytest.fixture(autouse=True)
def _fast_password_hashing():
    """Shadow the root conftest's autouse fixture of this name, which needs pytest-django's `settings`.

    Nothing here touches Django, so the module also runs with `pytest -p no:django`.
    """
    yield


def render_filter(text: str, columns=None) -> str:
    return filter_to_spark_sql(parse_filter(text, columns))


# --------------------------------------------------------------------------------------------------
# Filters that are accepted, and how they are rendered for Spark
# --------------------------------------------------------------------------------------------------


def test_it_accepts_a_simple_filter_and_quotes_its_columns_for_spark():
    sql = render_filter("status = 'paid' AND created_at >= '2026-01-01'")

    assert sql == "`status` = 'paid' AND `created_at` >= '2026-01-01'"


def test_it_returns_the_parsed_expression_of_a_filter():
    expr = parse_filter("amount > 0")

    assert isinstance(expr, exp.GT)
    assert expr.this.name == "amount"


def test_it_quotes_a_unicode_column_name_with_spaces():
    sql = render_filter("`Ünïcode note` = 'é'", columns=["Ünïcode note"])

    assert sql == "`Ünïcode note` = 'é'"


def test_it_quotes_a_column_named_like_a_keyword():
    assert render_filter("`select` = 1") == "`select` = 1"


def test_it_doubles_a_backtick_inside_a_column_name():
    assert render_filter("`odd``name` = 1") == "`odd``name` = 1"


@pytest.mark.parametrize(
    "text",
    [
        "a = 1 OR b <> 2",
        "NOT (a = 1)",
        "a IN (1, 2, 3)",
        "a NOT IN ('x', 'y')",
        "a BETWEEN 1 AND 10",
        "a IS NULL",
        "a IS NOT NULL",
        "a <=> b",
        "name LIKE 'A%'",
        "name NOT LIKE 'A%'",
        "name ILIKE 'a%'",
        "name RLIKE '^[0-9]+$'",
        "name REGEXP '^[0-9]+$'",
        "TRUE",
        "false",
        "isnotnull(a)",
        "array_contains(tags, 'vip')",
        "starts_with(name, 'A')",
        "exists(tags, t -> t = 'vip')",
        "CASE WHEN a > 1 THEN true ELSE false END",
        "coalesce(a = 1, false)",
        "(a = 1)",
        "length(trim(name)) > 0 AND upper(code) = 'X'",
    ],
)
def test_it_accepts_common_boolean_filters(text):
    expr = parse_filter(text)

    assert filter_to_spark_sql(expr)


def test_it_renders_rlike_and_regexp_both_as_rlike():
    assert render_filter("a RLIKE 'x' AND b REGEXP 'y'") == "`a` RLIKE 'x' AND `b` RLIKE 'y'"


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("it\\'s", "it's"),
        ("back\\\\slash", "back\\slash"),
        ("new\\nline", "new\nline"),
        ("ünï 😀", "ünï 😀"),
        ("--", "--"),
        ("/* not a comment */", "/* not a comment */"),
        ("x\\' OR \\'1\\'=\\'1", "x' OR '1'='1"),
    ],
)
def test_it_renders_string_literals_that_spark_reads_back_as_the_same_value(literal, value):
    expr = parse_filter(f"note = '{literal}'")

    again = sqlglot.parse_one(filter_to_spark_sql(expr), read="spark")

    assert expr.expression.this == value
    assert isinstance(again, exp.EQ)
    assert again.expression.this == value


def test_it_drops_a_trailing_line_comment():
    assert render_filter("1=1 -- '") == "1 = 1"


def test_it_drops_a_block_comment():
    assert render_filter("a = 1 /* ' OR 1=1 */") == "`a` = 1"


def test_it_does_not_let_a_comment_smuggle_a_statement_into_the_rendering():
    sql = render_filter("a = 1 -- */ DROP TABLE x")

    assert sql == "`a` = 1"


def test_it_removes_comments_from_the_returned_expression():
    expr = parse_filter("a = 1 /* hidden */ AND b = 2 -- tail")

    assert all(not node.comments for node in expr.walk())


def test_it_accepts_a_trailing_semicolon():
    assert render_filter("a = 1;") == "`a` = 1"


# --------------------------------------------------------------------------------------------------
# Filters that are refused
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_it_rejects_an_empty_filter(text):
    with pytest.raises(UnsafeSQL, match="The filter is empty"):
        parse_filter(text)


@pytest.mark.parametrize("text", ["/* */", "-- nothing", ";"])
def test_it_rejects_a_filter_that_is_only_comments(text):
    with pytest.raises(UnsafeSQL, match="empty"):
        parse_filter(text)


def test_it_rejects_a_filter_followed_by_a_second_statement():
    with pytest.raises(UnsafeSQL) as refused:
        parse_filter("1=1; DROP TABLE x")

    assert str(refused.value) == "The filter must be a single boolean expression; found 2 statements."


def test_it_rejects_a_filter_with_an_in_subquery():
    with pytest.raises(UnsafeSQL, match="cannot contain a subquery"):
        parse_filter("id IN (SELECT id FROM t)")


def test_it_rejects_a_filter_with_exists_subquery():
    with pytest.raises(UnsafeSQL, match="cannot contain a subquery"):
        parse_filter("EXISTS (SELECT 1)")


def test_it_rejects_a_filter_with_a_scalar_subquery():
    with pytest.raises(UnsafeSQL, match="cannot contain a subquery"):
        parse_filter("amount > (SELECT avg(amount) FROM orders)")


def test_it_rejects_a_filter_with_an_inline_values_table():
    with pytest.raises(UnsafeSQL, match="cannot contain a subquery"):
        parse_filter("a IN (VALUES 1)")


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        ("DELETE FROM x", "a DELETE statement"),
        ("DROP TABLE x", "a DROP statement"),
        ("INSERT INTO x VALUES (1)", "an INSERT statement"),
        ("INSERT OVERWRITE TABLE x SELECT 1", "an INSERT statement"),
        ("UPDATE x SET a = 1", "an UPDATE statement"),
        ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "a MERGE statement"),
        ("CREATE TABLE x (a INT)", "a CREATE statement"),
        ("ALTER TABLE x ADD COLUMNS (b INT)", "an ALTER statement"),
        ("TRUNCATE TABLE x", "a TRUNCATE statement"),
        ("SET spark.sql.ansi.enabled = false", "a SET statement"),
        ("USE other_db", "a USE statement"),
        ("GRANT SELECT ON x TO y", "a GRANT statement"),
        ("CALL system.rollback()", "a CALL statement"),
        ("LOAD DATA INPATH '/etc/passwd' INTO TABLE t", "a LOAD DATA statement"),
        ("CACHE TABLE x", "a CACHE statement"),
        ("REFRESH TABLE x", "a REFRESH statement"),
        ("ADD JAR '/tmp/evil.jar'", "an ADD JAR statement"),
        ("SELECT 1", "a SELECT statement"),
        ("WITH c AS (SELECT 1) SELECT * FROM c", "a SELECT statement"),
    ],
)
def test_it_rejects_a_statement_given_as_a_filter(text, keyword):
    with pytest.raises(UnsafeSQL) as refused:
        parse_filter(text)

    assert str(refused.value) == f"The filter must be a single boolean expression; found {keyword}."


def test_it_rejects_a_filter_that_calls_reflect():
    with pytest.raises(UnsafeSQL, match=r"function `reflect` is not allowed in the filter"):
        parse_filter("reflect('java.lang.Runtime','exec','rm')")


@pytest.mark.parametrize(
    "text",
    [
        "a = reflect('java.lang.Runtime', 'getRuntime')",
        "a = REFLECT('x', 'y')",
        "a = `reflect`('x', 'y')",
        "a = java_method('java.lang.System', 'getenv', 'HOME')",
        "a = try_reflect('x', 'y')",
        "a = input_file_name()",
        "a = current_user()",
        "a = current_user",
        "a = session_user()",
        "a = user()",
        "a = current_database()",
        "a = version()",
        "a = secret('scope', 'key')",
        "a = identifier('other_column')",
    ],
)
def test_it_rejects_a_filter_calling_a_function_off_the_allow_list(text):
    with pytest.raises(UnsafeSQL, match="is not allowed in the filter"):
        parse_filter(text)


def test_it_rejects_a_catalog_qualified_function_call():
    with pytest.raises(UnsafeSQL, match="plain name"):
        parse_filter("system.builtin.reflect('a', 'b') = 1")


def test_it_rejects_a_call_to_a_function_stored_in_a_database():
    with pytest.raises(UnsafeSQL, match="plain name"):
        parse_filter("mydb.my_udf(a) = 1")


def test_it_keeps_reflection_file_and_generator_functions_off_the_allow_list():
    outside = {"reflect", "java_method", "try_reflect", "input_file_name", "current_user", "from_xml", "xpath"}
    generators = {"explode", "posexplode", "inline", "stack", "sequence", "range", "array_repeat", "repeat"}

    assert not (outside | generators) & ALLOWED_FUNCTIONS


def test_it_rejects_a_bare_number_as_a_filter():
    with pytest.raises(UnsafeSQL) as refused:
        parse_filter("1")

    assert "true or false for each row" in str(refused.value)
    assert "found the number 1" in str(refused.value)


def test_it_rejects_a_bare_string_as_a_filter():
    with pytest.raises(UnsafeSQL, match="found the text 'x'"):
        parse_filter("'x'")


def test_it_rejects_a_bare_column_as_a_filter_and_suggests_a_comparison():
    with pytest.raises(UnsafeSQL, match="is_active = true"):
        parse_filter("is_active")


@pytest.mark.parametrize(
    "text", ["a + 1", "NULL", "upper(name)", "CAST(a AS INT)", "CASE WHEN a > 1 THEN 1 ELSE 0 END"]
)
def test_it_rejects_a_filter_that_is_not_a_condition(text):
    with pytest.raises(UnsafeSQL, match="must be a condition"):
        parse_filter(text)


@pytest.mark.parametrize("text", ["count(*) > 0", "sum(amount) > 10", "row_number() OVER (ORDER BY a) = 1"])
def test_it_rejects_a_filter_with_an_aggregate_or_window_function(text):
    with pytest.raises(UnsafeSQL, match="one row at a time"):
        parse_filter(text)


def test_it_rejects_a_filter_that_names_a_table_through_a_lateral_subquery():
    with pytest.raises(UnsafeSQL, match="subquery"):
        parse_filter("a IN (SELECT * FROM parquet.`/etc/passwd`)")


@pytest.mark.parametrize("text", ["a = ${src_table}", "a = '${env:HOME}'", "a = '${spark.sql.warehouse.dir}'"])
def test_it_rejects_dollar_brace_in_a_filter_because_spark_substitutes_it(text):
    with pytest.raises(UnsafeSQL, match=r"'\$\{'"):
        parse_filter(text)


def test_it_rejects_an_escaped_dollar_brace_that_would_render_as_a_substitution():
    with pytest.raises(UnsafeSQL, match="not even in quotes"):
        parse_filter("a = '$\\{env:AWS_SECRET_ACCESS_KEY}'")


@pytest.mark.parametrize("text", ["a = :x", "a = ?", "a = @x"])
def test_it_rejects_a_filter_with_parameters(text):
    with pytest.raises(UnsafeSQL, match="parameters"):
        parse_filter(text)


def test_it_reports_a_syntax_error_without_sqlglot_internals():
    with pytest.raises(UnsafeSQL) as refused:
        parse_filter("a = 1 AND")

    message = str(refused.value)
    assert message.startswith("The filter could not be read:")
    assert "line 1, column 9" in message
    assert "sqlglot" not in message
    assert "\x1b" not in message


def test_it_reports_an_unexpected_word():
    with pytest.raises(UnsafeSQL, match="unexpected 'LIMIT'"):
        parse_filter("a = 1 LIMIT 1")


def test_it_reports_an_unclosed_quote():
    with pytest.raises(UnsafeSQL, match="a ' is not closed"):
        parse_filter("a = 'paid")


def test_it_reports_an_unclosed_comment():
    with pytest.raises(UnsafeSQL, match="could not be read"):
        parse_filter("a = 1 /* open")


def test_it_rejects_a_filter_nested_too_deeply():
    with pytest.raises(UnsafeSQL, match="nested too deeply"):
        parse_filter("(" * 3000 + "a = 1" + ")" * 3000)


def test_it_rejects_a_filter_that_is_too_long():
    with pytest.raises(UnsafeSQL, match="too long"):
        parse_filter("a = 1 OR " * 20_000 + "a = 1")


# --------------------------------------------------------------------------------------------------
# Filters checked against the table's columns
# --------------------------------------------------------------------------------------------------


def test_it_accepts_known_columns_in_any_case():
    sql = render_filter("STATUS = 'paid' AND Amount > 0", columns=["status", "amount"])

    assert sql == "`STATUS` = 'paid' AND `Amount` > 0"


def test_it_rejects_an_unknown_column_and_lists_known_ones():
    with pytest.raises(UnsafeSQL) as refused:
        parse_filter("stauts = 'paid'", columns=["id", "status", "amount"])

    assert str(refused.value) == "Unknown column in the filter: stauts. Known columns include: id, status, amount."


def test_it_lists_every_unknown_column_once():
    with pytest.raises(UnsafeSQL) as refused:
        parse_filter("foo = 1 AND bar = 2 AND foo = 3", columns=["id"])

    assert "Unknown columns in the filter: foo, bar." in str(refused.value)


def test_it_shows_only_a_few_known_columns_when_the_table_is_wide():
    columns = [f"col_{i}" for i in range(20)]

    with pytest.raises(UnsafeSQL) as refused:
        parse_filter("nope = 1", columns=columns)

    assert "col_0, col_1" in str(refused.value)
    assert "and 12 more" in str(refused.value)
    assert "col_19" not in str(refused.value)


def test_it_rejects_a_column_qualified_by_a_table_name_the_row_does_not_have():
    with pytest.raises(UnsafeSQL, match=r"Unknown column in the filter: orders\.status"):
        parse_filter("orders.status = 'paid'", columns=["status"])


def test_it_accepts_a_struct_field_of_a_known_column():
    assert render_filter("address.city = 'Paris'", columns=["address"]) == "`address`.`city` = 'Paris'"


def test_it_does_not_treat_lambda_variables_as_columns():
    assert parse_filter("exists(tags, t -> t = 'vip')", columns=["tags"])


def test_it_accepts_a_column_named_user_when_the_table_has_one():
    assert render_filter("user = 'ann'", columns=["user"]) == "`user` = 'ann'"


def test_it_rejects_a_bare_user_name_when_the_columns_are_unknown():
    with pytest.raises(UnsafeSQL, match="session function"):
        parse_filter("user = 'ann'")


def test_it_accepts_a_generator_of_column_names():
    assert parse_filter("a = 1", columns=(name for name in ["a"]))


def test_it_refuses_a_single_string_as_the_column_list():
    with pytest.raises(TypeError):
        parse_filter("a = 1", columns="a")


# --------------------------------------------------------------------------------------------------
# Statistic queries that are accepted, and their binding to Spark views
# --------------------------------------------------------------------------------------------------


def test_it_accepts_a_custom_statistic_and_binds_the_source_view():
    parsed = parse_select("SELECT count(*) AS bad FROM ${src_table} WHERE amount < 0")

    assert isinstance(parsed, ParsedSelect)
    assert parsed.tables_used == {"src_table"}
    assert parsed.output_name == "bad"
    assert parsed.to_spark_sql(VIEWS) == "SELECT COUNT(*) AS `bad` FROM `dq_src_1` WHERE `amount` < 0"


def test_it_quotes_any_view_name_it_is_given():
    parsed = parse_select("SELECT count(*) FROM ${src_table}")

    assert parsed.to_spark_sql({"src_table": "odd`view name"}) == "SELECT COUNT(*) FROM `odd``view name`"


def test_it_binds_a_placeholder_used_as_a_column_qualifier():
    parsed = parse_select("SELECT count(*) FROM ${src_table} WHERE ${src_table}.amount < 0")

    assert parsed.to_spark_sql(VIEWS) == "SELECT COUNT(*) FROM `dq_src_1` WHERE `dq_src_1`.`amount` < 0"


def test_it_accepts_a_placeholder_with_spaces_inside_the_braces():
    assert parse_select("SELECT count(*) FROM ${ src_table }").tables_used == {"src_table"}


def test_it_has_no_output_name_when_spark_would_invent_one():
    assert parse_select("SELECT count(*) FROM ${src_table}").output_name is None


def test_it_names_the_output_after_a_plain_column():
    assert parse_select("SELECT n FROM (SELECT count(*) AS n FROM ${src_table})").output_name == "n"


def test_it_accepts_a_cte_over_the_placeholder():
    parsed = parse_select("WITH neg AS (SELECT * FROM ${src_table} WHERE amount < 0) SELECT count(*) AS n FROM neg")

    assert parsed.output_name == "n"
    assert parsed.to_spark_sql(VIEWS) == (
        "WITH `neg` AS (SELECT * FROM `dq_src_1` WHERE `amount` < 0) SELECT COUNT(*) AS `n` FROM `neg`"
    )


def test_it_accepts_a_cte_that_reads_an_earlier_cte():
    parsed = parse_select(
        "WITH a AS (SELECT * FROM ${src_table}), b AS (SELECT * FROM a WHERE x > 0) SELECT count(*) FROM b"
    )

    assert parsed.tables_used == {"src_table"}


def test_it_accepts_a_subquery_over_the_placeholder():
    parsed = parse_select(
        "SELECT count(*) FROM ${src_table} s WHERE s.id IN (SELECT id FROM ${src_table} WHERE amount > 100)"
    )

    assert parsed.to_spark_sql(VIEWS) == (
        "SELECT COUNT(*) FROM `dq_src_1` AS `s` WHERE `s`.`id` IN (SELECT `id` FROM `dq_src_1` WHERE `amount` > 100)"
    )


def test_it_accepts_a_union_of_selects_with_one_column_each():
    parsed = parse_select("SELECT count(*) AS n FROM ${src_table} UNION ALL SELECT count(*) FROM ${src_table}")

    assert parsed.output_name == "n"


def test_it_accepts_a_parenthesised_select():
    assert parse_select("(SELECT max(amount) AS m FROM ${src_table})").output_name == "m"


def test_it_accepts_both_placeholders_when_the_comparison_allows_them():
    parsed = parse_select(
        "SELECT count(*) FROM ${src_table} s JOIN ${target_table} t ON s.id = t.id",
        placeholders=BOTH,
    )

    assert parsed.tables_used == {"src_table", "target_table"}
    assert parsed.to_spark_sql(VIEWS) == (
        "SELECT COUNT(*) FROM `dq_src_1` AS `s` JOIN `dq_target_1` AS `t` ON `s`.`id` = `t`.`id`"
    )


def test_it_accepts_a_query_over_the_target_table_alone_when_allowed():
    parsed = parse_select("SELECT count(*) FROM ${target_table}", placeholders=BOTH)

    assert parsed.tables_used == {"target_table"}
    assert parsed.to_spark_sql({"target_table": "v"}) == "SELECT COUNT(*) FROM `v`"


def test_it_accepts_placeholders_given_as_a_mapping():
    parsed = parse_select("SELECT count(*) FROM ${target_table}", placeholders={"target_table": "the target table"})

    assert parsed.tables_used == {"target_table"}


def test_it_drops_optimizer_hints_and_comments():
    parsed = parse_select("SELECT /*+ BROADCAST(t) */ count(*) -- tail\nFROM ${src_table} t /* note */")

    assert parsed.to_spark_sql(VIEWS) == "SELECT COUNT(*) FROM `dq_src_1` AS `t`"


def test_it_keeps_user_text_out_of_the_view_binding():
    parsed = parse_select("SELECT count(*) FROM `${src_table}`")

    assert parsed.to_spark_sql(VIEWS) == "SELECT COUNT(*) FROM `dq_src_1`"


def test_it_rejects_a_lateral_view_because_explode_generates_rows():
    with pytest.raises(UnsafeSQL, match="function `explode` is not allowed in the query"):
        parse_select("SELECT count(*) FROM ${src_table} LATERAL VIEW explode(tags) e AS tag WHERE tag = 'x'")


def test_it_renders_the_same_query_twice_without_changing_the_parsed_tree():
    parsed = parse_select("SELECT count(*) FROM ${src_table}")

    first = parsed.to_spark_sql({"src_table": "a"})
    second = parsed.to_spark_sql({"src_table": "b"})

    assert (first, second) == ("SELECT COUNT(*) FROM `a`", "SELECT COUNT(*) FROM `b`")


def test_it_requires_a_view_name_for_every_placeholder_used():
    parsed = parse_select("SELECT count(*) FROM ${src_table} JOIN ${target_table} USING (id)", placeholders=BOTH)

    with pytest.raises(ValueError, match="target_table"):
        parsed.to_spark_sql({"src_table": "v"})


def test_it_is_frozen():
    parsed = parse_select("SELECT count(*) FROM ${src_table}")

    with pytest.raises(AttributeError):
        parsed.output_name = "other"  # type: ignore[misc]


# --------------------------------------------------------------------------------------------------
# Statistic queries that are refused
# --------------------------------------------------------------------------------------------------


def test_it_rejects_a_delete_as_a_statistic():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("DELETE FROM ${src_table}")

    assert str(refused.value) == "The query must be a single SELECT statement; found a DELETE statement."


def test_it_rejects_a_select_followed_by_a_drop():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT 1; DROP TABLE x")

    assert str(refused.value) == "The query must be a single SELECT statement; found 2 statements."


def test_it_rejects_a_group_by_that_names_nothing_because_spark_would():
    """This was saved, then failed at every run with Spark's parse error."""
    with pytest.raises(UnsafeSQL, match="GROUP BY names nothing to group by"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE amount < 0 GROUP BY")
    for grouped in ("GROUP BY amount", "GROUP BY ALL", "GROUP BY ROLLUP (amount)"):
        assert parse_select(f"SELECT count(*) FROM ${{src_table}} {grouped}").tables_used == {"src_table"}


def test_it_rejects_select_star():
    with pytest.raises(UnsafeSQL, match="must return exactly one numeric column; found SELECT \\*"):
        parse_select("SELECT * FROM ${src_table}")


def test_it_rejects_a_qualified_star():
    with pytest.raises(UnsafeSQL, match="exactly one numeric column"):
        parse_select("SELECT t.* FROM ${src_table} t")


def test_it_rejects_two_output_columns():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT count(*), max(amount) FROM ${src_table}")

    assert str(refused.value) == (
        "The query must return exactly one numeric column; found 2 columns (COUNT(*), MAX(amount))."
    )


def test_it_rejects_a_union_whose_second_part_has_two_columns():
    with pytest.raises(UnsafeSQL, match="2 columns"):
        parse_select("SELECT count(*) FROM ${src_table} UNION ALL SELECT 1, 2 FROM ${src_table}")


def test_it_rejects_a_generator_that_returns_several_columns():
    with pytest.raises(UnsafeSQL, match="function `posexplode` is not allowed"):
        parse_select("SELECT posexplode(tags) FROM ${src_table}")


def test_it_rejects_a_real_table_name_instead_of_the_placeholder():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT count(*) FROM orders")

    assert str(refused.value) == "Name the table as ${src_table}; found orders."


def test_it_rejects_a_real_table_joined_to_the_placeholder():
    with pytest.raises(UnsafeSQL, match="found sales.orders"):
        parse_select("SELECT count(*) FROM ${src_table} s JOIN sales.orders o ON s.id = o.id")


def test_it_rejects_a_real_table_in_a_subquery():
    with pytest.raises(UnsafeSQL, match="found secrets"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE id IN (SELECT id FROM secrets)")


def test_it_rejects_a_file_read_through_a_path_table():
    with pytest.raises(UnsafeSQL, match="Name the table"):
        parse_select("SELECT count(*) FROM json.`file:///etc/passwd`")


def test_it_rejects_a_table_valued_function():
    with pytest.raises(UnsafeSQL, match=r"function `range` is not allowed"):
        parse_select("SELECT count(*) FROM range(10)")


def test_it_rejects_identifier_used_to_name_a_table():
    with pytest.raises(UnsafeSQL, match=r"function `identifier` is not allowed"):
        parse_select("SELECT count(*) FROM IDENTIFIER('orders')")


def test_it_rejects_a_placeholder_qualified_by_a_database():
    with pytest.raises(UnsafeSQL, match=r"found db\.\$\{src_table\}"):
        parse_select("SELECT count(*) FROM db.${src_table}")


def test_it_rejects_a_placeholder_glued_to_other_text():
    with pytest.raises(UnsafeSQL, match=r"found \$\{src_table\}_old"):
        parse_select("SELECT count(*) FROM ${src_table}_old")


def test_it_rejects_a_cte_that_reads_a_later_cte_because_spark_would_read_a_real_table():
    with pytest.raises(UnsafeSQL, match="found b"):
        parse_select("WITH a AS (SELECT * FROM b), b AS (SELECT * FROM ${src_table}) SELECT count(*) FROM a")


def test_it_rejects_a_cte_name_used_outside_its_scope():
    with pytest.raises(UnsafeSQL, match="found c"):
        parse_select("SELECT count(*) FROM (WITH c AS (SELECT 1 AS x FROM ${src_table}) SELECT * FROM c) s, c")


def test_it_rejects_a_non_recursive_cte_that_reads_itself():
    with pytest.raises(UnsafeSQL, match="found a"):
        parse_select("WITH a AS (SELECT * FROM a) SELECT count(*) FROM a, ${src_table}")


def test_it_rejects_an_unknown_placeholder_naming_it():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT count(*) FROM ${other}")

    assert str(refused.value) == "Unknown placeholder ${other}; the query can only name ${src_table}."


def test_it_rejects_an_unknown_placeholder_even_inside_a_string_or_comment():
    with pytest.raises(UnsafeSQL, match=r"\$\{env:HOME\}"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE note = '${env:HOME}'")
    with pytest.raises(UnsafeSQL, match=r"\$\{x\}"):
        parse_select("SELECT count(*) FROM ${src_table} -- ${x}")


def test_it_rejects_the_target_table_when_only_the_source_is_allowed():
    with pytest.raises(UnsafeSQL, match=r"Unknown placeholder \$\{target_table\}"):
        parse_select("SELECT count(*) FROM ${target_table}")


def test_it_names_both_placeholders_when_a_comparison_query_uses_a_real_table():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT count(*) FROM orders", placeholders=BOTH)

    assert str(refused.value) == "Name the tables as ${src_table} or ${target_table}; found orders."


def test_it_rejects_an_unfinished_placeholder():
    with pytest.raises(UnsafeSQL, match="unfinished placeholder"):
        parse_select("SELECT count(*) FROM ${src_table")


def test_it_rejects_a_placeholder_inside_a_string():
    with pytest.raises(UnsafeSQL, match="inside a quoted string"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE note = '${src_table}'")


def test_it_rejects_a_placeholder_used_as_a_column():
    with pytest.raises(UnsafeSQL, match="can only name a table"):
        parse_select("SELECT max(${src_table}) FROM ${src_table}")


def test_it_rejects_a_placeholder_used_as_a_cte_name():
    with pytest.raises(UnsafeSQL, match="can only name a table"):
        parse_select("WITH ${src_table} AS (SELECT 1) SELECT count(*) FROM ${src_table}")


def test_it_rejects_the_reserved_sentinel_text():
    with pytest.raises(UnsafeSQL, match="reserved"):
        parse_select("SELECT count(*) FROM __dq_placeholder_src_table__")


def test_it_rejects_a_query_that_reads_no_placeholder():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT 1")

    assert str(refused.value) == "The query must read ${src_table}."


@pytest.mark.parametrize(
    "text",
    [
        "INSERT OVERWRITE TABLE t SELECT count(*) FROM ${src_table}",
        "INSERT OVERWRITE DIRECTORY '/tmp/out' SELECT count(*) FROM ${src_table}",
        "INSERT INTO t SELECT count(*) FROM ${src_table}",
        "WITH x AS (SELECT count(*) AS n FROM ${src_table}) INSERT INTO t SELECT n FROM x",
        "FROM ${src_table} INSERT INTO x SELECT count(*)",
        "CREATE TABLE t AS SELECT count(*) FROM ${src_table}",
        "CACHE TABLE t AS SELECT count(*) FROM ${src_table}",
        "UPDATE ${src_table} SET amount = 0",
        "MERGE INTO ${src_table} t USING ${src_table} s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "DROP TABLE ${src_table}",
        "TRUNCATE TABLE ${src_table}",
        "EXPLAIN SELECT count(*) FROM ${src_table}",
        "SET x = 1",
    ],
)
def test_it_rejects_writes_ddl_and_commands_as_a_statistic(text):
    with pytest.raises(UnsafeSQL, match="must be a single SELECT statement; found"):
        parse_select(text)


def test_it_rejects_select_into():
    with pytest.raises(UnsafeSQL, match="INTO"):
        parse_select("SELECT count(*) INTO t FROM ${src_table}")


def test_it_rejects_a_script_transform():
    with pytest.raises(UnsafeSQL, match="external program"):
        parse_select("SELECT TRANSFORM(a) USING '/bin/sh -c id' AS (b) FROM ${src_table}")


@pytest.mark.parametrize(
    "text",
    [
        "SELECT count(*) FROM ${src_table} WHERE reflect('java.lang.Thread', 'sleep', 100000L) IS NULL",
        "SELECT max(length(java_method('java.lang.System', 'getenv', 'HOME'))) FROM ${src_table}",
        "SELECT count(DISTINCT input_file_name()) FROM ${src_table}",
        "SELECT length(current_user()) FROM ${src_table}",
    ],
)
def test_it_rejects_a_statistic_calling_a_function_off_the_allow_list(text):
    with pytest.raises(UnsafeSQL, match="is not allowed in the query"):
        parse_select(text)


@pytest.mark.parametrize(
    ("text", "function"),
    [
        (  # the reported SSRF: the worker fetched the XSD from a URL
            "SELECT count(*) FROM ${src_table} WHERE from_xml(note, 'a INT', "
            "map('rowValidationXSDPath', 'http://127.0.0.1:8000/x.xsd')) IS NULL",
            "from_xml",
        ),
        (  # a file: probe told whether a file exists
            "SELECT count(from_xml(note, 'a INT', map('rowValidationXSDPath', 'file:///etc/shadow'))) "
            "FROM ${src_table}",
            "from_xml",
        ),
        ("SELECT count(*) FROM (SELECT explode(sequence(1, 100000000)) AS n FROM ${src_table})", "explode"),
        ("SELECT size(sequence(1, 100000000)) FROM ${src_table}", "sequence"),
        ("SELECT max(reflect('java.lang.Thread', 'sleep', 100000L)) FROM ${src_table}", "reflect"),
        ("SELECT max(java_method('java.lang.System', 'getenv', 'HOME')) FROM ${src_table}", "java_method"),
        ("SELECT count(xpath_string(note, '/a')) FROM ${src_table}", "xpath_string"),
        ("SELECT count(*) FROM ${src_table} WHERE input_file_name() LIKE '%secret%'", "input_file_name"),
        ("SELECT count(*) FROM (SELECT stack(2, 1, 2) FROM ${src_table})", "stack"),
        ("SELECT count(*) FROM (SELECT inline(array(struct(1))) FROM ${src_table})", "inline"),
        ("SELECT length(repeat('x', 2000000000)) FROM ${src_table}", "repeat"),
        ("SELECT count(*) FROM ${src_table} WHERE my_udf(amount) > 0", "my_udf"),
    ],
)
def test_custom_sql_may_call_only_functions_on_the_allow_list(text, function):
    with pytest.raises(UnsafeSQL) as refused:
        parse_select(text)

    assert str(refused.value).startswith(f"function `{function}` is not allowed in the query")


@pytest.mark.parametrize(
    "text",
    [
        "from_xml(note, 'a INT', map('rowValidationXSDPath', 'file:///etc/passwd')) IS NULL",
        "size(sequence(1, 100000000)) > 0",
        "java_method('java.lang.System', 'getenv', 'HOME') IS NULL",
    ],
)
def test_a_filter_may_call_only_functions_on_the_allow_list(text):
    with pytest.raises(UnsafeSQL, match="is not allowed in the filter"):
        parse_filter(text)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT count(*) FROM ${src_table} WHERE upper(coalesce(status, 'x')) = 'PAID'",
        "SELECT count(DISTINCT date_trunc('month', created_at)) FROM ${src_table}",
        "SELECT sum(amount) / count(*) FROM ${src_table}",
        "SELECT max(n) FROM (SELECT row_number() OVER (PARTITION BY id ORDER BY ts) AS n FROM ${src_table})",
        "SELECT count_if(abs(round(amount, 2)) > 10 AND year(to_date(day)) = 2026) FROM ${src_table}",
        "SELECT percentile_approx(amount, 0.5) FROM ${src_table}",
        "SELECT count(*) FROM ${src_table} WHERE datediff(current_date(), created_at) > 30",
        "SELECT count(*) FROM ${src_table} WHERE nvl(trim(name), '') = '' OR substr(code, 1, 2) = 'XX'",
        "SELECT avg(lag(amount) OVER (ORDER BY ts)) FROM ${src_table}",
        "SELECT count(*) FROM ${src_table} WHERE CAST(amount AS DECIMAL(10, 2)) > 0",
        "SELECT count(*) FROM ${src_table} WHERE CASE WHEN a > 1 THEN true ELSE false END",
        "SELECT count(*) FROM ${src_table} WHERE exists(tags, t -> t = 'vip')",
    ],
)
def test_ordinary_pure_functions_are_still_accepted_in_custom_sql(text):
    sql = parse_select(text).to_spark_sql(VIEWS)

    assert "dq_src_1" in sql


@pytest.mark.parametrize(
    "expression",
    [
        "to_timestamp(a, 'yyyy-MM-dd')",
        "CAST(a AS VARCHAR(10))",
        "extract(year FROM d)",
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY a)",
        "first(a) IGNORE NULLS",
        "transform(arr, x -> x + 1)",
        "aggregate(arr, 0, (acc, x) -> acc + x)",
        "sum(a) OVER (PARTITION BY b ORDER BY c ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        "trim(BOTH 'x' FROM a)",
        "substring(a FROM 1 FOR 2)",
        "get_json_object(j, '$.a')",
        "min(a) FILTER (WHERE b > 0)",
        "timestampdiff(SECOND, a, b)",
        "a ILIKE ANY ('a%', 'b%')",
    ],
)
def test_pure_functions_in_their_other_spellings_are_accepted(expression):
    assert parse_select(f"SELECT count({expression}) FROM ${{src_table}}").tables_used == {"src_table"}


def test_every_function_on_the_allow_list_renders_under_an_allowed_name():
    # Whatever name SQLGlot renders a listed function under must itself be listed, or the
    # rendered-SQL check would refuse a function the list allows.
    refused = []
    for name in sorted(ALLOWED_FUNCTIONS):
        for arity in range(5):
            args = ", ".join(f"c{i}" for i in range(arity))
            try:
                sqlglot.parse_one(f"{name}({args})", read="spark")
            except Exception:  # noqa: BLE001 - this arity does not parse, try the next
                continue
            try:
                parse_select(f"SELECT count({name}({args})) FROM ${{src_table}}")
            except UnsafeSQL as error:
                if "is not allowed" in str(error):
                    refused.append((name, str(error)[:40]))
            break

    assert refused == []


def test_it_rejects_a_bare_user_that_spark_could_read_as_the_session_user():
    with pytest.raises(UnsafeSQL, match=r"qualify it, as in \$\{src_table\}\.user"):
        parse_select("SELECT max(length(user)) FROM ${src_table}")


def test_it_accepts_a_qualified_column_named_user():
    parsed = parse_select("SELECT count(DISTINCT t.user) FROM ${src_table} t")

    assert parsed.to_spark_sql(VIEWS) == "SELECT COUNT(DISTINCT `t`.`user`) FROM `dq_src_1` AS `t`"


def test_it_rejects_an_escaped_dollar_brace_in_a_statistic():
    with pytest.raises(UnsafeSQL, match="not even in quotes"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE note = '$\\{env:HOME}'")


def test_it_rejects_parameters_in_a_statistic():
    with pytest.raises(UnsafeSQL, match="parameters"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE amount > :limit")


@pytest.mark.parametrize("text", ["", "  ", "-- just a comment"])
def test_it_rejects_an_empty_statistic(text):
    with pytest.raises(UnsafeSQL, match="The query is empty"):
        parse_select(text)


def test_it_reports_a_syntax_error_in_a_statistic():
    with pytest.raises(UnsafeSQL, match="The query could not be read"):
        parse_select("SELECT count(*) FROM ${src_table} WHERE")


def test_it_points_a_syntax_error_at_the_users_own_column_despite_placeholders():
    with pytest.raises(UnsafeSQL) as refused:
        parse_select("SELECT count(*)\nFROM ${src_table} WHERE a = 1 AND")

    assert (
        str(refused.value) == "The query could not be read: incomplete And expression near 'AND' (line 2, column 33)."
    )


def test_it_rejects_a_statistic_nested_too_deeply():
    text = " UNION ALL ".join(["SELECT count(*) FROM ${src_table}"] * 1500)

    with pytest.raises(UnsafeSQL, match="nested too deeply"):
        parse_select(text)


def test_it_refuses_a_malformed_placeholder_name_from_the_caller():
    with pytest.raises(ValueError, match="Invalid placeholder name"):
        parse_select("SELECT count(*) FROM ${src_table}", placeholders=("src table",))


# --------------------------------------------------------------------------------------------------
# A plain aggregate statistic as one aggregate of the fused pass
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "aggregate"),
    [
        (
            "SELECT COUNT(*) FROM ${src_table} WHERE status IN ('paid', 'shipped') AND amount < 0",
            "COUNT(*) FILTER(WHERE `status` IN ('paid', 'shipped') AND `amount` < 0)",
        ),
        (
            "SELECT sum(t.amount) / count(*) AS mean FROM ${src_table} t WHERE t.qty > 1 OR t.qty IS NULL",
            "SUM(`amount`) FILTER(WHERE `qty` > 1 OR `qty` IS NULL) / COUNT(*) FILTER(WHERE `qty` > 1 OR `qty` IS NULL)",
        ),
        ("SELECT max(${src_table}.amount) FROM ${src_table}", "MAX(`amount`)"),
        ("SELECT 1 + count_if(a > 0) FROM ${src_table}", "1 + COUNT_IF(`a` > 0)"),
    ],
)
def test_a_plain_aggregate_query_becomes_one_filtered_aggregate_expression(query, aggregate):
    assert batch_aggregate(parse_select(query)) == aggregate


@pytest.mark.parametrize(
    "query",
    [
        "SELECT COUNT(DISTINCT country_code) FROM ${src_table}",  # a distinct count needs its own shuffle
        "SELECT amount FROM ${src_table}",  # a row value, not one value per batch
        "SELECT count(*) FROM ${src_table} GROUP BY status",
        "SELECT count(*) FROM ${src_table} HAVING count(*) > 1",
        "SELECT count(*) FROM ${src_table} a JOIN ${src_table} b ON a.x = b.x",
        "SELECT count(*) FROM (SELECT * FROM ${src_table})",
        "SELECT count(*) FROM ${src_table} WHERE x IN (SELECT y FROM ${src_table})",
        "SELECT 1 + count(*) FROM ${src_table} LIMIT 1",
        "SELECT sum(max(x)) FROM ${src_table}",
        "SELECT percentile(x, 0.5) FROM ${src_table}",
        "SELECT count(*) FILTER (WHERE a > 1) FROM ${src_table} WHERE b > 1",
        "SELECT count(*) FROM ${src_table} UNION ALL SELECT 1 FROM ${src_table}",
        "WITH c AS (SELECT * FROM ${src_table}) SELECT count(*) FROM c",
        "SELECT count(*) OVER () FROM ${src_table}",
        "SELECT count(other.x) FROM ${src_table} t",  # a qualifier that is not the table
    ],
)
def test_a_query_of_any_other_shape_runs_as_written(query):
    assert batch_aggregate(parse_select(query)) is None


# --------------------------------------------------------------------------------------------------
# The module stays engine-only
# --------------------------------------------------------------------------------------------------


def test_it_imports_nothing_from_django_celery_or_pyspark():
    code = (
        "import sys, dq_engine.sql_safety\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in {'django', 'celery', 'pyspark'}]\n"
        "assert not bad, bad\n"
    )

    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True)

    assert result.returncode == 0, result.stderr
