"""A run's time limit is 15 minutes unless DQ_RUN_TIME_LIMIT says otherwise.

Read from a fresh interpreter with the DQ_ variables removed, as a fresh install would start; the
end-to-end behaviour at the limit (Spark jobs cancelled, the run `error`, the worker taking the
next run) is test_run_lifecycle_with_workers.py's.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django; django.setup(); from django.conf import settings; "
    "from executions.tasks import execute_run, time_limit_message; "
    "print(settings.DQ_RUN_TIME_LIMIT); print(execute_run.soft_time_limit, execute_run.time_limit); "
    "print(time_limit_message())"
)


def _settings(tmp_path, **env) -> list[str]:
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("DQ_", "DATABASE_URL", "CELERY_", "SECRET_KEY"))
    }
    environment.update({"DJANGO_SETTINGS_MODULE": "dq_platform.settings", "DQ_VAR_DIR": str(tmp_path), **env})
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_a_run_may_take_15_minutes_by_default_and_the_message_says_so(tmp_path):
    limit, backstops, message = _settings(tmp_path)

    assert limit == "900"
    soft, hard = map(int, backstops.split())
    assert 900 < soft < hard  # Celery's own limits only back the run watcher up
    assert message.startswith("The run took longer than its time limit (15 min) and was stopped.")


def test_the_time_limit_follows_the_setting(tmp_path):
    limit, _, message = _settings(tmp_path, DQ_RUN_TIME_LIMIT="1800")

    assert limit == "1800"
    assert "(30 min)" in message
