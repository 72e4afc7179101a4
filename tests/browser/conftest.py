"""Browser tests: the built app in Debian's Chromium (Playwright), against a live Django server and
a real Celery worker with in-process Spark, both on the test database file, as `make run` runs them.

Reused from executions/tests/conftest.py: the worker process (`Worker`), the PostgreSQL tables with
planted defects (`e2e_tables`, `warehouse`: customer_email is NULL in row 2 and '' in row 3) and
`create_check`. The worker here lives only as long as this package's tests, so it never runs
beside the executions suite's own.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from playwright.sync_api import sync_playwright

from conftest import REDIS_URL
from executions.tests.conftest import SCHEMA, Worker, e2e_tables, warehouse  # noqa: F401  (fixtures)

# Playwright's sync API runs an event loop in this thread; Django's ORM must still be usable.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
README_SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium: pytest-playwright has no option for an executable, and nothing is downloaded."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing; install it with: apt-get install -y chromium", pytrace=False)
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


# pytest-playwright keeps one Playwright (and its asyncio loop) for the whole session. While that
# loop runs in this thread, Django's connection handler (asgiref Local, thread-critical) treats the
# thread as async and hands out *other* connection objects, which lack the serialized test data
# that `serialized_rollback` restores from: every transactional test after the browser tests would
# then start from an empty database. So Playwright lives only as long as this package, and the
# connections it brings get the serialized data. (These four override the plugin's session ones.)
@pytest.fixture(scope="package")
def playwright(_pw_api_request_contexts, django_db_setup):
    serialized = {alias: getattr(connections[alias], "_test_serialized_contents", None) for alias in connections}
    pw = sync_playwright().start()
    for alias, contents in serialized.items():
        if contents is not None:
            connections[alias]._test_serialized_contents = contents
    yield pw
    connections.close_all()  # the connections opened under Playwright's loop
    pw.stop()


@pytest.fixture(scope="package")
def browser_type(playwright, browser_name):
    return getattr(playwright, browser_name)


@pytest.fixture(scope="package")
def launch_browser(browser_type_launch_args, browser_type):
    return lambda **kwargs: browser_type.launch(**{**browser_type_launch_args, **kwargs})


@pytest.fixture(scope="package")
def browser(launch_browser):
    browser = launch_browser()
    yield browser
    browser.close()


@pytest.fixture(scope="package")
def browser_context_args():
    # Replaces the plugin's (session-scoped, it asks for Playwright for device descriptors; none used here).
    return {"viewport": {"width": 1280, "height": 860}, "locale": "en-US"}


@pytest.fixture(scope="session")
def built_app():
    """The tests drive the real build: `make test` runs scripts/build-frontend.sh before pytest."""
    if "frontend" not in " ".join(str(p) for p in settings.STATICFILES_DIRS):
        pytest.fail(
            "frontend/dist is missing: build the browser app first (scripts/build-frontend.sh, which make test runs).",
            pytrace=False,
        )


@pytest.fixture(scope="package")
def browser_worker(django_db_setup, tmp_path_factory):
    """A Celery worker on Redis sharing the test database file, with a queue of its own."""
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.ConnectionError as exc:
        pytest.fail(f"Redis unreachable at {REDIS_URL} ({exc}); start it with scripts/services.sh.", pytrace=False)
    queue = f"spark-browser-{os.getpid()}"
    previous_queue, settings.DQ_SPARK_QUEUE = settings.DQ_SPARK_QUEUE, queue
    previous_preview_queue, settings.DQ_PREVIEW_QUEUE = settings.DQ_PREVIEW_QUEUE, f"preview-browser-{os.getpid()}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test",
        "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "DQ_SPARK_MASTER": "local[2]",
        "DQ_SPARK_QUEUE": queue,
        "DQ_PREVIEW_QUEUE": settings.DQ_PREVIEW_QUEUE,
        # The worker's own limit on a preview: a first one starts its SparkSession, slow on a busy machine.
        "DQ_PREVIEW_TIMEOUT": "180",
        "DQ_ERROR_DATA_ROOT": str(tmp_path_factory.mktemp("browser-error-data")),
        "PYSPARK_PYTHON": sys.executable,
    }
    worker = Worker(env, tmp_path_factory.mktemp("browser-worker") / "worker.log")
    worker.start()
    yield worker
    worker.stop()
    settings.DQ_SPARK_QUEUE, settings.DQ_PREVIEW_QUEUE = previous_queue, previous_preview_queue


class Shots:
    """Screenshots of a test under test-artifacts/browser/, and with DQ_README_SCREENSHOTS=1 also
    the README's pictures under docs/screenshots/ (viewport only, to keep them small)."""

    def __init__(self, page, test_name: str):
        self.page, self.prefix = page, re.sub(r"[^a-z0-9]+", "-", test_name.lower()).strip("-")
        self.count = 0
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def __call__(self, step: str, readme: str | None = None) -> Path:
        self.count += 1
        path = ARTIFACTS / f"{self.prefix}-{self.count:02d}-{step}.png"
        self.page.wait_for_timeout(300)  # let transitions and the chart settle
        self.page.screenshot(path=str(path), full_page=True)
        if readme and os.environ.get("DQ_README_SCREENSHOTS") == "1":
            README_SHOTS.mkdir(parents=True, exist_ok=True)
            # The top of the page with nothing focused, at most 1400 px tall: small files for the README.
            self.page.evaluate("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
            self.page.wait_for_timeout(200)
            height = min(1400, self.page.evaluate("document.documentElement.scrollHeight"))
            clip = {"x": 0, "y": 0, "width": self.page.viewport_size["width"], "height": height}
            self.page.screenshot(path=str(README_SHOTS / f"{readme}.png"), full_page=True, clip=clip)
        return path


@pytest.fixture
def shots(page, request):
    return Shots(page, request.node.name)


@pytest.fixture
def console_errors(page):
    """JavaScript errors on the page; a test ends by asserting there were none it did not expect."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


def unexpected(errors: list[str]) -> list[str]:
    # A 400 the test provoked on purpose and the favicon are not faults of the app.
    allowed = ("status of 400", "favicon")
    return [e for e in errors if not any(a in e for a in allowed)]


def assert_top_bar_fits(page) -> None:
    """Every section's link shows in the top bar, clear of the account links (API, Admin, user)."""
    hidden, clearance = page.evaluate(
        "(() => { const nav = document.querySelector('[data-testid=topbar] nav');"
        " const account = document.querySelector('[data-testid=topbar] .account');"
        " return [nav.scrollWidth - nav.clientWidth,"
        " account.getBoundingClientRect().left - nav.getBoundingClientRect().right]; })()"
    )
    width = page.viewport_size["width"]
    assert hidden <= 0 and clearance >= 0, f"top bar at {width} px: {hidden}px of links hidden, {clearance}px clear"


def sign_in(page, base_url: str, username: str, password: str, path: str = "/") -> None:
    page.goto(base_url + path)
    page.wait_for_url(re.compile(r".*/login/.*"))
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_selector("[data-testid=topbar]")


def wait_until(condition, timeout: float = 180, interval: float = 0.25):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"Still waiting after {timeout} s")
        time.sleep(interval)


__all__ = ["SCHEMA", "sign_in", "unexpected", "wait_until"]
