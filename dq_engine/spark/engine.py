"""The Spark engine behind `dq_engine.run` (dq_engine/engines.py): every source kind, on a local
SparkSession or a cluster.

A run is the one way of running checks (dq_engine/passes/) over Spark as its backend
(backend.py). The caller owns the SparkSession; the engine only caches its batches and names temp
views for the length of the run, and removes them before returning.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dq_engine import plan as planning
from dq_engine.passes.run import SkeletonEngine, new_context, run_checks
from dq_engine.spark.messages import quiet_pyspark_error_logs
from dq_engine.spark.scheduling import job_group
from dq_engine.spec import FileSource, JdbcSource, JobSpec

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SparkEngine(SkeletonEngine):
    """- `spark`: a SparkSession, or a zero-argument callable returning one, called only when a run
      needs it (a worker starts Spark only for a batch that needs it); None takes the process's
      active session, or builds one with the engine's defaults (dq_engine.spark.session).
      Whoever creates the session owns its life: the engine never stops it.
    - `job_group`: the Spark job group for the run's jobs; one is made up when omitted. The
      caller's own group and job description are restored afterwards.
    """

    key = "spark"

    def __init__(
        self,
        spark: SparkSession | Callable[[], SparkSession] | None = None,
        job_group: str | None = None,
        **_other_engines_resources: Any,
    ):
        self._spark = spark
        self.job_group = job_group

    def reason_cannot_read(self, source: JdbcSource | FileSource) -> str | None:
        if isinstance(source, JdbcSource | FileSource):
            return None
        return f"Spark reads JDBC tables and files, not {type(source).__name__}."

    @property
    def spark(self) -> SparkSession:
        if self._spark is None:
            from pyspark.sql import SparkSession

            from dq_engine.spark.session import build_spark

            self._spark = SparkSession.getActiveSession() or build_spark()
        elif not hasattr(self._spark, "sparkContext"):  # a factory: start Spark now
            self._spark = self._spark()
        return self._spark

    def run_job(self, job: JobSpec, secrets: Mapping[str, str], cancel: threading.Event) -> dict[str, Any]:
        from dq_engine.spark.backend import SparkBackend
        from dq_engine.spark.batches import Batches
        from dq_engine.spark.messages import describe

        spark = self.spark
        group = self.job_group or f"dq-engine-{_slug(job.run_id)}-{uuid.uuid4().hex[:8]}"
        plans = planning.make_plan(job)
        with quiet_pyspark_error_logs(), job_group(spark, group, f"dq-engine run {job.run_id}") as count_jobs:
            batches = Batches(job, spark, secrets, plans, describe)
            backend = SparkBackend(spark, batches, group, count_jobs)
            run = new_context(job, backend, secrets, cancel, plans)
            return run_checks(run, spark_application_id=spark.sparkContext.applicationId)

    def profile_backend(self, spec: Any, secrets: Mapping[str, str]) -> Any:
        """The table profiles' backend (dq_engine/profiling/), on the engine's session."""
        from dq_engine.spark.profile import SparkProfile

        return SparkProfile(self.spark, spec, secrets)


def _slug(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(value))[:40] or "run"
