"""Finished runs without a worker, for API tests of who reads what.

`finished_run(checks, user, error_rows_dir)` starts a run exactly as POST /runs/ does
(`start_run`: frozen batches, check versions and datasources; in a test transaction the Celery
task is never enqueued), claims it, records one result per check with a small Parquet file of
error rows, and finishes it. Used by the authorization matrix (tests/test_authorization_matrix.py)
and the visibility tests of executions.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from executions.models import Result, Run
from executions.starting import start_run

# The rows a check on the restricted datasource "found": what must never reach an outsider.
SECRET_ROWS = {"order_id": [2], "status": [None], "note": ["restricted row"]}


def finished_run(checks, user, error_rows_dir: Path, rows: dict | None = None) -> Run:
    run, _ = start_run(list(checks), user)
    assert Run.claim(run.pk, run.attempt), "a fresh run must be claimable"
    run.refresh_from_db()
    for version in run.check_versions.all():
        _failed_result(run, version, error_rows_dir, rows or SECRET_ROWS)
    run.finish(Run.Status.FAILED, blocking=False)
    return run


def _failed_result(run: Run, version, error_rows_dir: Path, rows: dict) -> Result:
    path = error_rows_dir / f"run-{run.pk}" / f"version-{version.pk}"
    path.mkdir(parents=True)
    pq.write_table(pa.table(rows), path / "part-00000.parquet")
    count = len(next(iter(rows.values())))
    return Result.objects.create(
        run=run,
        check_version=version,
        rule_check_id=version.parent_check_id,
        batch=run.batches["assignments"][str(version.pk)]["batch"],
        status=Result.Status.FAIL,
        statistic_name="null_count.nulls",
        statistics_value=count,
        comparison_value=0,
        comparison_type="fix_value",
        check_type=version.params.get("check_type", "statistics_minus_comparison"),
        operator=version.params.get("operator", "le"),
        threshold=version.params.get("threshold", 0),
        failure_strategy=version.params.get("failure_strategy", "alert"),
        error_row_count=count,
        error_rows_written=count,
        error_rows_path=str(path),
        identity=version.content_hash,
        data_time=run.data_time,
    )
