"""List pages are kept per web process while the database is unchanged, and never given once
anything was committed since they were made: by this process, by another connection, by another
process (a worker). Each user gets their own pages."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from conftest import _pg_connect
from dq_platform import kept_pages
from executions.tests.conftest import create_check

LISTS = [
    "/api/v1/checks/",
    "/api/v1/results/?latest=true",
    "/api/v1/results/summary/",
    "/api/v1/runs/",
    "/api/v1/incidents/",
]


@pytest.fixture(autouse=True)
def no_pages_of_other_tests():
    kept_pages.pages.clear()
    yield
    kept_pages.pages.clear()


def test_a_commit_by_another_connection_changes_sqlites_data_version_and_a_read_does_not(tmp_path):
    path = str(tmp_path / "platform.sqlite3")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE t (x integer)")
    before = kept_pages.sqlite_version(path)
    assert kept_pages.sqlite_version(path) == before
    writer.execute("SELECT count(*) FROM t").fetchone()
    assert kept_pages.sqlite_version(path) == before
    writer.execute("BEGIN")
    writer.execute("INSERT INTO t VALUES (1)")
    assert kept_pages.sqlite_version(path) == before  # not committed: nobody can read it yet
    writer.execute("COMMIT")
    assert kept_pages.sqlite_version(path) != before


def test_a_postgresql_commit_moves_the_version_after_a_reader_could_see_its_uncommitted_write(pg_server):
    writer, reader = _pg_connect(), _pg_connect(user="dq_password_probe", password="Probe-pass-7Q!x")
    try:
        writer.execute("CREATE TEMP TABLE kept_probe (x integer)")  # temp: no trace in the database
        writer.autocommit = False
        writer.execute("INSERT INTO kept_probe VALUES (1)")
        during = kept_pages.postgres_version(reader.cursor())  # an ordinary role may ask
        writer.commit()
        assert kept_pages.postgres_version(reader.cursor()) != during
    finally:
        writer.close()
        reader.close()


@pytest.fixture
def lake(make_datasource, parquet_dir, cast):
    """Readable by the analysts (the author) and admins, not by the outsider."""
    return make_datasource(
        name="lake", type="file", format="parquet", path=str(parquet_dir), allowed_groups=[cast.analysts]
    )


@pytest.fixture
def author_lists(cast, api_as, lake):
    """The author's client, with one check on the lake, committed (no test transaction)."""
    client = api_as(cast.author)
    create_check(
        client,
        "status present",
        "null_check",
        src_datasource_id=lake.pk,
        src_table="orders",
        src_field="status",
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy="alert",
        comparison_type="fix_value",
        comparison_value=0,
    )
    return client


def _get(client, path):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, response.content[:500]
    return response, len(captured)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_unchanged_list_is_given_again_without_asking_the_database_for_its_rows(author_lists):
    for path in LISTS:
        first, made_with = _get(author_lists, path)
        again, kept_with = _get(author_lists, path)
        assert again.content == first.content
        assert again["Content-Type"] == first["Content-Type"] == "application/json"
        # The session and its user only: no count, no rows, no visibility asked.
        assert kept_with == 2 < made_with


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_check_created_through_the_api_is_listed_at_once(author_lists, lake):
    assert [c["name"] for c in author_lists.get("/api/v1/checks/").json()["results"]] == ["status present"]
    create_check(
        author_lists,
        "amount present",
        "null_check",
        src_datasource_id=lake.pk,
        src_table="orders",
        src_field="amount",
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy="alert",
        comparison_type="fix_value",
        comparison_value=0,
    )
    names = {c["name"] for c in author_lists.get("/api/v1/checks/").json()["results"]}
    assert names == {"status present", "amount present"}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_write_by_another_process_is_seen_on_the_next_request(author_lists):
    assert author_lists.get("/api/v1/checks/").json()["results"][0]["name"] == "status present"
    renamed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute(\"UPDATE rules_check SET name = 'renamed by a worker'\"); c.commit()",
            str(connection.settings_dict["NAME"]),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert renamed.returncode == 0, renamed.stderr
    assert author_lists.get("/api/v1/checks/").json()["results"][0]["name"] == "renamed by a worker"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_each_user_gets_their_own_page(author_lists, cast, api_as):
    assert author_lists.get("/api/v1/checks/").json()["count"] == 1
    assert api_as(cast.outsider).get("/api/v1/checks/").json()["count"] == 0
    assert api_as(cast.admin).get("/api/v1/checks/").json()["count"] == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_page_older_than_its_time_limit_is_made_again(author_lists, settings):
    settings.DQ_KEPT_PAGE_SECONDS = 0
    _get(author_lists, "/api/v1/runs/")
    _, queries = _get(author_lists, "/api/v1/runs/")
    assert queries > 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_keeping_is_off_with_no_budget(author_lists, settings):
    settings.DQ_KEPT_PAGE_MB = 0
    _get(author_lists, "/api/v1/incidents/")
    _, queries = _get(author_lists, "/api/v1/incidents/")
    assert queries > 1


@pytest.mark.django_db
def test_a_page_read_inside_a_transaction_is_not_kept(cast, api_as):
    # pytest-django's `db` holds every test in a transaction that is never committed: what the
    # test writes is invisible to others and never changes the data version.
    client = api_as(cast.author)
    _get(client, "/api/v1/checks/")
    _, queries = _get(client, "/api/v1/checks/")
    assert queries > 1
    assert kept_pages.pages.size == 0
