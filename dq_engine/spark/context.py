"""What the Spark engine's passes share during one run (built by execution.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dq_engine.plan import BatchPlan, MappingKey
from dq_engine.spark.batches import Batches
from dq_engine.spark.outcomes import Outcomes
from dq_engine.spec import JobSpec

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class SparkRun:
    spec: JobSpec
    spark: SparkSession
    plans: dict[str, BatchPlan]
    batches: Batches
    outcomes: Outcomes
    cancel: threading.Event
    # Accuracy joins answered by a uniqueness group-by on the same column (key_groups.py), which
    # the accuracy step then leaves alone: {(source batch, (target batch, mappings))}.
    shared_joins: set[tuple[str, tuple[str, MappingKey]]] = field(default_factory=set)
