"""One run on Spark: job spec → batches → passes → outcomes (the result document: engine.py).

Flow:
1. open every batch (batches.py): read the source (schema only), apply the filter, sample if
   asked; cache a JDBC batch more than one pass will touch;
2. one aggregate pass per batch (aggregate_pass.py): row count + all conditional counts + all
   aggregates + the custom SQL statistics that fold into it (a batch with no such check, e.g. an
   accuracy target, gets only its row count over the pruned scan);
3. one group-by per uniqueness key column, shared with an accuracy check on that same column
   (key_groups.py);
4. one left-anti join per (other) accuracy mapping (accuracy.py);
5. custom SQL / value comparison queries against temp views of the batches (queries.py);
each followed by the error-row writes of its checks (always from the batch's original rows).
Steps 2-5 are independent Spark jobs and run a few at a time (scheduling.py; a cached batch's
aggregate pass first, as it builds the cache). Each pass records its own checks' outcomes
(outcomes.py); a failure is that check's error, never the run's.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dq_engine import plan as planning
from dq_engine.spark.accuracy import accuracy_units
from dq_engine.spark.aggregate_pass import aggregate_pass
from dq_engine.spark.batches import Batches
from dq_engine.spark.context import SparkRun
from dq_engine.spark.key_groups import uniqueness_units
from dq_engine.spark.outcomes import Outcomes
from dq_engine.spark.queries import query_units
from dq_engine.spark.scheduling import Unit, run_units, unless_cancelled
from dq_engine.spec import JobSpec

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def prepare(spec: JobSpec, spark: SparkSession, secrets: Mapping[str, str], cancel: threading.Event) -> SparkRun:
    plans = planning.make_plan(spec)
    outcomes = Outcomes(spec, secrets, cancel)
    batches = Batches(spec, spark, secrets, plans, outcomes)
    return SparkRun(spec=spec, spark=spark, plans=plans, batches=batches, outcomes=outcomes, cancel=cancel)


def execute(run: SparkRun) -> None:
    """Every check of the run gets an outcome (ok, its error, or cancelled)."""
    try:
        for name in run.spec.batches:
            if run.cancel.is_set():
                break
            run.batches.open(name)
        if not run.cancel.is_set():
            _run_passes(run)
        run.outcomes.finish(run.batches.problem)
    finally:
        run.batches.cleanup()


def _run_passes(run: SparkRun) -> None:
    units: list[Unit] = []
    for name in run.spec.batches:
        if run.outcomes.stats[name]["cached"]:  # builds the cache before any other pass reads the batch
            unless_cancelled(functools.partial(aggregate_pass, run, name), run.cancel)()
        else:
            units.append(functools.partial(aggregate_pass, run, name))
    for name in run.spec.batches:
        units += uniqueness_units(run, name)  # claims the accuracy joins it answers
    for name in run.spec.batches:
        units += accuracy_units(run, name)
    for name in run.spec.batches:
        units += query_units(run, name)
    run_units(run.spark, units, run.cancel)
