"""What every database plug-in gives (`Kind`), and what is the same for all of them: an address, a
read-only connection for the length of a run, a table as the catalog describes it.

A `Kind` is one database (PostgreSQL, MariaDB/MySQL): its JDBC URL schemes, its SQLGlot dialect,
how its Python driver connects and runs a statement read-only under a timeout, its catalog queries,
how it compares strings exactly (as Spark does), the regular expressions and functions it would
read otherwise than Spark, and what Spark's JDBC reader needs (driver class, how it types each
column). docs/databases.md describes every hook.

Nothing outside dq_engine/databases/ asks which database it is talking to: it asks the kind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from dq_engine.errors import BatchError, CheckError, column_problem, describe
from dq_engine.vocabulary import ColumnRef, Dialect
from dq_engine.vocabulary.expressions import NUMERIC, OTHER

NOT_PUSHED = "Pushdown refused"  # the prefix of every refusal's message (the selection reads it)
TEXT_TIMES = (
    "Times held as text are read with Spark's datetime patterns, which the database does not have; "
    "Spark runs this check."
)
CONNECT_TIMEOUT_SECONDS = 10
DEFAULT_STATEMENT_TIMEOUT_SECONDS = 15 * 60


@dataclass(frozen=True)
class Address:
    """Where a source's database is: what two sources must share to be joined in one query."""

    dialect: str  # the kind's name (its SQLGlot dialect)
    host: str
    port: int
    database: str
    user: str
    properties: tuple[tuple[str, str], ...] = field(default=())

    def describe(self) -> str:
        from dq_engine.databases import kind_named

        return kind_named(self.dialect).describe(self)


@dataclass(frozen=True, eq=False)
class ExactColumnRef(ColumnRef):
    """A column the database would compare otherwise than Spark (a case-insensitive or space-padding
    collation): every predicate built on it reads `exact` (e.g. `col COLLATE utf8mb4_nopad_bin`)."""

    exact: exp.Expression | None = None

    @property
    def sql(self) -> exp.Expression:  # type: ignore[override]
        return self.exact.copy() if self.exact is not None else exp.column(self.name, quoted=True)


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str  # the catalog's name, lower-case (`integer`, `character varying`, `datetime`)
    sql_type: str  # as the type is spelt in a CAST (`numeric(10,2)`, `timestamp`)
    collation: str | None = None
    column_type: str = ""  # the full spelling where the catalog has one (`tinyint(1)`); else ""
    kind: Kind | None = field(default=None, compare=False, repr=False)

    @property
    def category(self) -> str:
        return self.kind.category(self) if self.kind else OTHER

    def ref(self, dialect: str | None = None) -> ColumnRef:
        """The column as the database computes with it, compared as Spark compares."""
        try:
            sql_type = exp.DataType.build(self.sql_type, dialect=self.kind.name if self.kind else dialect)
        except Exception:  # noqa: BLE001 - a type SQLGlot cannot spell: values are not cast to it
            sql_type = None
        exact = self.kind.exact_text(self) if self.kind else None
        ref = ExactColumnRef if exact is not None else ColumnRef
        extra = {"exact": exact} if exact is not None else {}
        return ref(name=self.name, category=self.category, type=sql_type, type_name=self.sql_type, **extra)

    @property
    def sql(self) -> exp.Expression:
        """How a statement reads the column's values so that they compare as Spark's do."""
        return self.ref().sql

    @property
    def spark_reads_otherwise(self) -> bool:
        """Whether Spark's JDBC reader gives the column another category than the database's."""
        return self._spark_reading() is not None

    def spark_ref(self, dialect: str | None = None) -> ColumnRef:
        """The column as Spark's JDBC reader types it (for schema contracts and the writers)."""
        reading = self._spark_reading()
        if reading is None:
            return self.ref(dialect)
        category, spark_type = reading
        return ColumnRef(
            name=self.name,
            category=category,
            type=exp.DataType.build(spark_type),
            type_name=self.column_type or self.sql_type,
        )

    def _spark_reading(self) -> tuple[str, str] | None:
        return self.kind.spark_reading(self) if self.kind else None


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    columns: tuple[Column, ...]
    numeric_key: str | None  # the primary key or a leading indexed column, when it is an integer

    @property
    def kind(self) -> Kind | None:
        return self.columns[0].kind if self.columns else None

    @property
    def relation(self) -> exp.Table:
        return exp.table_(self.name, db=self.schema, quoted=True)

    def column(self, name: Any) -> Column:
        matches = []
        if isinstance(name, str) and name:
            matches = [c for c in self.columns if c.name == name] or [
                c for c in self.columns if c.name.casefold() == name.casefold()
            ]
        if len(matches) != 1:
            raise column_problem(name, [c.name for c in self.columns], [c.name for c in matches])
        return matches[0]


class Kind:
    """One database. Subclasses set the attributes and override the hooks their database needs."""

    name = ""  # the SQLGlot dialect statements are rendered in; also the kind's key
    label = ""  # for messages ("PostgreSQL")
    schemes: tuple[str, ...] = ()  # JDBC URL schemes (`jdbc:<scheme>://`)
    default_port = 0
    spark_driver = ""  # the JDBC driver class Spark loads
    spark_connect_timeout: tuple[str, str] | None = None  # (option, value) bounding Spark's connect
    integer_types: frozenset[str] = frozenset()
    categories: Mapping[str, str] = {}  # catalog type name → vocabulary category

    # --- naming ---------------------------------------------------------------------------------
    def parse_url(self, url: str) -> dict[str, Any] | None:
        """{host, port, database, query} of the source's JDBC URL, or None when it is not one of this
        database's (the default: `jdbc:<scheme>://host[:port][/database][?query]`)."""
        from dq_engine.databases import server_url

        return server_url(url)

    def describe(self, where: Address) -> str:
        return f"{self.label} at {where.host}:{where.port}/{where.database}"

    def default_schema(self, where: Address) -> str:
        """The schema a one-part table name is in."""
        return where.database

    # --- connection -----------------------------------------------------------------------------
    def connect(self, db: Connection) -> Any:
        """The driver's connection, every transaction read-only; may note facts in `db.server`."""
        raise NotImplementedError

    def fetch(self, db: Connection, sql: str, limit: int | None, params: tuple) -> tuple[list[str], list[tuple]]:
        """Run one SELECT in a read-only transaction of its own under the statement timeout."""
        raise NotImplementedError

    def stream(self, db: Connection, sql: str, chunk_rows: int) -> Iterator:
        """Yield the column names, then chunks of rows, read from a server-side cursor (the lock is
        held by the caller until the last one)."""
        raise NotImplementedError

    def cancel(self, db: Connection) -> None:
        """Stop the statement running on `db` (called from another thread); best effort."""

    def driver_message(self, exc: BaseException) -> str:
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0]}" if text else ""

    # --- catalog --------------------------------------------------------------------------------
    def columns(self, db: Connection, schema: str, name: str) -> list[Column]:
        raise NotImplementedError

    def key_candidates(self, db: Connection, schema: str, name: str) -> list[str]:
        """Columns that lead an index, the primary key first."""
        return []

    def category(self, column: Column) -> str:
        return self.categories.get(column.data_type, OTHER)

    def spark_reading(self, column: Column) -> tuple[str, str] | None:
        """(category, Spark type) when Spark's JDBC reader types the column otherwise, else None."""
        return None

    # --- meaning --------------------------------------------------------------------------------
    def exact_text(self, column: Column) -> exp.Expression | None:
        """The column as a statement must read it so that comparing, grouping and joining its
        values is exact (case, accents, trailing spaces), as in Spark; None when it already is."""
        return None

    def exact_order(self, tree: exp.Expression) -> exp.Expression:
        """`tree` with text orderings (a column against a string) made code-point orderings."""
        return tree

    def vocabulary(self) -> Dialect:
        """The vocabulary's hooks (regular expressions, times in text) for this database."""
        return _Hooks(self)

    def regex_problem(self, pattern: str) -> str | None:
        """Why the database would not run a Java regex as Java does, or None."""
        return None

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        return exp.RegexpLike(this=text, expression=exp.Literal.string(pattern))

    def function_problem(self, node: exp.Expression) -> str | None:
        """Why the database would not compute the function `node` as Spark does, or None."""
        return None

    def numeric_aggregate(self, node: exp.Expression, column: Column | None) -> exp.Expression:
        """An aggregate of a numeric column as the database must compute it to answer as Spark."""
        return node

    # --- table profiles (dq_engine/profiling/) ---------------------------------------------------
    def profile_quantiles(self, column: exp.Expression, continuous: bool) -> exp.Expression | None:
        """ONE aggregate giving the profile's quantile fractions (`fractions`) as a list, exact
        (`continuous`: interpolated, for numbers; else a value of the column, for times), or None
        when the database has no such aggregate (`profile_quantiles_query` then)."""
        return None

    def profile_quantiles_query(
        self, column: exp.Expression, continuous: bool, fractions: list[float], rows: exp.Select
    ) -> exp.Select | None:
        """A query whose first row holds the quantiles, one column each, over `rows`; or None."""
        return None

    def profile_sample(self, table: exp.Table, fraction: float, seed: int) -> tuple[exp.Table, exp.Expression | None]:
        """The table read as a random sample of about `fraction` of its rows, the same rows for every
        statement of the profile: (the table, maybe with a sampling clause; a condition, or None)."""
        rand = exp.Anonymous(this="RAND", expressions=[exp.Literal.number(seed)])
        return table, exp.LT(this=rand, expression=exp.Literal.number(repr(fraction)))

    # --- Spark ----------------------------------------------------------------------------------
    identifier_quote = '"'  # how the database quotes a name (Spark pastes `dbtable` into its SELECT)

    def spark_options(self) -> dict[str, str]:
        """Options every Spark JDBC read of this database gets (connect timeouts, fetch size)."""
        return {}

    def spark_url(self, url: str) -> str:
        """The JDBC URL as Spark must be given it."""
        return url


class _Hooks(Dialect):
    def __init__(self, kind: Kind):
        self.kind = kind
        self.name = kind.name

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        problem = self.kind.regex_problem(pattern)
        if problem:
            raise CheckError(problem)
        return self.kind.regex_find(text, pattern)

    def parse_timestamp(self, text: exp.Expression, pattern: str | None) -> exp.Expression:
        raise CheckError(TEXT_TIMES)


class Connection:
    """One connection to a source's database for the length of a run; statements one at a time.

    - `rows(sql)`: all rows of a read-only statement; `fetch(sql, limit)`: column names and at
      most `limit` rows (error rows); `stream(sql)`: names and chunks (databases.stream);
    - `cancel()`: stops the running statement (from another thread), used when the run is cancelled.
    """

    def __init__(self, kind: Kind, where: Address, password: str | None, statement_timeout: int):
        self.kind, self.where, self.password = kind, where, password
        self.timeout = max(1, int(statement_timeout))
        self.lock = threading.Lock()
        self.server: dict[str, Any] = {}  # what the kind learnt of the server when connecting
        self.conn = kind.connect(self)

    def say(self, exc: BaseException) -> str:
        return describe(exc, [self.password] if self.password else [], explain=self.kind.driver_message)

    def fetch(self, sql: str, limit: int | None = None, params: tuple = ()) -> tuple[list[str], list[tuple]]:
        """Run one SELECT in a read-only transaction of its own; (column names, rows). `params`
        only for the engine's own catalog queries (%s placeholders); rendered SQL takes none."""
        with self.lock:
            return self.kind.fetch(self, sql, limit, params)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.fetch(sql, params=params)[1]

    def cancel(self) -> None:
        try:
            self.kind.cancel(self)
        except Exception:  # noqa: BLE001 - best effort: the statement timeout ends it anyway
            pass

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001
            pass


def password_of(source: Any, secrets: Mapping[str, str]) -> str | None:
    """The password named by a source's `password_secret`; a name with no value is an error, not a
    silent blank (every reader of a database source, Spark's JDBC reader too, asks here)."""
    if not source.password_secret:
        return None
    password = secrets.get(source.password_secret)
    if password is None:
        raise BatchError(
            f"The password secret {source.password_secret} is not set; the engine takes it from the "
            "worker's secrets (or the environment for the command line)."
        )
    return password


def integer_key(columns: Sequence[Column], candidates: Sequence[str], integer_types: frozenset[str]) -> str | None:
    by_name = {c.name: c for c in columns}
    return next((k for k in candidates if k in by_name and by_name[k].data_type in integer_types), None)


def numeric(column: Column | None) -> bool:
    return column is not None and column.category == NUMERIC


Explain = Callable[[BaseException], str]
