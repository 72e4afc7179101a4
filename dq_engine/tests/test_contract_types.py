"""Schema contracts check a database column's type as Spark's JDBC reader types it, on Spark and
pushed down alike (dq_engine/databases/base.py `spark_ref`): PostgreSQL's uuid and jsonb are
strings, MariaDB's tinyint(1) and bit(1) booleans, year a date, bigint unsigned a decimal(20,0).
A row rule comparing such a column is left to Spark, and the cleansed output stores its values as
Spark does."""

from __future__ import annotations

import pytest

from conftest import MYSQL, PG
from dq_engine.tests.conftest import SCHEMA

pytestmark = pytest.mark.spark

# column → (PostgreSQL type, contract type as Spark reads it)
PG_COLUMNS = {
    "i": ("integer", "integer"),
    "b": ("bigint", "integer"),
    "s": ("smallint", "integer"),
    "n": ("numeric(12,2)", "decimal"),
    "nu": ("numeric", "decimal"),
    "r": ("real", "float"),
    "d": ("double precision", "float"),
    "t": ("text", "string"),
    "v": ("varchar(10)", "string"),
    "c": ("char(3)", "string"),
    "ts": ("timestamp", "timestamp"),
    "tz": ("timestamptz", "timestamp"),
    "dt": ("date", "date"),
    "bo": ("boolean", "boolean"),
    "by": ("bytea", "binary"),
    "u": ("uuid", "string"),
    "j": ("jsonb", "string"),
}
PG_ROW = "1, 2, 3, 4.5, 6.7, 1.5, 2.5, 't', 'v', 'c', '2024-01-01', '2024-01-01 00:00+00', '2024-01-01', true, "
PG_ROW += "'\\x01', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{}'"
MY_COLUMNS = {
    "i": ("int", "integer"),
    "iu": ("int unsigned", "integer"),
    "b": ("bigint", "integer"),
    "bu": ("bigint unsigned", "decimal"),
    "s": ("smallint", "integer"),
    "ti": ("tinyint", "integer"),
    "bo": ("tinyint(1)", "boolean"),
    "bl": ("boolean", "boolean"),
    "bi": ("bit(1)", "boolean"),
    "n": ("decimal(12,2)", "decimal"),
    "f": ("float", "float"),
    "d": ("double", "float"),
    "t": ("text", "string"),
    "v": ("varchar(10)", "string"),
    "c": ("char(3)", "string"),
    "e": ("enum('a','b')", "string"),
    "dtm": ("datetime", "timestamp"),
    "da": ("date", "date"),
    "bl_": ("blob", "binary"),
    "j": ("json", "string"),
    "y": ("year", "date"),
}
MY_ROW = (
    "1, 2, 3, 4, 5, 6, 2, 0, b'1', 7.5, 1.5, 2.5, 't', 'v', 'c', 'a', '2024-01-01', '2024-01-01', x'01', '{}', 2024"
)


def _contract(columns: dict[str, tuple[str, str]], **wrong: str) -> dict:
    return {
        "strict": True,
        "columns": [
            {"name": name, "type": wrong.get(name, kind), "nullable": False, "required": True}
            for name, (_, kind) in columns.items()
        ],
    }


def _spec(sources: dict, engine: str, contract: dict, tmp_path) -> dict:
    rules = {"kind": "row_rules", "rules": _NULL_RULES, "output": str(tmp_path / f"cleansed-{engine}")}
    return {
        "run_id": "types",
        "sources": {"w": sources},
        "batches": {"b": {"source": "w", "engine": engine}},
        "checks": [
            {"id": "sc", "name": "contract", "batch": "b", "metric": {"kind": "schema_contract", "contract": contract}},
            {"id": "rr", "name": "rules", "batch": "b", "metric": rules},
        ],
    }


_NULL_RULES = [
    {
        "type": "check",
        "name": "bo_set",
        "fn": "notNull",
        "negate": False,
        "fields": ["bo"],
        "args": [],
        "critical": False,
    }
]


@pytest.fixture
def pg_wide(pg_sources):
    import psycopg

    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {SCHEMA}.wide ({', '.join(f'{n} {t}' for n, (t, _) in PG_COLUMNS.items())})")
        conn.execute(f"INSERT INTO {SCHEMA}.wide VALUES ({PG_ROW})")
        yield {**pg_sources["orders"], "table": f"{SCHEMA}.wide"}
        conn.execute(f"DROP TABLE {SCHEMA}.wide")


@pytest.fixture
def mariadb_wide(mariadb_sources):
    import pymysql

    conn = pymysql.connect(**MYSQL, autocommit=True, charset="utf8mb4")
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {SCHEMA}.wide ({', '.join(f'{n} {t}' for n, (t, _) in MY_COLUMNS.items())})")
        cur.execute(f"INSERT INTO {SCHEMA}.wide VALUES ({MY_ROW})")
    yield {**mariadb_sources["orders"], "table": f"{SCHEMA}.wide"}
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE {SCHEMA}.wide")
    conn.close()


@pytest.mark.parametrize(("fixture", "columns"), [("pg_wide", PG_COLUMNS), ("mariadb_wide", MY_COLUMNS)])
@pytest.mark.parametrize("engine", ["spark", "pushdown"])
def test_a_contract_of_the_types_spark_reads_holds_on_spark_and_pushed_down(
    spark, request, tmp_path, fixture, columns, engine
):
    import dq_engine

    source = request.getfixturevalue(fixture)
    wrong = {"i": "string", "t": "integer", "bo": "integer"} if "bo" in columns else {"i": "string", "t": "integer"}
    kept = dq_engine.run(_spec(source, engine, _contract(columns), tmp_path / "kept"), spark=spark)
    broken = dq_engine.run(_spec(source, engine, _contract(columns, **wrong), tmp_path / "broken"), spark=spark)

    assert kept["batches"]["b"]["engine"] == engine
    assert kept["checks"]["sc"]["status"] == "ok", kept["checks"]["sc"]["message"]
    assert (kept["checks"]["sc"]["statistic"], kept["checks"]["sc"].get("findings")) == (0.0, None)
    assert broken["checks"]["sc"]["statistic"] == float(len(wrong))
    assert [f.split(" is ")[0] for f in broken["checks"]["sc"]["findings"]] == [
        f"column {n}" for n in columns if n in wrong
    ]


@pytest.mark.parametrize("engine", ["spark", "pushdown"])
def test_a_mariadb_tinyint_1_is_a_boolean_in_the_cleansed_output_as_spark_reads_it(
    spark, mariadb_wide, tmp_path, engine
):
    import pyarrow.dataset as ds

    import dq_engine

    document = dq_engine.run(_spec(mariadb_wide, engine, _contract(MY_COLUMNS), tmp_path), spark=spark)

    rows = ds.dataset(document["checks"]["rr"]["output_path"], format="parquet").to_table().to_pylist()
    assert [(row["bo"], row["bl"], row["bi"], row["_dq"]) for row in rows] == [(True, False, True, 0)]  # 2 is true


def test_a_row_rule_comparing_a_column_spark_reads_as_another_type_is_left_to_spark(mariadb_wide):
    from dq_engine.pushdown.engine import PushdownEngine
    from dq_engine.spec import JobSpec

    def reason(rule: dict) -> str | None:
        spec = {
            "run_id": "r",
            "sources": {"w": mariadb_wide},
            "batches": {"b": {"source": "w", "engine": "pushdown"}},
            "checks": [{"id": "rr", "name": "rules", "batch": "b", "metric": {"kind": "row_rules", "rules": [rule]}}],
        }
        return PushdownEngine().reason_cannot_run(JobSpec.from_dict(spec), "b")

    compared = {**_NULL_RULES[0], "name": "bo_true", "fn": "eq", "args": [True]}

    assert reason(_NULL_RULES[0]) is None  # nullness reads the same
    assert "rule 'bo_true': Spark reads column bo (tinyint(1)) as boolean" in reason(compared)
