"""When the Spark engine's passes run: a few at a time, tagged with the run's job group (which the
one cancel watcher, dq_engine/passes/run.py, cancels), and with the session settings a pass needs
set only around it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)

# Passes (Spark jobs) run at the same time within one run; 1 runs them one after another.
CONCURRENT_PASSES = 3

# Spark 4's switch for a single Complete-mode aggregation after the shuffle, without the pre-shuffle
# partial one. A uniqueness group-by is over a key expected to be (nearly) unique, where partial
# aggregation reduces nothing and only costs a hash map per task; after repartition(n, key) the
# partial and final aggregations would even run in the same task, hashing every row twice. The
# engine sets it only around its own group-by queries (see without_partial_aggregation); it does
# not change any result.
BYPASS_PARTIAL_AGGREGATION = "spark.sql.execution.bypassPartialAggregation"
_bypass_lock = threading.Lock()
_bypass_users: dict[int, tuple[int, str | None]] = {}  # id(session) -> (queries inside, value before)

Unit = Callable[[], None]


def run_units(spark: SparkSession, units: list[Unit], cancel: threading.Event) -> None:
    """Run the passes, CONCURRENT_PASSES at a time (each records its own checks' outcomes); a pass
    not started when the run is cancelled does not start.

    Concurrent jobs keep every core busy: a pass's last wave of tasks (5 files on 2 cores is 3
    waves) and its driver-side planning leave cores idle that the next pass's tasks fill. The
    threads inherit this run's job group (pinned thread mode), so cancelling it stops them all."""
    units = [unless_cancelled(unit, cancel) for unit in units]
    workers = min(CONCURRENT_PASSES, len(units))
    if workers <= 1:
        for unit in units:
            unit()
        return
    from concurrent.futures import ThreadPoolExecutor

    from pyspark.util import inheritable_thread_target

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dq-engine") as pool:
        futures = [pool.submit(inheritable_thread_target(spark)(unit)) for unit in units]
        for future in futures:
            future.result()


def unless_cancelled(unit: Unit, cancel: threading.Event) -> Unit:
    """The unit, skipped when the run is cancelled before it starts."""

    def guarded() -> None:
        if not cancel.is_set():
            unit()

    return guarded


@contextmanager
def job_group(spark: SparkSession, group: str, description: str) -> Iterator[Callable[[], int]]:
    """Tag this thread's Spark jobs with the run's group; yield a counter of the jobs it ran."""
    context = spark.sparkContext
    keys = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
    previous = {key: context.getLocalProperty(key) for key in keys}
    tracker = context.statusTracker()
    before = set(tracker.getJobIdsForGroup(group))
    context.setJobGroup(group, description, interruptOnCancel=True)
    try:
        yield lambda: len(set(tracker.getJobIdsForGroup(group)) - before)
    finally:
        for key, value in previous.items():
            context.setLocalProperty(key, value)  # None removes the property


@contextmanager
def without_partial_aggregation(spark: SparkSession) -> Iterator[None]:
    """Plan and run the queries inside without pre-shuffle partial aggregation (the setting is the
    session's, so concurrent runs count their users and the last one out restores the value)."""
    key = id(spark)
    with _bypass_lock:
        users, before = _bypass_users.get(key, (0, None))
        if users == 0:
            try:
                before = spark.conf.get(BYPASS_PARTIAL_AGGREGATION, None)
                spark.conf.set(BYPASS_PARTIAL_AGGREGATION, "true")
            except Exception:  # noqa: BLE001 - a Spark without the setting: run as is
                logger.debug("Cannot set %s; partial aggregation stays on.", BYPASS_PARTIAL_AGGREGATION)
        _bypass_users[key] = (users + 1, before)
    try:
        yield
    finally:
        with _bypass_lock:
            users, before = _bypass_users.pop(key)
            if users > 1:
                _bypass_users[key] = (users - 1, before)
            else:
                try:
                    if before is None:
                        spark.conf.unset(BYPASS_PARTIAL_AGGREGATION)
                    else:
                        spark.conf.set(BYPASS_PARTIAL_AGGREGATION, before)
                except Exception:  # noqa: BLE001
                    logger.debug("Cannot restore %s.", BYPASS_PARTIAL_AGGREGATION)
