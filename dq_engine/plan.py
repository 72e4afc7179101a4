"""The fused plan: which Spark work each batch needs, decided from the spec alone (no Spark here).

Per batch:
- ONE aggregate pass: the filtered row count plus every conditional count and aggregate;
- one group-by per distinct key column, shared by all uniqueness checks on that column;
- one left-anti join per (source batch, target batch, mappings), shared by identical accuracy checks;
- one query per custom SQL check, two per value comparison, as the user wrote them; except that a
  custom SQL statistic of the plain shape `SELECT <aggregates> FROM ${src_table} [WHERE cond]`
  joins the aggregate pass as `agg(...) FILTER (WHERE cond)` (sql_safety.batch_aggregate), and runs
  as written only when that form fails.

Caching: a JDBC batch that more than one pass touches is cached for the run (MEMORY_AND_DISK), so
the database is read once. A file batch is never cached: building the cache costs several scans
(bench/README.md measured ~5x the scan floor for Parquet) and the later passes are no faster on it
than on the files, where Spark reads only each pass's columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dq_engine.spec import CheckSpec, JdbcSource, JobSpec, SpecError
from dq_engine.vocabulary import MAPPING_OPERATORS, METRIC_KINDS
from dq_engine.vocabulary.metrics import CATALOG, JOIN, KEY_GROUP_BY, QUERY

MappingKey = tuple[tuple[str, str, str], ...]


@dataclass
class BatchPlan:
    name: str
    row_checks: list[CheckSpec] = field(default_factory=list)  # fused into the aggregate pass
    folded_sql: dict[str, str] = field(default_factory=dict)  # check id -> its custom SQL as one aggregate
    count_checks: list[CheckSpec] = field(default_factory=list)  # the pass's row count is their statistic
    uniqueness_checks: list[CheckSpec] = field(default_factory=list)  # grouped by resolved column at run time
    joins: dict[tuple[str, MappingKey], list[CheckSpec]] = field(default_factory=dict)
    sql_checks: list[CheckSpec] = field(default_factory=list)
    passes: int = 1  # Spark passes expected over this batch (the aggregate pass always runs)
    jdbc: bool = False  # read from a database (re-reading it is expensive) rather than from files

    @property
    def needs_cache(self) -> bool:
        return self.jdbc and self.passes > 1


def validate(spec: JobSpec) -> None:
    """What JobSpec parsing leaves to the engine: unique check ids, usable mappings and sink."""
    seen: set[str] = set()
    for check in spec.checks:
        if check.id in seen:
            raise SpecError(f"Check id {check.id!r} is used twice; ids key the result document.")
        seen.add(check.id)
        if check.metric.kind == "unmatched_rows":
            mapping_key(check)
    if spec.error_rows is not None and spec.error_rows.limit < 0:
        raise SpecError("error_rows.limit must not be negative.")


def mapping_key(check: CheckSpec) -> MappingKey:
    """The accuracy mappings as a hashable key: ((source, operator, target), ...)."""
    operators = [choice.value for choice in MAPPING_OPERATORS]
    mappings = check.metric.get("mappings")
    path = f"check {check.id}: mappings"
    if not isinstance(mappings, list) or not mappings:
        raise SpecError(f"{path} must list at least one {{source, operator, target}} pair.")
    pairs = []
    for index, pair in enumerate(mappings):
        if (
            not isinstance(pair, dict)
            or not isinstance(pair.get("source"), str)
            or not isinstance(pair.get("target"), str)
        ):
            raise SpecError(f"{path}[{index}] needs source and target column names.")
        operator = pair.get("operator") or "="
        if operator not in operators:
            raise SpecError(f"{path}[{index}].operator must be one of {' '.join(operators)}.")
        pairs.append((pair["source"], operator, pair["target"]))
    return tuple(pairs)


def make_plan(spec: JobSpec) -> dict[str, BatchPlan]:
    plans = {
        name: BatchPlan(name, jdbc=isinstance(spec.sources.get(batch.source), JdbcSource))
        for name, batch in spec.batches.items()
    }
    for check in spec.checks:
        plan = plans[check.batch]
        kind = METRIC_KINDS[check.metric.kind]
        if kind.row_level:
            plan.row_checks.append(check)
        elif kind.key == "row_count":
            plan.count_checks.append(check)
        elif kind.computed_by == KEY_GROUP_BY:
            plan.uniqueness_checks.append(check)
        elif kind.computed_by == JOIN:
            plan.joins.setdefault((check.target_batch, mapping_key(check)), []).append(check)
        elif kind.computed_by == CATALOG:
            continue  # the platform answers it from the catalog; the recorder says so if one comes here
        elif kind.computed_by == QUERY:
            folded = _folded_sql(check)
            if folded is None:
                plan.sql_checks.append(check)
            else:
                plan.row_checks.append(check)
                plan.folded_sql[check.id] = folded
    _count_passes(spec, plans)
    return plans


def _folded_sql(check: CheckSpec) -> str | None:
    """A custom SQL statistic as one aggregate of the batch's pass, or None (see batch_aggregate)."""
    from dq_engine.sql_safety import UnsafeSQL, batch_aggregate, parse_select

    text = check.metric.get("sql")
    if check.metric.kind != "custom_sql" or not isinstance(text, str):
        return None
    try:
        return batch_aggregate(parse_select(text, ("src_table",)))
    except UnsafeSQL:
        return None  # the query step refuses it with the reason


def _count_passes(spec: JobSpec, plans: dict[str, BatchPlan]) -> None:
    """Upper bound of passes per batch (error-row writes counted as possible), to decide caching."""
    writes_error_rows = spec.error_rows is not None and spec.error_rows.limit > 0
    for plan in plans.values():
        plan.passes += len({c.metric.get("column") for c in plan.uniqueness_checks})
        plan.passes += len(plan.joins) + len(plan.sql_checks)
        for target, _ in plan.joins:
            plans[target].passes += 1
        for check in plan.sql_checks:
            if check.target_batch and check.target_batch != plan.name:
                plans[check.target_batch].passes += 1
        if writes_error_rows:
            plan.passes += sum(
                1
                for c in [*plan.row_checks, *plan.uniqueness_checks, *(c for cs in plan.joins.values() for c in cs)]
                if c.error_rows and METRIC_KINDS[c.metric.kind].error_rows
            )
