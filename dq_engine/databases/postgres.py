"""PostgreSQL: psycopg, `~` regular expressions (POSIX advanced), `COLLATE "C"` orderings.

Each statement runs in a read-only transaction of its own with `statement_timeout` set LOCAL to it;
big results stream from a named (server-side) cursor; a cancel is psycopg's `cancel_safe`.
Strings compare exactly by default (no case-insensitive deterministic collation is assumed); only
orderings follow the column's collation (en_US puts 'a' before 'B'), so a text ordering is read
`COLLATE "C"` (bytewise: code-point order in UTF-8, as Spark orders strings).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlglot import exp

from dq_engine.databases import regex
from dq_engine.databases.base import CONNECT_TIMEOUT_SECONDS, Address, Column, Connection, Kind
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, STRING, TIMESTAMP

_NUMERIC = ("smallint", "integer", "bigint", "numeric", "real", "double precision", "decimal")
_STRING = ("text", "character varying", "character", "varchar", "char", "name", "citext")
_TEMPORAL = ("timestamp", "timestamp without time zone", "timestamp with time zone")
# Types the database cannot compare as text but Spark's JDBC reader reads as strings.
_AS_TEXT = frozenset({"uuid", "json", "jsonb", "xml", "inet", "cidr", "macaddr", "macaddr8"})
_ORDERINGS = (exp.GT, exp.GTE, exp.LT, exp.LTE)


class PostgreSQL(Kind):
    name = "postgres"
    label = "PostgreSQL"
    schemes = ("postgresql",)
    default_port = 5432
    spark_driver = "org.postgresql.Driver"
    integer_types = frozenset({"smallint", "integer", "bigint"})
    categories = {
        **dict.fromkeys(_NUMERIC, NUMERIC),
        **dict.fromkeys(_STRING, STRING),
        **dict.fromkeys(_TEMPORAL, TIMESTAMP),
        "date": DATE,
        "boolean": BOOLEAN,
        "bytea": BINARY,
    }
    regex_rules = regex.Rules(
        label="PostgreSQL",
        escapes={
            "p": "Unicode classes (\\p{...})",
            "P": "Unicode classes (\\P{...})",
            "b": "\\b (a word boundary in Java, a backspace in PostgreSQL, whose boundary is \\y)",
            "B": "\\B (PostgreSQL's is \\Y)",
            "Q": "quoting with \\Q...\\E",
            "E": "quoting with \\Q...\\E",
            "z": "\\z",
            "Z": "\\Z (before a final line break in Java)",
            "G": "\\G",
            "h": "\\h",
            "H": "\\H",
            "R": "\\R",
            "X": "\\X",
            "K": "\\K",
            "v": "\\v (vertical whitespace in Java, a vertical tab in PostgreSQL)",
            "V": "\\V",
            "N": "\\N",
        },
        properties_in_classes=False,
        possessive=False,
        group=lambda rest, at_start: _group(rest, at_start),
    )

    def spark_options(self) -> dict[str, str]:
        seconds = str(CONNECT_TIMEOUT_SECONDS)
        return {"connectTimeout": seconds, "loginTimeout": seconds, "fetchsize": "1000"}

    def default_schema(self, where: Address) -> str:
        return "public"

    # --- connection -----------------------------------------------------------------------------
    def connect(self, db: Connection) -> Any:
        import psycopg

        props = dict(db.where.properties)
        kwargs: dict[str, Any] = {"sslmode": props["sslmode"]} if "sslmode" in props else {}
        conn = psycopg.connect(
            host=db.where.host,
            port=db.where.port,
            dbname=db.where.database,
            user=db.where.user or None,
            password=db.password,
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            application_name="dq-engine-pushdown",
            autocommit=True,  # transactions are begun explicitly, one per statement
            **kwargs,
        )
        conn.read_only = True  # every transaction of this connection is read-only, besides SET TRANSACTION
        return conn

    def _begin(self, db: Connection) -> None:
        with db.conn.cursor() as cur:
            cur.execute("SET TRANSACTION READ ONLY")
            cur.execute("SELECT set_config('statement_timeout', %s, true)", (f"{db.timeout}s",))

    def fetch(self, db: Connection, sql: str, limit: int | None, params: tuple) -> tuple[list[str], list[tuple]]:
        with db.conn.transaction(), db.conn.cursor() as cur:
            self._begin(db)
            # Without params psycopg reads no placeholders in the text (a '%' in a literal stays one).
            cur.execute(sql.encode("utf-8"), params or None)
            names = [column.name for column in cur.description or []]
            return names, cur.fetchmany(limit) if limit is not None else cur.fetchall()

    def stream(self, db: Connection, sql: str, chunk_rows: int) -> Iterator:
        with db.conn.transaction():
            self._begin(db)
            with db.conn.cursor(name="dq_marked_rows") as cur:
                cur.itersize = chunk_rows
                cur.execute(sql.encode("utf-8"))
                yield [column.name for column in cur.description or []]
                while chunk := cur.fetchmany(chunk_rows):
                    yield chunk

    def cancel(self, db: Connection) -> None:
        db.conn.cancel_safe(timeout=5)

    # --- catalog --------------------------------------------------------------------------------
    def columns(self, db: Connection, schema: str, name: str) -> list[Column]:
        return [Column(n, t.lower(), sql_type, None, kind=self) for n, t, sql_type in db.rows(_COLUMNS, (schema, name))]

    def key_candidates(self, db: Connection, schema: str, name: str) -> list[str]:
        return [k for (k,) in db.rows(_KEYS, (schema, name))]

    def category(self, column: Column) -> str:
        if column.data_type.startswith("timestamp"):
            return TIMESTAMP
        return super().category(column)

    def spark_reading(self, column: Column) -> tuple[str, str] | None:
        return (STRING, "string") if column.data_type in _AS_TEXT else None

    # --- meaning --------------------------------------------------------------------------------
    def exact_order(self, tree: exp.Expression) -> exp.Expression:
        def exact(node: exp.Expression) -> exp.Expression:
            if (
                isinstance(node, _ORDERINGS)
                and isinstance(node.this, exp.Column)
                and isinstance(node.expression, exp.Literal)
                and node.expression.is_string
            ):
                collated = exp.Collate(this=node.this.copy(), expression=exp.Identifier(this="C", quoted=True))
                return type(node)(this=collated, expression=node.expression.copy())
            return node

        return tree.transform(exact)

    def regex_problem(self, pattern: str) -> str | None:
        return regex.problem(pattern, self.regex_rules)

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        return exp.RegexpLike(this=text, expression=exp.Literal.string(pattern))  # rendered `text ~ 'pattern'`

    def profile_quantiles(self, column: exp.Expression, continuous: bool) -> exp.Expression | None:
        from dq_engine.profiling.queries import fractions

        # percentile_cont(ARRAY[...]) WITHIN GROUP (ORDER BY col): every fraction in one sort.
        name = "percentile_cont" if continuous else "percentile_disc"
        array = exp.cast(fractions(), exp.DataType.build("DOUBLE PRECISION[]", dialect="postgres"))
        ordered = exp.Order(expressions=[exp.Ordered(this=column)])
        return exp.WithinGroup(this=exp.Anonymous(this=name, expressions=[array]), expression=ordered)

    def profile_sample(self, table: exp.Table, fraction: float, seed: int) -> tuple[exp.Table, exp.Expression | None]:
        sampled = table.copy()
        sampled.set(
            "sample",
            exp.TableSample(
                method=exp.var("BERNOULLI"),
                percent=exp.Literal.number(repr(fraction * 100)),
                seed=exp.Literal.number(seed),
            ),
        )
        return sampled, None


def _group(rest: str, at_start: bool) -> str | None:
    if rest.startswith(">"):
        return "an atomic group (?>...)"
    if rest.startswith(("<", "P<")):
        return "a named group"
    if rest.startswith("i)") and at_start:
        return None
    return "inline flags (PostgreSQL takes only a leading (?i) with Java's meaning)"


# The catalog queries take the schema and table as driver parameters.
_COLUMNS = (
    "SELECT a.attname, COALESCE(c.data_type, format_type(a.atttypid, a.atttypmod)), "
    "format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
    "JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace s ON s.oid = t.relnamespace "
    "LEFT JOIN information_schema.columns c ON c.table_schema = s.nspname AND c.table_name = t.relname "
    "AND c.column_name = a.attname "
    "WHERE s.nspname = %s AND t.relname = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
)
# Columns that lead an index, the primary key first.
_KEYS = (
    "SELECT a.attname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
    "JOIN pg_namespace s ON s.oid = t.relnamespace "
    "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0] "
    "WHERE s.nspname = %s AND t.relname = %s ORDER BY i.indisprimary DESC, i.indisunique DESC"
)

KIND = PostgreSQL()
