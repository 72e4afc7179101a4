"""A run's batches on Spark: read (schema only), filtered, sampled, cached when worth it, named as
temp views for SQL checks, and cleaned up after the run.

The filter is parsed and re-rendered by sql_safety, never pasted. A JDBC batch that more than one
pass will touch is cached (the database is read once); a file batch never is (plan.py says why).
A batch that cannot be read, filtered or sampled is an error for every check on it (`open`
raises BatchError saying why).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from dq_engine.errors import BAD_SAMPLE, FILTER_NOT_APPLIED, FILTER_REFUSED, UNREADABLE, BatchError
from dq_engine.plan import BatchPlan
from dq_engine.spark.jvm import regex_hook
from dq_engine.spark.readers import describe_source, read_source
from dq_engine.spec import JobSpec
from dq_engine.sql_safety import UnsafeSQL, filter_to_spark_sql, parse_filter
from dq_engine.words import say

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

logger = logging.getLogger(__name__)

# A sampled batch is read by several passes (file batches are not cached); a fixed seed keeps the
# sample the same across those passes.
SAMPLE_SEED = 20261130


class Batches:
    def __init__(
        self,
        spec: JobSpec,
        spark: SparkSession,
        secrets: Mapping[str, str],
        plans: dict[str, BatchPlan],
        say: Callable[[BaseException], str],
    ):
        self.spec, self.spark, self.secrets, self.plans, self.say = spec, spark, secrets, plans, say
        self.frames: dict[str, DataFrame] = {}
        self.cached_batches: set[str] = set()
        self.views: dict[str, str] = {}
        self.cached: list[DataFrame] = []
        self.token = uuid.uuid4().hex[:10]
        self.lock = threading.Lock()  # temp views are named by concurrent passes

    def open(self, name: str) -> None:
        """The batch as a DataFrame; BatchError saying why it cannot be read, filtered or sampled."""
        batch = self.spec.batches[name]
        source = self.spec.sources[batch.source]
        explain = self.say
        try:
            frame = read_source(self.spark, source, self.secrets)
        except Exception as exc:  # noqa: BLE001 - any reader failure is this batch's error
            raise BatchError(say(UNREADABLE, name=name, source=describe_source(source), why=explain(exc))) from None
        if batch.filter:
            try:
                parsed = parse_filter(batch.filter, frame.columns)
                frame = frame.where(filter_to_spark_sql(parsed, regex=regex_hook(self.spark)))
            except UnsafeSQL as exc:
                raise BatchError(say(FILTER_REFUSED, name=name, why=explain(exc))) from None
            except Exception as exc:  # noqa: BLE001 - Spark's analysis of the filter
                raise BatchError(say(FILTER_NOT_APPLIED, name=name, why=explain(exc))) from None
        if batch.sample_fraction is not None:
            fraction = batch.sample_fraction
            if isinstance(fraction, bool) or not isinstance(fraction, int | float) or not 0 < fraction <= 1:
                raise BatchError(say(BAD_SAMPLE, name=name, value=repr(fraction))) from None
            if fraction < 1:
                frame = frame.sample(fraction=float(fraction), seed=SAMPLE_SEED)
        if batch.limit is not None:  # a preview's sample: the first rows the source yields
            frame = frame.limit(batch.limit)
        if self.plans[name].needs_cache:  # JDBC only, and only when more than one pass reads it
            from pyspark import StorageLevel

            frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
            self.cached.append(frame)
            self.cached_batches.add(name)
        self.frames[name] = frame

    def view(self, batch: str) -> str:
        """The temp view a SQL check reads the batch through (made on first use)."""
        with self.lock:
            if batch not in self.views:
                view = f"dq_{self.token}_{len(self.views)}"
                self.frames[batch].createOrReplaceTempView(view)
                self.views[batch] = view
            return self.views[batch]

    def cleanup(self) -> None:
        for view in self.views.values():
            try:
                self.spark.catalog.dropTempView(view)
            except Exception:  # noqa: BLE001 - cleanup must not hide the run's result
                logger.warning("Could not drop temp view %s", view)
        for frame in self.cached:
            try:
                frame.unpersist()
            except Exception:  # noqa: BLE001
                logger.warning("Could not unpersist a cached batch")
