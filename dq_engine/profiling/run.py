"""A profile's steps, the same on every engine: choose the engine, open the batch, count its rows,
sample it beyond the row guard, the first step (one aggregate over every column), the quantiles an
engine computes apart, the second step (group counts), the document.

Failure is a value, per column: when the combined aggregate fails, the row count and each column
run alone, so only the column that cannot be profiled ends with an `error` (its engine's message);
the same for the group counts. A batch that cannot be read is the document's `error`.

The backend each engine gives (`engine.profile_backend(spec, secrets)`):
- `dialect`: its ProfileDialect (queries.py);
- `open() -> [ProfileColumn]`: read the schema, apply the filter (BatchError saying why not);
- `count() -> int`: the batch's rows; `sample(fraction)`: read a random sample from now on;
- `aggregate([expression]) -> row`: ONE query of these aggregates over the batch;
- `group_counts([GroupCount]) -> [{key: count}]`: each request's counts (one scan where it can);
- optional `quantiles(column) -> (list, exact)`: quantiles its dialect cannot aggregate;
- `explain(exc) -> str` (its engine's message, or ""), `secrets` (to redact), `close()`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from sqlglot import exp

from dq_engine import errors
from dq_engine.engines import make_engine
from dq_engine.errors import BatchError, CheckError
from dq_engine.profiling import queries
from dq_engine.profiling.document import column_entry, number, skeleton
from dq_engine.profiling.queries import (
    HISTOGRAM,
    NUMBER,
    OTHER,
    SHAPE_MASK,
    TEXT,
    TOP_VALUES,
    GroupCount,
    ProfileColumn,
    bucket,
    first_pass,
    shape_mask,
)
from dq_engine.profiling.spec import ProfileSpec
from dq_engine.selection import SPARK, EngineRefused, choose_engines
from dq_engine.spec import AUTO_ENGINE, Batch, JobSpec

logger = logging.getLogger(__name__)

SHAPES_BY_VALUE = 1000


def profile(
    spec: ProfileSpec | dict[str, Any],
    secrets: Mapping[str, str] | None = None,
    *,
    spark: Any = None,
    engine_options: Mapping[str, Any] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    """The profile document of the spec's table or batch. Raises SpecError for a malformed spec;
    every other failure is in the document (`error`, or a column's `error`)."""
    job = spec if isinstance(spec, ProfileSpec) else ProfileSpec.from_dict(spec)
    resources = {**(engine_options or {}), "spark": spark}
    try:
        engine, reason = choose_engine(job)
    except EngineRefused as exc:
        document = skeleton(job, job.engine, "")
        document["error"] = str(exc)
        return document
    document = _profile_on(job, engine, reason, secrets or {}, resources)
    refused = document.get("error") or ""
    if job.engine == AUTO_ENGINE and engine != SPARK and refused.startswith("Pushdown refused"):
        reason = f"auto: {refused.rstrip('. ')}; Spark reads it"
        document = _profile_on(job, SPARK, reason, secrets or {}, resources)
    return document


def choose_engine(spec: ProfileSpec) -> tuple[str, str]:
    """(engine, why), as runs choose for a batch (dq_engine/selection.py)."""
    job = JobSpec(
        run_id="profile", sources={"s": spec.source}, batches={"b": Batch(source="s", filter=spec.filter)}, checks=[]
    )
    choice = choose_engines(job, requested=spec.engine, describe={"b": f"table {spec.table or 'of the profile'}"})["b"]
    return choice.engine, choice.reason


def _profile_on(
    job: ProfileSpec, engine: str, reason: str, secrets: Mapping[str, str], resources: dict[str, Any]
) -> dict[str, Any]:
    document = skeleton(job, engine, reason)
    backend = None
    try:
        backend = make_engine(engine, **resources).profile_backend(job, secrets)
        Steps(job, backend, document).run()
    except (BatchError, CheckError) as exc:
        document["error"] = errors.describe(exc, list(secrets.values()))
    except Exception as exc:  # noqa: BLE001 - the batch could not be profiled: the document says why
        logger.exception("Profile of %s failed", job.table)
        say = getattr(backend, "explain", None)
        document["error"] = "The table could not be profiled: " + errors.describe(exc, list(secrets.values()), say)
    finally:
        if backend is not None:
            try:
                backend.close()
            except Exception:  # noqa: BLE001 - closing must not hide the profile
                logger.warning("Could not close the profile's backend", exc_info=True)
    return document


class Steps:
    def __init__(self, spec: ProfileSpec, backend: Any, document: dict[str, Any]):
        self.spec, self.backend, self.document = spec, backend, document
        self.secrets = list(getattr(backend, "secrets", []) or [])

    def say(self, exc: BaseException) -> str:
        if not isinstance(exc, BatchError | CheckError) and not self.backend.explain(exc):
            logger.warning("A profile query failed", exc_info=True)
        return errors.describe(exc, self.secrets, explain=self.backend.explain)

    def run(self) -> None:
        spec, backend, document = self.spec, self.backend, self.document
        columns = backend.open()
        row_count = int(backend.count())
        document["row_count"] = row_count
        if row_count > spec.row_guard:
            fraction = spec.row_guard / row_count
            backend.sample(fraction)
            document["sample"].update(method="sample", fraction=fraction)
        exact = min(row_count, spec.row_guard) <= spec.exact_rows
        plan = first_pass(columns, backend.dialect, exact)
        passed = None if exact else self.one_pass(columns, plan)
        if passed is not None:
            rows, values, failed = passed
        else:
            rows, values, failed = self.first_step(columns, plan)
            self.apart_quantiles(columns, plan, values, failed)
            self.second_step(columns, values, failed)
        document["sample"]["rows"] = rows
        for column in columns:
            if column.name in failed:
                entry = {"name": column.name, "type": column.type, "kind": column.kind, "error": failed[column.name]}
            else:
                entry = column_entry(
                    column,
                    rows,
                    values[column.name],
                    plan.distinct_exact.get(column.name),
                    plan.quantiles_exact.get(column.name),
                )
            document["columns"].append(entry)

    # --- or one pass, where the engine has it ---------------------------------------------------
    def one_pass(self, columns: list[ProfileColumn], plan: queries.FirstPass):
        """(rows, values, failed) from the engine's single pass over the batch (Spark's, for a batch
        beyond the exact limit: its sketches are approximate anyway), or None: the two steps. A
        pass that fails falls back to the steps, which isolate the failing column."""
        run_pass = getattr(self.backend, "one_pass", None)
        if run_pass is None:
            return None
        spec = self.spec
        try:
            passed = run_pass(columns, max(SHAPES_BY_VALUE, spec.top_values_limit), spec.bins)
        except Exception as exc:  # noqa: BLE001 - the steps run instead and say what failed
            logger.info("The one-pass profile failed (%s); the two steps instead", self.say(exc))
            return None
        if passed is None:
            return None
        rows, values = passed
        failed: dict[str, str] = {}
        for column in columns:
            figures = values[column.name]
            if "error" in figures:
                failed[column.name] = f"Column {column.name} could not be profiled: {figures['error']}"
            figures["bins"], figures["top_values_limit"] = spec.bins, spec.top_values_limit
            if column.name in plan.distinct_exact:
                plan.distinct_exact[column.name] = False  # unless its values were counted (document.py)
            if column.name in plan.quantiles_exact:
                plan.quantiles_exact[column.name] = False if figures.get("quantiles") else None
        return rows, values, failed

    # --- step 1: one aggregate ----------------------------------------------------------------
    def first_step(self, columns: list[ProfileColumn], plan: queries.FirstPass):
        expressions: list[exp.Expression] = [exp.Count(this=exp.Star())]
        for column in columns:
            expressions += [aggregate for _, aggregate in plan.figures[column.name]]
        values: dict[str, dict[str, Any]] = {}
        failed: dict[str, str] = {}
        try:
            row = list(self.backend.aggregate(expressions))
        except Exception as exc:  # noqa: BLE001 - isolate the column that fails
            logger.info("The combined profile aggregate failed (%s); each column alone", exc)
            row = None
        if row is not None:
            rows = int(row[0])
            position = 1
            for column in columns:
                names = [name for name, _ in plan.figures[column.name]]
                values[column.name] = dict(zip(names, row[position : position + len(names)], strict=True))
                position += len(names)
            return rows, values, failed
        rows = int(self.backend.aggregate([exp.Count(this=exp.Star())])[0])  # a failure here: the batch's
        for column in columns:
            names = [name for name, _ in plan.figures[column.name]]
            try:
                alone = self.backend.aggregate([aggregate for _, aggregate in plan.figures[column.name]])
                values[column.name] = dict(zip(names, alone, strict=True))
            except Exception as exc:  # noqa: BLE001 - this column's error only
                failed[column.name] = f"Column {column.name} could not be profiled: {self.say(exc)}"
        return rows, values, failed

    def apart_quantiles(self, columns, plan, values, failed) -> None:
        """Quantiles an engine cannot aggregate (MariaDB's are window functions): one query each."""
        compute: Callable | None = getattr(self.backend, "quantiles", None)
        if compute is None:
            return
        for column in columns:
            if column.name in failed or column.name not in plan.quantiles_exact:
                continue
            if plan.quantiles_exact[column.name] is not None or not values[column.name].get("values"):
                continue
            try:
                found, is_exact = compute(column)
            except Exception as exc:  # noqa: BLE001 - the column's figures stay; its quantiles are absent
                logger.info("Quantiles of %s failed: %s", column.name, self.say(exc))
                continue
            values[column.name]["quantiles"] = found
            plan.quantiles_exact[column.name] = is_exact

    # --- step 2: group counts -----------------------------------------------------------------
    def requests(self, columns: list[ProfileColumn], values: dict[str, dict[str, Any]], failed) -> list[GroupCount]:
        spec, dialect = self.spec, self.backend.dialect
        wanted: list[GroupCount] = []
        for column in columns:
            if column.name in failed or column.kind == OTHER:
                continue
            figures = values[column.name]
            figures["bins"], figures["top_values_limit"] = spec.bins, spec.top_values_limit
            nonnull = int(figures.get("values") or 0)
            if not nonnull:
                continue
            distinct = figures.get("distinct")
            few = distinct is not None and int(distinct) <= spec.top_values_limit
            # A string column of up to SHAPES_BY_VALUE distinct values has its values counted
            # (a small hash table) and their shapes matched in Python, once per value instead of
            # three regexes per row; its top values are kept only up to the limit (document.py).
            countable = column.kind == TEXT and distinct is not None and int(distinct) <= SHAPES_BY_VALUE
            if few or countable:
                wanted.append(GroupCount(column.name, TOP_VALUES, column.sql()))
            elif column.kind == TEXT:
                wanted.append(GroupCount(column.name, SHAPE_MASK, shape_mask(column.sql(), dialect)))
            if column.kind == NUMBER:
                low, high = number(figures.get("min")), number(figures.get("max"))
                if low is not None and high is not None and low < high:
                    key = bucket(column.sql(), float(low), float(high), spec.bins, dialect)
                    wanted.append(GroupCount(column.name, HISTOGRAM, key))
        return wanted

    def second_step(self, columns: list[ProfileColumn], values, failed) -> None:
        wanted = self.requests(columns, values, failed)
        if not wanted:
            return
        try:
            answers = self.backend.group_counts(wanted)
        except Exception as exc:  # noqa: BLE001 - each request alone
            logger.info("The combined group counts failed (%s); each alone", exc)
            answers = []
            for request in wanted:
                try:
                    answers.append(self.backend.group_counts([request])[0])
                except Exception as alone:  # noqa: BLE001 - this column's error only
                    failed[request.column] = (
                        f"Column {request.column} could not be profiled ({request.purpose.replace('_', ' ')}): "
                        f"{self.say(alone)}"
                    )
                    answers.append(None)
        for request, counted in zip(wanted, answers, strict=True):
            if counted is not None:
                groups = values[request.column].setdefault("groups", {})
                groups[request.purpose] = {key: count for key, count in counted.items() if key is not None}
