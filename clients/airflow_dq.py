"""Airflow tasks on the data quality platform, over its HTTP API (clients/dq_client.py does the
talking; copy both files into the DAGs folder, or anywhere on the workers' PYTHONPATH).

    from airflow_dq import DataQualityGateSensor, DataQualityRunOperator

    checks = DataQualityRunOperator(task_id="dq_orders", checks=[3, 4], biz_date="{{ ds }}")
    ready = DataQualityGateSensor(
        task_id="orders_ready", datasource="warehouse", table="sales.orders",
        partition={"dt": "{{ ds }}"}, poke_interval=60, timeout=6 * 3600, mode="reschedule",
    )

The platform's address and token come from the workers' environment (DQ_URL, DQ_TOKEN), never
from the DAG file. Outcomes (README "Workflows: run and wait, exit codes"):
- DataQualityRunOperator: nothing blocks → success (the verdict as XCom); a `block` check failed →
  failed without retries (AirflowFailException: retrying reads the same data); the run errored,
  was cancelled or did not end within `wait_timeout` → failed with retries (AirflowException).
- DataQualityGateSensor: published → success; quarantined or awaiting approval → failed, or
  skipped with `soft_fail=True`; still validating, or no batch registered yet → pokes again until
  the sensor's `timeout`.
"""

from __future__ import annotations

from typing import Any

try:  # Airflow 3: the task SDK
    from airflow.sdk import BaseOperator, BaseSensorOperator
    from airflow.sdk.exceptions import AirflowException, AirflowFailException
except ImportError:  # Airflow 2
    from airflow.exceptions import AirflowException, AirflowFailException
    from airflow.models import BaseOperator
    from airflow.sensors.base import BaseSensorOperator

try:
    from . import dq_client
except ImportError:  # the two files copied side by side, not as a package
    import dq_client


class DataQualityRunOperator(BaseOperator):
    """Start a run of `checks` and wait for its verdict (up to `wait_timeout` seconds)."""

    template_fields = ("checks", "biz_date", "idempotency_key")

    def __init__(
        self,
        *,
        checks: list[int],
        biz_date: str | None = None,
        backfill: bool = False,
        engine: str | None = None,
        idempotency_key: str | None = None,
        wait_timeout: float = 3600,
        dq_url: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.checks, self.biz_date, self.backfill, self.engine = checks, biz_date, backfill, engine
        self.idempotency_key, self.wait_timeout, self.dq_url = idempotency_key, wait_timeout, dq_url

    def execute(self, context) -> dict:
        try:
            outcome = dq_client.run_and_wait(
                dq_client.Platform(self.dq_url),
                [int(c) for c in self.checks],
                timeout=self.wait_timeout,
                biz_date=self.biz_date,
                backfill=self.backfill,
                engine=self.engine,
                idempotency_key=self.idempotency_key,
            )
        except dq_client.ClientError as exc:
            raise AirflowException(str(exc)) from None
        for line in dq_client.summary(outcome.body):
            self.log.info("%s", line)
        if outcome.code == dq_client.EXIT_BLOCKING:
            raise AirflowFailException(outcome.message)
        if outcome.code != dq_client.EXIT_OK:
            raise AirflowException(outcome.message)
        self.log.info("%s", outcome.message)
        return {k: outcome.body.get(k) for k in ("run", "status", "verdict", "blocking", "alerts", "url")}


class DataQualityGateSensor(BaseSensorOperator):
    """Poke the gate until the newest batch of `table`'s `partition` may be consumed."""

    template_fields = ("datasource", "table", "partition")

    def __init__(
        self,
        *,
        datasource: str,
        table: str,
        partition: dict[str, Any] | None = None,
        dq_url: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.datasource, self.table, self.partition, self.dq_url = datasource, table, partition or {}, dq_url

    def poke(self, context) -> bool:
        try:
            outcome = dq_client.ask_gate(
                dq_client.Platform(self.dq_url), str(self.datasource), self.table, dict(self.partition)
            )
        except dq_client.ClientError as exc:
            raise AirflowException(str(exc)) from None
        self.log.info("%s", outcome.message)
        if outcome.code == dq_client.EXIT_BLOCKING:  # held: soft_fail turns this into a skip
            raise AirflowFailException(outcome.message)
        return outcome.code == dq_client.EXIT_OK
