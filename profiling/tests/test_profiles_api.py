"""Profiles through the API, run by the worker's task in this process, on the engine each table
gets, every figure checked against the truth computed in plain Python over the fixture rows."""

from __future__ import annotations

import pytest

from conftest import MYSQL, MYSQL_TEST_DB, PG_PROBE_DATASOURCE, PROBE_PASSWORD, PROBE_USER

from .conftest import COLUMNS, as_csv_reads_it, assert_matches, fixture_rows, write_csv

pytestmark = pytest.mark.django_db


@pytest.fixture
def ask(django_capture_on_commit_callbacks, monkeypatch):
    """`ask(client, body)` → (the POST's response, the profile as a GET gives it once its task ran
    in this process, as a worker would run it)."""
    from profiling import tasks, views

    monkeypatch.setattr(views, "enqueue_profile", lambda pk: tasks.execute_profile.run(pk))

    def post(client, body):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post("/api/v1/profiles/", body, format="json")
        if response.status_code != 202:
            return response, None
        return response, client.get(f"/api/v1/profiles/{response.json()['id']}/").json()

    return post


@pytest.fixture
def lake(make_datasource, lake_files):
    return make_datasource(name="lake", type="file", format="parquet", path=str(lake_files / "parquet"))


@pytest.fixture
def drop(make_datasource, lake_files):
    return make_datasource(name="drop", type="file", format="csv", path=str(lake_files / "csv"))


@pytest.fixture
def warehouse(make_datasource, pg_profile_table):
    return make_datasource(name="warehouse", **PG_PROBE_DATASOURCE)


def test_a_postgresql_table_is_profiled_by_the_database_and_every_figure_is_right(cast, api_as, ask, warehouse):
    response, profile = ask(api_as(cast.author), {"datasource": warehouse.pk, "table": "dq_profiles.orders"})

    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert profile["status"] == "done", profile["message"]
    document = profile["document"]
    assert document["engine"] == "pushdown" and profile["engine_used"] == "pushdown"
    assert document["sample"] == {"rows": 30, "method": "full", "fraction": None, "row_guard": 1_000_000}
    assert document["source"] == {"datasource": "warehouse", "table": "dq_profiles.orders", "filter": None}
    assert_matches(document, fixture_rows())
    assert profile["requested_by"] == "author" and profile["row_count"] == 30 and profile["columns"] == 7


def test_a_parquet_dataset_is_profiled_by_duckdb_and_every_figure_is_right(cast, api_as, ask, lake):
    _, profile = ask(api_as(cast.author), {"datasource": lake.pk, "table": "orders"})

    assert profile["status"] == "done", profile["message"]
    assert profile["document"]["engine"] == "duckdb"
    assert_matches(profile["document"], fixture_rows())
    types = {c["name"]: c["type"] for c in profile["document"]["columns"]}
    assert types["amount"] == "DECIMAL(10,2)" and types["placed_on"] == "DATE"


def test_a_csv_file_is_profiled_by_duckdb_and_its_empty_fields_count_as_nulls(cast, api_as, ask, drop):
    _, profile = ask(api_as(cast.author), {"datasource": drop.pk, "table": "orders"})

    assert profile["status"] == "done", profile["message"]
    assert profile["document"]["engine"] == "duckdb"
    # An empty CSV field is NULL to the readers (Spark's and DuckDB's), so the truth has NULLs there.
    assert_matches(profile["document"], as_csv_reads_it(fixture_rows()))


def test_a_batch_is_profiled_with_its_filter(cast, api_as, ask, warehouse):
    body = {"datasource": warehouse.pk, "table": "dq_profiles.orders", "filter": "qty = 1 AND status IS NOT NULL"}
    _, profile = ask(api_as(cast.author), body)

    rows = [r for r in fixture_rows() if r[5] == 1 and r[3] is not None]
    assert profile["status"] == "done", profile["message"]
    assert profile["filter"] == body["filter"] and profile["document"]["source"]["filter"] == body["filter"]
    assert_matches(profile["document"], rows)


def test_a_table_beyond_the_row_guard_is_sampled_and_the_document_says_so(cast, api_as, ask, lake, settings):
    settings.DQ_PROFILE_ROW_GUARD = 12
    _, profile = ask(api_as(cast.author), {"datasource": lake.pk, "table": "orders"})

    document = profile["document"]
    assert profile["status"] == "done", profile["message"]
    assert document["row_count"] == 30  # the table's rows, exact
    sample = document["sample"]
    assert sample["method"] == "sample" and sample["row_guard"] == 12 and sample["fraction"] == pytest.approx(12 / 30)
    assert 0 < sample["rows"] < 30
    ids = next(c for c in document["columns"] if c["name"] == "id")
    assert all(c["rows"] == sample["rows"] for c in document["columns"])
    assert ids["nulls"] == 0 and ids["distinct"] == sample["rows"]  # every id once: the sample's rows


def test_a_profile_of_a_datasource_the_user_may_not_read_is_404(cast, api_as, ask, make_datasource, lake_files):
    restricted = make_datasource(
        name="restricted",
        type="file",
        format="parquet",
        path=str(lake_files / "parquet"),
        allowed_groups=[cast.analysts],
    )
    response, _ = ask(api_as(cast.outsider), {"datasource": restricted.pk, "table": "orders"})
    _, profile = ask(api_as(cast.author), {"datasource": restricted.pk, "table": "orders"})

    assert response.status_code == 404 and set(response.json()) == {"message", "fields"}
    assert profile["status"] == "done"
    outsider = api_as(cast.outsider)
    assert outsider.get(f"/api/v1/profiles/{profile['id']}/").status_code == 404
    assert outsider.get(f"/api/v1/profiles/{profile['id']}/changes/").status_code == 404
    assert outsider.get(f"/api/v1/profiles/?datasource={restricted.pk}").status_code == 404
    assert outsider.get("/api/v1/profiles/").json()["count"] == 0
    assert api_as(cast.author).get("/api/v1/profiles/").json()["count"] == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"table": "no_such_table"}, "table"),
        ({"table": "orders", "filter": "nope > 1"}, "filter"),
        ({"table": "orders", "filter": "1=1; DROP TABLE x"}, "filter"),
        ({"table": "orders", "engine": "pushdown"}, "engine"),
        ({"table": "orders", "engine": "oracle"}, "engine"),
        ({}, "table"),
    ],
)
def test_a_bad_table_filter_or_engine_is_a_400_naming_the_field(cast, api_as, ask, lake, body, field):
    response, _ = ask(api_as(cast.author), {"datasource": lake.pk, **body})

    assert response.status_code == 400, response.json()
    assert field in response.json()["fields"], response.json()


def test_a_missing_or_unknown_datasource_is_a_400_or_a_404(cast, api_as, ask):
    missing, _ = ask(api_as(cast.author), {"table": "orders"})
    unknown, _ = ask(api_as(cast.author), {"datasource": 9999, "table": "orders"})

    assert missing.status_code == 400 and "datasource" in missing.json()["fields"]
    assert unknown.status_code == 404


def test_profiles_of_a_table_are_listed_newest_first_and_say_what_changed(cast, api_as, ask, drop, lake_files):
    client = api_as(cast.author)
    _, first = ask(client, {"datasource": drop.pk, "table": "orders"})
    # The file changes: 10 more rows whose amount is NULL, and a new column.
    rows = fixture_rows()
    more = [(*row[:6], row[6], "x") for row in rows] + [
        (100 + i, None, "new@example.com", "paid", None, 1, "n", "y") for i in range(10)
    ]
    write_csv(lake_files / "csv" / "orders.csv", [*COLUMNS, "extra"], more)
    _, second = ask(client, {"datasource": drop.pk, "table": "orders"})

    listed = client.get(f"/api/v1/profiles/?datasource={drop.pk}&table=orders").json()
    assert [p["id"] for p in listed["results"]] == [second["id"], first["id"]]
    assert first["changes"]["previous"] is None and first["changes"]["moves"] == []
    changes = second["changes"]
    assert changes["previous"]["id"] == first["id"]
    assert changes["row_count"] == {"before": 30, "after": 40, "change": 10, "relative": pytest.approx(10 / 30)}
    assert changes["columns_added"] == [{"name": "extra", "type": "VARCHAR"}] and changes["columns_removed"] == []
    nulls_before = sum(1 for r in rows if r[1] is None) / 30
    nulls_after = (sum(1 for r in rows if r[1] is None) + 10) / 40
    amount_null_share = [m for m in changes["moves"] if m["column"] == "amount" and m["figure"] == "null_share"]
    assert amount_null_share == [
        {
            "column": "amount",
            "figure": "null_share",
            "before": pytest.approx(nulls_before),
            "after": pytest.approx(nulls_after),
            "change": pytest.approx(nulls_after - nulls_before),
        }
    ]
    assert client.get(f"/api/v1/profiles/{second['id']}/changes/").json()["changes"] == changes


def test_a_mariadb_table_is_profiled_by_the_database_counting_case_apart(
    cast, api_as, ask, make_datasource, mysql_profile_table
):
    shop = make_datasource(
        name="shop",
        type="mysql",
        host=MYSQL["host"],
        port=MYSQL["port"],
        database=MYSQL_TEST_DB,
        username=PROBE_USER,
        password=PROBE_PASSWORD,
    )
    response, profile = ask(api_as(cast.author), {"datasource": shop.pk, "table": f"{MYSQL_TEST_DB}.profiled"})
    assert response.status_code == 202, response.json()

    assert profile["status"] == "done", profile["message"]
    assert profile["document"]["engine"] == "pushdown"
    assert_matches(profile["document"], mysql_profile_table)
    status = next(c for c in profile["document"]["columns"] if c["name"] == "status")
    assert {v["value"] for v in status["top_values"]} == {"paid", "PAID", "void", "shipped"}


@pytest.mark.spark
def test_a_spark_profile_of_the_parquet_dataset_has_the_same_right_figures(cast, api_as, ask, lake, spark, monkeypatch):
    from executions import launcher

    monkeypatch.setattr(launcher, "_spark", spark)  # the worker's warm session
    _, profile = ask(api_as(cast.author), {"datasource": lake.pk, "table": "orders", "engine": "spark"})

    assert profile["status"] == "done", profile["message"]
    assert profile["document"]["engine"] == "spark"
    assert_matches(profile["document"], fixture_rows())


def test_a_page_of_fifty_profiles_makes_as_many_queries_as_a_page_of_five(cast, api_as, lake, make_datasource):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from profiling.models import Profile

    restricted = make_datasource(
        name="restricted", type="file", format="parquet", path=lake.path, allowed_groups=[cast.analysts]
    )
    for index in range(60):
        Profile.objects.create(
            datasource=restricted if index % 2 else lake,
            table="orders",
            status=Profile.Status.DONE,
            document={"row_count": index, "columns": [], "engine": "duckdb"},
            requested_by=cast.author,
        )
    client = api_as(cast.author)
    counts = []
    for size in (5, 50):
        with CaptureQueriesContext(connection) as captured:
            body = client.get(f"/api/v1/profiles/?page_size={size}").json()
        assert len(body["results"]) == size and body["count"] == 60
        counts.append(len(captured))
    assert counts[0] == counts[1] <= 12, counts
    assert api_as(cast.outsider).get("/api/v1/profiles/").json()["count"] == 30  # the open datasource's
