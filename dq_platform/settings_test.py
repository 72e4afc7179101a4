"""Test defaults, set before the one settings module reads the environment: tests keep their
state under var/test (never a developer's var/), and a real Redis broker carries the tasks of the
end-to-end tests. Anything set in the environment still wins."""

import os
from pathlib import Path

os.environ.setdefault("DQ_VAR_DIR", str(Path(__file__).resolve().parent.parent / "var" / "test"))
os.environ.setdefault("CELERY_BROKER_URL", os.environ.get("DQ_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
os.environ.setdefault("CELERY_RESULT_BACKEND", os.environ["CELERY_BROKER_URL"])

from .settings import *  # noqa: E402, F403
