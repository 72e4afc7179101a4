"""Readers and the package's import hygiene, without Spark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dq_engine.errors import BatchError, describe, redact
from dq_engine.spark.readers import jdbc_options, quote_table, spark_jdbc_url
from dq_engine.spec import JdbcSource

ROOT = Path(__file__).resolve().parents[2]


def test_it_quotes_table_names_for_each_dialect():
    assert quote_table("jdbc:postgresql://h/db", "public.orders") == '"public"."orders"'
    assert quote_table("jdbc:postgresql://h/db", 'odd"schema.t') == '"odd""schema"."t"'
    assert quote_table("jdbc:postgresql://h/db", '"My.Schema".Orders') == '"My.Schema"."Orders"'
    assert quote_table("jdbc:mariadb://h/db", "shop.orders") == "`shop`.`orders`"
    assert quote_table("jdbc:mysql://h/db", "shop.or`ders") == "`shop`.`or``ders`"
    assert quote_table("jdbc:mysql://h/db", "`sh.op`.`orders`") == "`sh.op`.`orders`"
    assert quote_table("jdbc:postgresql://h/db", "orders; DROP TABLE x") == '"orders; DROP TABLE x"'


@pytest.mark.parametrize("name", ["", "a..b", '"unclosed.t'])
def test_it_refuses_a_malformed_table_name(name):
    with pytest.raises(BatchError):
        quote_table("jdbc:postgresql://h/db", name)


def test_jdbc_options_carry_the_driver_timeouts_and_the_password_from_the_secrets():
    source = JdbcSource(
        url="jdbc:postgresql://h:5432/db",
        driver="org.postgresql.Driver",
        table="s.t",
        user="reader",
        password_secret="DQ_SECRET_3",
        options={"sslmode": "require", "dbtable": "other", "query": "x"},
    )
    options = jdbc_options(source, {"DQ_SECRET_3": "pw-1"})

    assert options["driver"] == "org.postgresql.Driver" and options["dbtable"] == '"s"."t"'
    assert options["password"] == "pw-1" and options["user"] == "reader" and options["sslmode"] == "require"
    assert options["connectTimeout"] == "10" and options["loginTimeout"] == "10" and "query" not in options
    with pytest.raises(BatchError, match="DQ_SECRET_3 is not set"):
        jdbc_options(source, {})


def test_a_mariadb_url_is_read_through_spark_s_mysql_dialect_with_a_millisecond_timeout():
    source = JdbcSource(url="jdbc:mariadb://h:3306/shop", driver="org.mariadb.jdbc.Driver", table="shop.t")
    options = jdbc_options(source, {})

    assert options["url"] == "jdbc:mysql://h:3306/shop?permitMysqlScheme=true"
    assert options["connectTimeout"] == "10000" and "password" not in options
    assert spark_jdbc_url("jdbc:mariadb://h/db?a=1") == "jdbc:mysql://h/db?a=1&permitMysqlScheme=true"


def test_messages_are_redacted_and_trimmed():
    assert redact("login failed for pw-123456", ["pw-123456", ""]) == "login failed for ***"
    assert describe(ValueError("bad\n\tat org.x.Y(Y.java:1)"), ["bad"]) == "ValueError: ***"


def test_importing_dq_engine_pulls_in_neither_pyspark_nor_django():
    code = (
        "import sys, dq_engine, dq_engine.spec, dq_engine.sql_safety; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pyspark', 'py4j', 'django', 'celery'})); "
        "print(callable(dq_engine.run))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "True"]
