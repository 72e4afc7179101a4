"""A value range's bounds are typed by its column (numbers, dates, timestamps), and a required field
sent empty is a 400 naming it, never quietly its default."""

from __future__ import annotations

import psycopg
import pytest

from conftest import PG, PROBE_USER
from rules.models import Check

from .conftest import VERDICT

URL = "/api/v1/checks/"
SCHEMA = "dq_range"
# id, day, at, amount, label
ROWS = [
    (1, "2026-01-01", "2026-01-01 00:00:00", 5, "a"),
    (2, "2026-01-15", "2026-01-15 08:30:00", 50, "b"),
    (3, "2026-02-01", "2026-02-01 00:00:00", -1, "c"),
    (4, "2025-12-31", "2025-12-31 23:59:59", 10, "d"),
    (5, None, None, None, None),
    (6, "2026-03-10", "2026-03-10 12:00:00", 7, "e"),
]


@pytest.fixture(scope="module")
def range_table(shared_servers_lock):
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"CREATE TABLE {SCHEMA}.events (id int, day date, at timestamp, amount numeric(10,2), label text)")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.events VALUES (%s, %s, %s, %s, %s)", ROWS)
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield f"{SCHEMA}.events"
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def src(pg_datasource, range_table):
    return {"src_datasource_id": pg_datasource.pk, "src_table": range_table}


def _create(client, params, template="value_range_check", name="range"):
    return client.post(URL, {"name": name, "template": template, "params": params}, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "bounds"),
    [
        ("day", {"min_value": "2026-01-01", "max_value": "2026-01-31"}),
        ("at", {"min_value": "2026-01-01 00:00:00", "max_value": "2026-01-31T23:59:59"}),
        ("at", {"min_value": "2026-01-01"}),  # a date is its midnight
        ("amount", {"min_value": "0", "max_value": 10.5}),
    ],
)
def test_a_value_range_takes_bounds_of_its_columns_type(cast, api_as, src, field, bounds):
    response = _create(api_as(cast.author), {**src, "src_field": field, **bounds, **VERDICT})

    assert response.status_code == 201, response.json()
    saved = response.json()["params"]
    if field == "amount":  # numbers stay numbers, whatever form they came in
        assert saved["min_value"] == 0 and saved["max_value"] == 10.5
    else:
        assert {k: saved[k] for k in bounds} == bounds


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "bounds", "named", "words"),
    [
        ("day", {"min_value": 5}, "min_value", "must be a date for the date column 'day'"),
        ("day", {"max_value": "2026-02-30"}, "max_value", "not a calendar date"),
        ("day", {"min_value": "2026-01-01 10:00:00"}, "min_value", "YYYY-MM-DD"),
        ("at", {"max_value": 20260101}, "max_value", "must be a date and time for the timestamp column 'at'"),
        ("at", {"min_value": "2026-01-01T00:00:00+02:00"}, "min_value", "UTC offset"),
        ("amount", {"min_value": "2026-01-01"}, "min_value", "must be a number for the numeric column 'amount'"),
        ("label", {"min_value": 1}, "min_value", "a value range needs a numeric, date or timestamp column"),
        ("day", {"min_value": "2026-02-01", "max_value": "2026-01-01"}, "max_value", "below the minimum"),
        ("at", {"min_value": "2026-01-02", "max_value": "2026-01-01 23:00:00"}, "max_value", "below the minimum"),
    ],
)
def test_a_bound_that_does_not_fit_the_column_is_a_400_naming_it(cast, api_as, src, field, bounds, named, words):
    response = _create(api_as(cast.author), {**src, "src_field": field, **bounds, **VERDICT})

    assert response.status_code == 400, response.json()
    fields = response.json()["fields"]["params"]
    assert list(fields) == [named] and words in fields[named][0], fields
    assert not Check.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("empty", [None, "", "  "])
def test_a_threshold_sent_empty_is_a_400_naming_threshold_not_a_silent_zero(cast, api_as, valid_params, empty):
    response = _create(api_as(cast.author), {**valid_params["null_check"], "threshold": empty}, template="null_check")

    assert response.status_code == 400, response.json()
    assert list(response.json()["fields"]["params"]) == ["threshold"]
    assert "Threshold is required" in response.json()["fields"]["params"]["threshold"][0]
    assert not Check.objects.exists()


@pytest.mark.django_db
def test_a_patch_setting_the_threshold_to_null_is_refused_and_the_check_keeps_its_threshold(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, {**valid_params["null_check"], "threshold": 3}, template="null_check").json()

    response = client.patch(f"{URL}{check['id']}/", {"params": {"threshold": None}}, format="json")

    assert response.status_code == 400, response.json()
    assert list(response.json()["fields"]["params"]) == ["threshold"]
    assert Check.objects.get(pk=check["id"]).params["threshold"] == 3


@pytest.mark.django_db
def test_a_patch_with_null_clears_an_optional_bound(cast, api_as, src):
    client = api_as(cast.author)
    bounds = {"min_value": "2026-01-01", "max_value": "2026-01-31"}
    check = _create(client, {**src, "src_field": "day", **bounds, **VERDICT}).json()

    response = client.patch(f"{URL}{check['id']}/", {"params": {"max_value": None}}, format="json")

    assert response.status_code == 200, response.json()
    assert "max_value" not in response.json()["params"] and response.json()["params"]["min_value"] == "2026-01-01"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_run_counts_the_rows_outside_a_date_range_and_a_timestamp_range(
    cast, api_as, src, settings, tmp_path, monkeypatch
):
    from executions.models import Run
    from executions.tasks import execute_claimed_run

    settings.DQ_ERROR_DATA_ROOT = str(tmp_path)
    client = api_as(cast.author)
    day = _create(client, {**src, "src_field": "day", "min_value": "2026-01-01", "max_value": "2026-01-31", **VERDICT})
    # at in [2026-01-01 00:00:00, 2026-02-01 00:00:00]: both bounds themselves are inside.
    at = _create(
        client,
        {**src, "src_field": "at", "min_value": "2026-01-01", "max_value": "2026-02-01 00:00:00", **VERDICT},
        name="range at",
    )
    monkeypatch.setattr("executions.starting.enqueue", lambda run: None)  # this process runs it, no worker
    started = client.post("/api/v1/runs/", {"checks": [day.json()["id"], at.json()["id"]]}, format="json")
    assert started.status_code == 202, started.json()
    run = Run.objects.get(pk=started.json()["id"])
    assert Run.claim(run.pk, run.attempt)
    run.refresh_from_db()

    execute_claimed_run(run)

    results = {r.rule_check.name: r for r in run.results.all()}
    # Hand-counted from ROWS: days outside January 2026 are 2026-02-01, 2025-12-31 and 2026-03-10
    # (NULL is not counted); moments outside are 2025-12-31 23:59:59 and 2026-03-10 12:00:00.
    assert results["range"].statistics_value == 3 and results["range"].status == "fail", results["range"].message
    assert results["range at"].statistics_value == 2 and results["range at"].status == "fail"
    assert results["range"].error_row_count == 3 and results["range at"].error_row_count == 2
