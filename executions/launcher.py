"""Hands a job spec to the engine: in-process on the worker's long-lived SparkSession (default),
or as its own Spark application through `spark-submit` against DQ_SPARK_MASTER.

Secrets never touch disk or a command line: in-process they are passed as a mapping; for
spark-submit they travel in the child's environment, and the spec file names them only.

A run can be stopped (cancelled by a user, or past its time limit): `launch` takes a `should_stop`
callable that a watcher thread asks every WATCH_INTERVAL seconds; once it names a reason, the
watcher stops the run's work — it sets the engine's cancel event (the engine cancels its Spark job
group, …), or the spark-submit child's whole process group — and keeps doing so
until the engine returns (the engine would otherwise go on with its next pass), and `launch`
raises RunStopped with the reason.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings

from dq_engine.dispatch import needs_spark
from dq_engine.spark.jvm import functions_jar

from .jobs import PreparedJob

log = logging.getLogger(__name__)

_spark = None  # one SparkSession per worker process, created on first use, never at import

# How often the watcher asks whether to stop: a cancel takes effect within about this long.
WATCH_INTERVAL = 1.0
# Once stopping, how often it cancels again: the engine may start another job after a cancelled
# one (it evaluates checks one by one to isolate a failure), and each is cancelled this soon.
HALT_INTERVAL = 0.2
# A spark-submit child gets this long to end after SIGTERM before SIGKILL.
KILL_GRACE = 10

StopCheck = Callable[[], "str | None"]


class LaunchError(Exception):
    pass


class RunStopped(Exception):
    """The run was stopped before the engine finished; the message says why."""


def launch(job: PreparedJob, should_stop: StopCheck = lambda: None) -> dict[str, Any]:
    if settings.DQ_ENGINE_MODE == "spark_submit" and needs_spark(job.spec):
        return _spark_submit(job, should_stop)
    return _in_process(job, should_stop)  # no Spark needed (DuckDB, pushdown): no application either


def spark_session():
    global _spark
    if _spark is None:
        from dq_engine.spark.session import build_spark

        _spark = build_spark(master=settings.DQ_SPARK_MASTER, jars=settings.DQ_SPARK_JARS, app_name="dq-worker")
    return _spark


def _in_process(job: PreparedJob, should_stop: StopCheck) -> dict[str, Any]:
    import dq_engine

    cancel = threading.Event()  # the engine stops its work (its Spark job group, …) once this is set
    with _watching(should_stop, cancel.set) as stopped:
        try:
            # A session-maker, not a session: Spark starts only if a batch needs it.
            document = dq_engine.run(
                job.spec,
                job.secrets,
                spark=spark_session,
                cancel=cancel,
                engine_options={"duckdb_memory_limit": settings.DQ_DUCKDB_MEMORY_LIMIT or None},
            )
        except Exception:
            if stopped:  # the engine failed because its work was cancelled: say why
                raise RunStopped(stopped[0]) from None
            raise
    if stopped:
        raise RunStopped(stopped[0])
    return document


@contextmanager
def _watching(should_stop: StopCheck, halt: Callable[[], None]) -> Iterator[list[str]]:
    """Ask `should_stop` every WATCH_INTERVAL s while the block runs; once it gives a reason, put it
    in the yielded list and call `halt` then and at every later interval until the block ends."""
    stopped: list[str] = []
    done = threading.Event()

    def watch() -> None:
        from django.db import connection

        try:
            while not done.wait(HALT_INTERVAL if stopped else WATCH_INTERVAL):
                if not stopped:
                    reason = should_stop()
                    if not reason:
                        continue
                    log.warning("Stopping the run: %s", reason)
                    stopped.append(reason)
                try:
                    halt()
                except Exception:  # noqa: BLE001 — keep trying; the engine's end ends the watch
                    log.warning("Could not stop the run's work", exc_info=True)
        except Exception:  # noqa: BLE001 — a watcher that cannot ask (database down) leaves the run be
            log.exception("The run watcher stopped")
        finally:
            connection.close()  # this thread's own database connection

    watcher = threading.Thread(target=watch, name="dq-run-watch", daemon=True)
    watcher.start()
    try:
        yield stopped
    finally:
        done.set()
        watcher.join()


def _kill_group(process: subprocess.Popen) -> None:
    """SIGTERM the child's process group (spark-submit, its JVM and Python workers), SIGKILL later."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=KILL_GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _spark_submit(job: PreparedJob, should_stop: StopCheck) -> dict[str, Any]:
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
            # Where the cluster's executors call the driver back: this machine's address to them
            # (docker-compose sets SPARK_LOCAL_IP to the worker container's own address).
            f"spark.driver.host={os.environ.get('SPARK_LOCAL_IP', '127.0.0.1')}",
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
        # A session (and process group) of its own, so that stopping the run reaches the JVM and
        # every process it started, and nothing of the worker itself.
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            with _watching(should_stop, lambda: _kill_group(process)) as stopped:
                _, stderr = process.communicate()
        finally:
            _kill_group(process)  # the worker is going down (soft time limit, shutdown): take it along
        if stopped:
            raise RunStopped(stopped[0])
        if process.returncode != 0 or not out_file.exists():
            tail = "\n".join(stderr.strip().splitlines()[-5:])
            raise LaunchError(f"spark-submit exited with {process.returncode}: {tail}")
        return json.loads(out_file.read_text())
