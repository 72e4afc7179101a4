"""Settings come from the environment and fail loudly, naming the variable, on a bad value."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parent.parent
PROBE = "import django; django.setup(); from django.conf import settings as s; print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL, s.DQ_SPARK_MASTER)"


def _django(tmp_path, **env):
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("DQ_", "DATABASE_URL", "CELERY_", "SECRET_KEY"))
    }
    environment.update({"DJANGO_SETTINGS_MODULE": "dq_platform.settings", "DQ_VAR_DIR": str(tmp_path), **env})
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )


def test_the_embedded_default_needs_no_server_and_runs_with_debug_off(tmp_path):
    result = _django(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "django.db.backends.sqlite3", "filesystem://", "local[2]"]
    assert (tmp_path / "celery-broker" / "queue").is_dir()


def test_dq_debug_turns_debug_on_for_development(tmp_path):
    result = _django(tmp_path, DQ_DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == "True"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"DQ_CONNECT_TIMEOUT": "soon"}, "DQ_CONNECT_TIMEOUT"),
        ({"DQ_DEBUG": "maybe"}, "DQ_DEBUG"),
        ({"DQ_MAX_BODY_BYTES": "big"}, "DQ_MAX_BODY_BYTES"),
        ({"DQ_TOKEN_TTL": "forever"}, "DQ_TOKEN_TTL"),
        ({"DATABASE_URL": "nosuchdb://x"}, "DATABASE_URL"),
        ({"DQ_FERNET_KEYS": "not-a-key"}, "DQ_FERNET_KEYS"),
        ({"CELERY_BROKER_URL": "carrier-pigeon://coop"}, "CELERY_BROKER_URL"),
        ({"DQ_ENV": "staging"}, "DQ_ENV"),
        ({"DQ_RELEASE_MAX_DAYS": "0"}, "DQ_RELEASE_MAX_DAYS"),
        ({"DQ_MUTE_MAX_DAYS": "a month"}, "DQ_MUTE_MAX_DAYS"),
    ],
)
def test_a_bad_value_stops_startup_naming_the_variable(tmp_path, env, words):
    result = _django(tmp_path, **env)
    assert result.returncode != 0
    assert words in result.stderr


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    result = _django(tmp_path, DQ_ENV="production", DQ_FERNET_KEYS=Fernet.generate_key().decode())
    assert result.returncode != 0 and "needs SECRET_KEY" in result.stderr


def test_production_refuses_to_start_without_a_fernet_key(tmp_path):
    result = _django(tmp_path, DQ_ENV="production", SECRET_KEY="x" * 60)
    assert result.returncode != 0 and "needs DQ_FERNET_KEYS" in result.stderr


def test_production_turns_debug_off_and_cookies_secure(tmp_path):
    result = _django(
        tmp_path,
        DQ_ENV="production",
        SECRET_KEY="k" * 60,
        DQ_DEBUG="true",
        DQ_FERNET_KEYS=Fernet.generate_key().decode(),
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        DATABASE_URL="postgres://u:p@127.0.0.1:5432/dq",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "True",
        "django.db.backends.postgresql",
        "redis://127.0.0.1:6379/0",
        "local[2]",
    ]
