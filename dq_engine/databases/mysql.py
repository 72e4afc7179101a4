"""MariaDB and MySQL: PyMySQL, PCRE2 regular expressions, exact string comparison by collation.

Connection: the session's transactions are all read-only (`SET SESSION TRANSACTION READ ONLY`), a
statement limit is set for the session (MariaDB `max_statement_time` in seconds, MySQL
`max_execution_time` in milliseconds), big results stream from an unbuffered `SSCursor`, and a
cancel is `KILL QUERY` from a second connection.

Exact strings. MariaDB compares strings by the column's collation: the default utf8mb4_general_ci
makes 'PAID' equal 'paid' and 'É' equal 'é', and every PAD SPACE collation (utf8mb4_bin included)
makes 'a ' equal 'a'. Spark compares code points, case and trailing spaces included. So a string
column whose collation is not a no-pad binary one is read `col COLLATE <charset>_nopad_bin`
wherever a statement compares, groups or joins it: binary (code-point order for UTF-8), no
padding, and still characters (CHAR_LENGTH, LIKE's `_` and regexes count characters, where
`CAST(col AS BINARY)` would count bytes). An explicit COLLATE outranks a literal's or the other
side's collation, so `=`, IN, LIKE, ORDER and GROUP BY all follow it. MySQL 8 has no `_nopad_bin`
collations: there the column is converted to utf8mb4 and read `COLLATE utf8mb4_0900_bin` (no pad).

Numbers: MariaDB's AVG of integers and STDDEV/VARIANCE of any exact type are DECIMALs rounded to
a few places (STDDEV_SAMP of 1, 2, 3, 3: 1.1547 where Spark's double is 1.1547005383792517), so
their argument is cast to DOUBLE first. AVG of a decimal(p,s) is already rounded to s+4 places, as
Spark's is. Medians and percentiles exist in MariaDB only as window functions: refused, Spark
computes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sqlglot import exp

from dq_engine.databases import regex
from dq_engine.databases.base import CONNECT_TIMEOUT_SECONDS, NOT_PUSHED, Column, Connection, Kind, numeric
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, STRING, TIMESTAMP

_NUMERIC = ("tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "numeric", "float", "double")
_STRING = ("char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set")
_BINARY = ("binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob")
_INEXACT_AGGREGATES = (exp.Avg, exp.Stddev, exp.StddevSamp, exp.StddevPop, exp.Variance, exp.VariancePop)
_WINDOW_ONLY = (exp.Median, exp.Quantile, exp.PercentileCont, exp.PercentileDisc, exp.ApproxQuantile)


class MySQL(Kind):
    name = "mysql"
    label = "MySQL/MariaDB"
    schemes = ("mysql", "mariadb")
    default_port = 3306
    spark_driver = "org.mariadb.jdbc.Driver"
    integer_types = frozenset({"tinyint", "smallint", "mediumint", "int", "integer", "bigint"})
    categories = {
        **dict.fromkeys(_NUMERIC, NUMERIC),
        **dict.fromkeys(_STRING, STRING),
        **dict.fromkeys(_BINARY, BINARY),
        "date": DATE,
        "datetime": TIMESTAMP,
        "timestamp": TIMESTAMP,
        "bool": BOOLEAN,
        "boolean": BOOLEAN,
    }
    regex_rules = regex.Rules(
        label="MariaDB/MySQL (PCRE2)",
        escapes={"u": "\\u escapes (write \\x{...})", "N": "\\N"},
        short_properties_only=True,
        group=lambda rest, at_start: _group(rest),
    )

    def __init__(self, mariadb: bool = True):
        self.mariadb = mariadb  # the server's flavour: what its columns' exact collations are

    # --- connection -----------------------------------------------------------------------------
    def connect(self, db: Connection) -> Any:
        import pymysql

        props = dict(db.where.properties)
        ssl = {"ssl_disabled": True} if props.get("useSsl", "").lower() == "false" else {}
        conn = pymysql.connect(
            host=db.where.host,
            port=db.where.port,
            user=db.where.user or None,
            password=db.password or "",
            database=db.where.database or None,
            charset="utf8mb4",
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            autocommit=True,
            **ssl,
        )
        with conn.cursor() as cur:
            # Every transaction of the session read-only, autocommitted statements and DDL included
            # (START TRANSACTION READ ONLY alone would let DDL's implicit commit through).
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            cur.execute("SELECT VERSION()")
            mariadb = "mariadb" in str(cur.fetchone()[0]).lower()
            db.server["mariadb"] = mariadb
            # The session's statement limit (MariaDB seconds, MySQL milliseconds); a number, not user text.
            if mariadb:
                cur.execute("SET SESSION max_statement_time = %s", (db.timeout,))
            else:
                cur.execute("SET SESSION max_execution_time = %s", (db.timeout * 1000,))
            # ANSI_QUOTES off and no PIPES_AS_CONCAT: the SQL is rendered for MySQL's default reading.
            cur.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'")
        return conn

    def fetch(self, db: Connection, sql: str, limit: int | None, params: tuple) -> tuple[list[str], list[tuple]]:
        with db.conn.cursor() as cur:
            cur.execute("START TRANSACTION READ ONLY")
            try:
                cur.execute(sql, params or None)  # no args: PyMySQL interpolates nothing into the text
                names = [column[0] for column in cur.description or []]
                rows = list(cur.fetchmany(limit) if limit is not None else cur.fetchall())
            finally:
                try:
                    cur.execute("COMMIT")
                except Exception:  # noqa: BLE001 - a dead connection: the statement's error says why
                    pass
            return names, rows

    def stream(self, db: Connection, sql: str, chunk_rows: int) -> Iterator:
        import pymysql.cursors

        with db.conn.cursor(pymysql.cursors.SSCursor) as cur:
            cur.execute("START TRANSACTION READ ONLY")
            try:
                cur.execute(sql)  # no args: PyMySQL interpolates nothing into the text
                yield [column[0] for column in cur.description or []]
                while chunk := list(cur.fetchmany(chunk_rows)):
                    yield chunk
            finally:
                try:
                    cur.fetchall()  # an unbuffered result must be read to its end before the next statement
                    cur.execute("COMMIT")
                except Exception:  # noqa: BLE001 - a dead connection: the statement's error says why
                    pass

    def cancel(self, db: Connection) -> None:
        import pymysql

        killer = pymysql.connect(
            host=db.where.host,
            port=db.where.port,
            user=db.where.user or None,
            password=db.password or "",
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
        )
        with killer.cursor() as cur:
            cur.execute("KILL QUERY %s", (int(db.conn.thread_id()),))
        killer.close()

    def driver_message(self, exc: BaseException) -> str:
        """PyMySQL's errors are (code, message) tuples."""
        args = getattr(exc, "args", ())
        if type(exc).__module__.startswith("pymysql") and len(args) > 1:
            return f"{type(exc).__name__}: ({args[0]}) {args[1]}"
        return super().driver_message(exc)

    # --- catalog --------------------------------------------------------------------------------
    def columns(self, db: Connection, schema: str, name: str) -> list[Column]:
        # MySQL spells a CAST's type otherwise than a column's (`int(11)` is `SIGNED`): the bare type
        # name is cast to, with the precision only where it changes the value (decimal).
        kind = MARIADB if db.server.get("mariadb", True) else MYSQL_SERVER
        return [
            Column(
                n,
                t.lower(),
                full.lower() if t.lower() in ("decimal", "numeric") else t.lower(),
                collation,
                full.lower(),
                kind=kind,
            )
            for n, t, full, collation in db.rows(_COLUMNS, (schema, name))
        ]

    def key_candidates(self, db: Connection, schema: str, name: str) -> list[str]:
        return [k for (k,) in db.rows(_KEYS, (schema, name))]

    def spark_reading(self, column: Column) -> tuple[str, str] | None:
        full = column.column_type.lower()
        if full.startswith(("tinyint(1)", "bit(1)")) and "unsigned" not in full:
            return BOOLEAN, "boolean"
        if column.data_type == "year":
            return DATE, "date"
        if column.data_type == "bigint" and "unsigned" in full:
            return NUMERIC, "decimal(20,0)"
        return None

    # --- meaning --------------------------------------------------------------------------------
    def exact_text(self, column: Column) -> exp.Expression | None:
        collation = (column.collation or "").lower()
        if column.category != STRING or not collation:
            return None
        quoted = exp.column(column.name, quoted=True)
        if self.mariadb:
            if collation.endswith("_nopad_bin"):
                return None
            charset = collation.split("_", 1)[0]
            return exp.Collate(this=quoted, expression=exp.Var(this=f"{charset}_nopad_bin"))
        if collation == "utf8mb4_0900_bin":
            return None
        converted = exp.Cast(this=quoted, to=exp.DataType(this=exp.DType.CHARACTER_SET, kind=exp.Var(this="utf8mb4")))
        return exp.Collate(this=converted, expression=exp.Var(this="utf8mb4_0900_bin"))

    def regex_problem(self, pattern: str) -> str | None:
        return regex.problem(pattern, self.regex_rules)

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        # `(?-i)` in front: a value cast to text takes the connection's case-insensitive collation.
        found = exp.Anonymous(this="REGEXP_INSTR", expressions=[text, exp.Literal.string("(?-i)" + pattern)])
        return exp.GT(this=found, expression=exp.Literal.number(0))

    def profile_quantiles_query(
        self, column: exp.Expression, continuous: bool, fractions: list[float], rows: exp.Select
    ) -> exp.Select | None:
        # Percentiles are window functions here: each over the whole batch, the first row read.
        name = "PERCENTILE_CONT" if continuous else "PERCENTILE_DISC"
        # NULLs first is MariaDB's own order (and percentiles skip NULLs): no CASE WHEN ... IS NULL key.
        ordered = exp.Order(expressions=[exp.Ordered(this=column, nulls_first=True)])
        selected = [
            exp.Window(
                this=exp.WithinGroup(
                    this=exp.Anonymous(this=name, expressions=[exp.Literal.number(repr(f))]), expression=ordered.copy()
                )
            )
            for f in fractions
        ]
        return rows.select(*selected, append=False).limit(1)

    def function_problem(self, node: exp.Expression) -> str | None:
        if isinstance(node, _WINDOW_ONLY):
            return (
                f"{NOT_PUSHED}: MariaDB/MySQL computes medians and percentiles only as window functions, "
                "not as the aggregate Spark computes; Spark runs it."
            )
        return None

    def numeric_aggregate(self, node: exp.Expression, column: Column | None) -> exp.Expression:
        if not isinstance(node, _INEXACT_AGGREGATES) or not numeric(column):
            return node
        if isinstance(node, exp.Avg) and column.data_type in ("decimal", "numeric"):
            return node  # decimal(p+4, s+4), as Spark's
        if column.data_type in ("float", "double"):
            return node
        return type(node)(this=exp.cast(node.this.copy(), exp.DataType.build("DOUBLE")))

    # --- Spark ----------------------------------------------------------------------------------
    identifier_quote = "`"

    def spark_options(self) -> dict[str, str]:
        return {"connectTimeout": str(CONNECT_TIMEOUT_SECONDS * 1000)}  # milliseconds

    def spark_url(self, url: str) -> str:
        """`jdbc:mariadb:` becomes `jdbc:mysql:` so Spark picks its MySQL dialect.

        Spark 4 has no MariaDB dialect; under its generic one, pushed-down filters and column lists
        quote identifiers with double quotes, which MariaDB reads as string literals ('"order_id"' is
        the text order_id: "Out of range value for column 'order_id'"). The MariaDB driver accepts the
        mysql scheme (Connector/J 3 only with `permitMysqlScheme` in the URL, which 2.x ignores).
        """
        if not url.lower().startswith("jdbc:mariadb:"):
            return url
        rewritten = "jdbc:mysql:" + url[len("jdbc:mariadb:") :]
        if "permitmysqlscheme" in rewritten.lower():
            return rewritten
        return rewritten + ("&" if "?" in rewritten else "?") + "permitMysqlScheme=true"


def _group(rest: str) -> str | None:
    flags = re.match(r"^([a-zA-Z-]*)[):]", rest)
    if flags and set(flags.group(1)) - set("imsx-"):
        return f"the inline flags (?{flags.group(1)}) (PCRE2 reads U, u, d and c otherwise than Java)"
    return None


# The catalog queries take the schema and table as driver parameters.
_COLUMNS = (
    "SELECT column_name, data_type, column_type, collation_name FROM information_schema.columns "
    "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position"
)
# Columns that lead an index, the primary key first.
_KEYS = (
    "SELECT column_name FROM information_schema.statistics "
    "WHERE table_schema = %s AND table_name = %s AND seq_in_index = 1 "
    "ORDER BY index_name = 'PRIMARY' DESC, non_unique ASC"
)

MARIADB = MySQL(mariadb=True)
MYSQL_SERVER = MySQL(mariadb=False)
KIND = MARIADB
