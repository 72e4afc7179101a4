"""A read-only request asks once which datasources its user may read (datasources/readable.py),
and the next request asks again: leaving a group hides its data at once."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


@pytest.fixture
def failing_check_on_the_analysts_lake(cast, lake, make_check, finish_run):
    lake.allowed_groups.set([cast.analysts])
    check = make_check("statuses present")
    finish_run([check], {check: 2})  # 2 NULLs > 0: a failure, and its incident
    return check


def _statements(client, path: str) -> list[str]:
    seen: list[str] = []

    def remember(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(remember):
        response = client.get(path)
    assert response.status_code == 200, response.json()
    return seen


def test_a_member_who_leaves_the_group_no_longer_sees_its_checks_or_incidents_on_the_next_request(
    cast, api_as, failing_check_on_the_analysts_lake
):
    check = failing_check_on_the_analysts_lake
    member = api_as(cast.author)
    assert [c["id"] for c in member.get("/api/v1/checks/").json()["results"]] == [check.pk]
    assert [i["check"] for i in member.get("/api/v1/incidents/").json()["results"]] == [check.pk]

    cast.author.groups.remove(cast.analysts)

    assert member.get("/api/v1/checks/").json()["results"] == []
    assert member.get("/api/v1/incidents/").json()["results"] == []
    assert member.get(f"/api/v1/checks/{check.pk}/").status_code == 404


def test_a_page_of_incidents_asks_once_which_datasources_its_reader_may_read(
    cast, api_as, failing_check_on_the_analysts_lake
):
    # An incident is judged by its check and by its results' runs: two questions, one answer.
    statements = _statements(api_as(cast.author), "/api/v1/incidents/")
    asked = [sql for sql in statements if "datasources_datasource_allowed_groups" in sql]
    assert len(asked) == 1, asked
