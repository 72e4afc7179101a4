"""Hands a job spec to the engine: in-process on the worker's long-lived SparkSession (default),
or as its own Spark application through `spark-submit` against DQ_SPARK_MASTER.

Secrets never touch disk or a command line: in-process they are passed as a mapping; for
spark-submit they travel in the child's environment, and the spec file names them only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings

from dq_engine.spark.jvm import functions_jar

from .jobs import PreparedJob

_spark = None  # one SparkSession per worker process, created on first use, never at import


class LaunchError(Exception):
    pass


def launch(job: PreparedJob) -> dict[str, Any]:
    if settings.DQ_ENGINE_MODE == "spark_submit":
        return _spark_submit(job)
    return _in_process(job)


def spark_session():
    global _spark
    if _spark is None:
        from dq_engine.spark.session import build_spark

        _spark = build_spark(master=settings.DQ_SPARK_MASTER, jars=settings.DQ_SPARK_JARS, app_name="dq-worker")
    return _spark


def _in_process(job: PreparedJob) -> dict[str, Any]:
    import dq_engine

    return dq_engine.run(job.spec, job.secrets, spark=spark_session)  # Spark starts only if a batch needs it


def _spark_submit(job: PreparedJob) -> dict[str, Any]:
    workdir = Path(settings.VAR_DIR) / "jobs"
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        spec_file, out_file = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        spec_file.write_text(json.dumps(job.spec))
        spec_file.chmod(0o600)
        venv_bin = Path(sys.executable).parent
        command = [
            str(venv_bin / "spark-submit"),
            "--master",
            settings.DQ_SPARK_MASTER,
            "--conf",
            "spark.ui.showConsoleProgress=false",
            "--conf",
            "spark.driver.host=127.0.0.1",
        ]
        jars = [j for j in [*settings.DQ_SPARK_JARS, *functions_jar()] if Path(j).exists()]
        if jars:
            command += ["--jars", ",".join(jars), "--driver-class-path", ":".join(jars)]
        command += [
            str(Path(settings.BASE_DIR) / "dq_engine" / "__main__.py"),
            "--spec",
            str(spec_file),
            "--out",
            str(out_file),
        ]
        env = {
            **os.environ,
            **job.secrets,
            "PYTHONPATH": str(settings.BASE_DIR),
            "PYSPARK_PYTHON": sys.executable,
            "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
        }
        completed = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=settings.DQ_RUN_SOFT_TIME_LIMIT
        )
        if completed.returncode != 0 or not out_file.exists():
            tail = "\n".join(completed.stderr.strip().splitlines()[-5:])
            raise LaunchError(f"spark-submit exited with {completed.returncode}: {tail}")
        return json.loads(out_file.read_text())
