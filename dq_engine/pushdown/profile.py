"""Pushdown's share of table profiles (dq_engine/profiling/): the table as the runs read it (its
catalog, its filter: backend.py), every statement rendered for the database and run read-only under
the statement timeout. What differs per database is its plug-in's (dq_engine/databases/):
quantiles (PostgreSQL's `percentile_cont(ARRAY[...]) WITHIN GROUP`, one aggregate; MariaDB's
window functions, one query per column), the sample (`TABLESAMPLE BERNOULLI ... REPEATABLE`, or
`RAND(seed) <` fraction, the same rows in every statement), regular expressions, exact strings
(a case-insensitive collation would count 'PAID' with 'paid'). Distinct counts are exact: neither
database has an estimator. The group counts are one GROUP BY each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlglot import exp

from dq_engine.databases import DEFAULT_STATEMENT_TIMEOUT_SECONDS
from dq_engine.profiling.queries import (
    NUMBER,
    QUANTILES,
    GroupCount,
    ProfileColumn,
    ProfileDialect,
    kind_of,
)
from dq_engine.profiling.spec import ProfileSpec
from dq_engine.pushdown.backend import PushdownBackend
from dq_engine.pushdown.render import render
from dq_engine.spec import Batch, JobSpec

BATCH = "profile"
SAMPLE_SEED = 20261130


class PushdownProfileDialect(ProfileDialect):
    def __init__(self, kind: Any):
        self.kind, self.name = kind, kind.name

    def quantiles(self, column: exp.Expression, kind: str, exact: bool) -> tuple[exp.Expression, bool] | None:
        found = self.kind.profile_quantiles(column, kind == NUMBER)
        return None if found is None else (found, True)

    def regex(self, text: exp.Expression, pattern: str) -> exp.Expression:
        return self.kind.regex_find(text, pattern)


class PushdownProfile:
    def __init__(self, spec: ProfileSpec, secrets: Mapping[str, str], timeout: int | None):
        batch = Batch(source="s", filter=spec.filter, engine="pushdown")
        job = JobSpec(run_id="profile", sources={"s": spec.source}, batches={BATCH: batch}, checks=[])
        self.run = PushdownBackend(job, secrets, int(timeout or DEFAULT_STATEMENT_TIMEOUT_SECONDS))
        self.secrets = self.run.used_secrets
        self.relation: exp.Table | None = None
        self.sampled: exp.Expression | None = None

    def open(self) -> list[ProfileColumn]:
        self.run.open(BATCH)
        self.db = self.run.db(BATCH)
        self.table = self.run.tables[BATCH]
        self.relation = self.table.relation
        self.dialect = PushdownProfileDialect(self.db.kind)
        return [
            ProfileColumn(c.name, c.column_type or c.sql_type, kind_of(c.category), c.sql) for c in self.table.columns
        ]

    def _rows(self, *selected: exp.Expression) -> exp.Select:
        """SELECT <selected> FROM the table [sampled] [WHERE filter AND sample condition]."""
        select = exp.select(*selected).from_(self.relation.copy())
        for condition in (self.run.filters[BATCH], self.sampled):
            if condition is not None:
                select = select.where(exp.Paren(this=condition.copy()))
        return select

    def _first_row(self, query: exp.Expression) -> tuple[Any, ...]:
        return self.db.rows(render(query, self.db.where.dialect))[0]

    def count(self) -> int:
        return int(self._first_row(self._rows(exp.Count(this=exp.Star())))[0])

    def sample(self, fraction: float) -> None:
        self.relation, self.sampled = self.db.kind.profile_sample(self.table.relation, fraction, SAMPLE_SEED)

    def aggregate(self, expressions: list[exp.Expression]) -> tuple[Any, ...]:
        return self._first_row(self._rows(*expressions))

    def group_counts(self, requests: list[GroupCount]) -> list[dict[Any, int]]:
        answers = []
        for request in requests:
            query = self._rows(exp.alias_(request.key.copy(), "dq_k"), exp.Count(this=exp.Star())).group_by(
                request.key.copy()
            )
            answers.append({key: int(count) for key, count in self.db.rows(render(query, self.db.where.dialect))})
        return answers

    def quantiles(self, column: ProfileColumn) -> tuple[list[Any], bool]:
        """Quantiles the database has no aggregate for (MariaDB's window functions), one query."""
        fractions = [f for _, f in QUANTILES]
        query = self.db.kind.profile_quantiles_query(column.sql(), column.kind == NUMBER, fractions, self._rows())
        if query is None:
            raise NotImplementedError("The database computes no quantiles.")
        found = self.db.rows(render(query, self.db.where.dialect))
        return (list(found[0]) if found else [None] * len(fractions)), True

    def explain(self, exc: BaseException) -> str:
        return self.run.explain(exc)

    def close(self) -> None:
        self.run.close()
