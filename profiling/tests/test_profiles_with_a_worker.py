"""A profile asked through the API is run by a real Celery worker (Redis broker), as in production."""

from __future__ import annotations

import time

import pytest

from .conftest import assert_matches, fixture_rows

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def wait_for_profile(client, url: str, timeout: float = 120) -> dict:
    """Poll the profile as a page would, until it ends."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(url).json()
        if body["status"] not in ("queued", "running"):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"Profile {url} still {body['status']} after {timeout} s")
        time.sleep(0.3)


def test_a_worker_profiles_a_parquet_dataset_and_the_poll_ends_done(
    cast, api_as, make_datasource, lake_files, celery_worker_process
):
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(lake_files / "parquet"))
    client = api_as(cast.author)

    posted = client.post("/api/v1/profiles/", {"datasource": lake.pk, "table": "orders"}, format="json")
    assert posted.status_code == 202, posted.json()
    profile = wait_for_profile(client, posted.json()["url"])

    assert profile["status"] == "done", (profile["message"], celery_worker_process.log_tail())
    assert profile["started_at"] and profile["finished_at"] and profile["engine_used"] == "duckdb"
    assert_matches(profile["document"], fixture_rows())
