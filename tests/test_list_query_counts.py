"""Every list endpoint costs a bounded number of SQL queries, whatever its page holds: a page of
50 rows makes exactly as many queries as a page of 5 (no query per row), for a member whose
visibility is decided row by row (datasource groups), with ~60 checks, runs and incidents."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from bench.load_seed import seed
from executions.tests.conftest import create_check

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/v1/checks/",
    "/api/v1/results/",
    "/api/v1/results/?latest=true",
    "/api/v1/results/latest/",
    "/api/v1/runs/",
    "/api/v1/incidents/",
]
# Authentication, the count, the page and its prefetches: a handful, never one per row.
MAX_QUERIES = 12


@pytest.fixture
def member_client(cast, api_as, parquet_dir, make_datasource):
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    create_check(
        api_as(cast.author),
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
    token = seed(checks=60, results=3000, checks_per_run=50)  # 60 runs of 50 results
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/checks/").json()["count"] >= 60
    return client


def _queries(client, path: str, page_size: int) -> tuple[int, int, list[str]]:
    separator = "&" if "?" in path else "?"
    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"{path}{separator}page_size={page_size}")
    assert response.status_code == 200, response.json()
    return len(response.json()["results"]), len(captured), [q["sql"][:200] for q in captured]


@pytest.mark.parametrize("path", LISTS)
def test_a_page_of_fifty_rows_makes_as_many_queries_as_a_page_of_five(member_client, path):
    rows_5, queries_5, _ = _queries(member_client, path, 5)
    rows_50, queries_50, sql = _queries(member_client, path, 50)

    assert (rows_5, rows_50) == (5, 50), f"{path}: the member should see at least 50 rows"
    assert queries_50 == queries_5, f"{path}: {queries_5} queries for 5 rows, {queries_50} for 50:\n" + "\n".join(sql)
    assert queries_50 <= MAX_QUERIES, f"{path}: {queries_50} queries:\n" + "\n".join(sql)


def test_the_dashboard_summary_makes_a_bounded_number_of_queries(member_client, django_assert_max_num_queries):
    with django_assert_max_num_queries(MAX_QUERIES):
        summary = member_client.get("/api/v1/results/summary/").json()
    assert summary["checks"] >= 60 and summary["results"] == 3000
