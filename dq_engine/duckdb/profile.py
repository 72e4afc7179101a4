"""DuckDB's share of table profiles (dq_engine/profiling/): the batch as the runs' temp view
(batches.py: files, filter; a sample materialised once), the first step as one aggregate with
`approx_count_distinct` and `approx_quantile` (exact `count(DISTINCT)` and `quantile_cont` up to
the exact-rows limit), the second as ONE query of `histogram(key)` aggregates: every histogram,
top-values list and shape mask in a single scan."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlglot import ErrorLevel, exp

from dq_engine import errors
from dq_engine.duckdb.batches import Batches, category
from dq_engine.duckdb.sql import DIALECT
from dq_engine.profiling.queries import NUMBER, GroupCount, ProfileColumn, ProfileDialect, fractions, kind_of
from dq_engine.profiling.spec import ProfileSpec
from dq_engine.spec import Batch, JobSpec

if TYPE_CHECKING:
    import duckdb

BATCH, SAMPLE = "profile", "profile_sample"


class DuckDBProfileDialect(ProfileDialect):
    name = DIALECT

    def distinct(self, column: exp.Expression, exact: bool) -> tuple[exp.Expression, bool]:
        if exact:
            return super().distinct(column, exact)
        return exp.ApproxDistinct(this=column), False

    def quantiles(self, column: exp.Expression, kind: str, exact: bool) -> tuple[exp.Expression, bool]:
        if exact:  # interpolated in doubles for numbers (a decimal's would be rounded to its scale), a value for times
            if kind == NUMBER:
                return exp.Anonymous(this="quantile_cont", expressions=[self.double(column), fractions()]), True
            return exp.Anonymous(this="quantile_disc", expressions=[column, fractions()]), True
        return exp.Anonymous(this="approx_quantile", expressions=[column, fractions()]), False


def render(expression: exp.Expression) -> str:
    return expression.sql(dialect=DIALECT, comments=False, unsupported_level=ErrorLevel.RAISE)


class DuckDBProfile:
    dialect = DuckDBProfileDialect()
    secrets: list[str] = []

    def __init__(self, spec: ProfileSpec, con: duckdb.DuckDBPyConnection):
        self.con = con
        batch = Batch(source="s", filter=spec.filter, engine="duckdb")
        self.job = JobSpec(run_id="profile", sources={"s": spec.source}, batches={BATCH: batch}, checks=[])
        self.batches = Batches(self.job, con, lambda exc: errors.describe(exc, explain=self.explain))
        self.current = BATCH

    def open(self) -> list[ProfileColumn]:
        self.batches.open(BATCH)
        return [
            ProfileColumn(name, type_name, kind_of(category(type_name)), exp.column(name, quoted=True))
            for name, type_name in self.batches.columns[BATCH]
        ]

    def count(self) -> int:
        return self.con.execute(f"SELECT count(*) FROM {self.batches.view(self.current)}").fetchone()[0]

    def sample(self, fraction: float) -> None:
        """A Bernoulli sample of the batch, materialised once (batches.py), read from now on."""
        sampled = replace(self.job.batches[BATCH], sample_fraction=fraction)
        self.batches.spec = replace(self.job, batches={**self.job.batches, SAMPLE: sampled})
        self.batches.open(SAMPLE)
        self.current = SAMPLE

    def aggregate(self, expressions: list[exp.Expression]) -> tuple[Any, ...]:
        selected = ", ".join(render(e) for e in expressions)
        return self.con.execute(f"SELECT {selected} FROM {self.batches.view(self.current)}").fetchone()

    def group_counts(self, requests: list[GroupCount]) -> list[dict[Any, int]]:
        """Every request's counts from ONE scan: `histogram(key)` is a value → count map (NULLs left out)."""
        selected = ", ".join(f"histogram({render(r.key)})" for r in requests)
        row = self.con.execute(f"SELECT {selected} FROM {self.batches.view(self.current)}").fetchone()
        return [dict(counted or {}) for counted in row]

    def explain(self, exc: BaseException) -> str:
        module = type(exc).__module__ or ""
        if module.startswith(("duckdb", "_duckdb")):
            return str(exc).split("\n\nLINE ", 1)[0].strip()
        return ""

    def close(self) -> None:
        self.con.close()
