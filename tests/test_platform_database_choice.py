"""The platform keeps its own data in SQLite or PostgreSQL; any other DATABASE_URL stops it at
start with a message that says what to use, instead of failing half-way through migrations."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings


def _check(database_url: str, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url, "DQ_VAR_DIR": str(tmp_path)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("url", ["mysql://root@127.0.0.1:3306/test", "oracle://u:p@db:1521/x"])
def test_a_database_the_platform_is_not_tested_on_is_refused_at_start_with_what_to_use(url, tmp_path):
    answer = _check(url, tmp_path)
    assert answer.returncode != 0
    assert "DATABASE_URL must be sqlite:///PATH or postgres://" in answer.stderr


def test_postgresql_is_accepted_as_the_platform_database(tmp_path):
    answer = _check("postgres://postgres@127.0.0.1:5432/test", tmp_path)
    assert answer.returncode == 0, answer.stderr[-2000:]
