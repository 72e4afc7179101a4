"""Every list endpoint pages the same way (dq_platform/pagination.py): `?page=&page_size=` →
`{"count", "next", "previous", "results"}`, 50 by default, at most 500, bad numbers a 400 naming
the parameter."""

import pytest

from executions.tests.test_dashboard import _check, _result

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/v1/datasources/",
    "/api/v1/rule-templates/",
    "/api/v1/comparison-types/",
    "/api/v1/checks/",
    "/api/v1/runs/",
    "/api/v1/results/",
    "/api/v1/results/latest/",
    "/api/v1/profiles/",
]


@pytest.fixture
def open_source(make_datasource):
    return make_datasource(name="open", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")


@pytest.mark.parametrize("url", LISTS)
def test_every_list_answers_one_page_with_its_count_and_links(cast, api_as, url):
    body = api_as(cast.admin).get(url, {"page_size": 2}).json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert len(body["results"]) == min(2, body["count"]) and body["previous"] is None
    assert (body["next"] is not None) == (body["count"] > 2)


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize(
    ("query", "field"),
    [({"page_size": "501"}, "page_size"), ({"page_size": "0"}, "page_size"), ({"page_size": "x"}, "page_size")]
    + [({"page": "0"}, "page"), ({"page": "-1"}, "page"), ({"page": "two"}, "page")],
)
def test_a_bad_page_or_page_size_answers_400_naming_it(cast, api_as, url, query, field):
    response = api_as(cast.admin).get(url, query)
    assert response.status_code == 400
    assert list(response.json()["fields"]) == [field]
    assert "whole number" in response.json()["fields"][field][0]


def test_results_come_fifty_to_a_page_newest_first_and_page_two_holds_the_rest(cast, api_as, open_source):
    check = _check("emails", open_source)
    made = [_result(check, "fail", hours_ago=60 - i) for i in range(55)]  # the last one is the newest
    client = api_as(cast.author)
    first = client.get("/api/v1/results/").json()
    assert first["count"] == 55 and len(first["results"]) == 50
    assert first["results"][0]["id"] == made[-1].pk
    second = client.get(first["next"]).json()
    assert [r["id"] for r in second["results"]] == [r.pk for r in reversed(made[:5])]
    assert second["next"] is None and second["previous"] is not None


def test_a_page_size_of_500_is_allowed(cast, api_as):
    assert api_as(cast.author).get("/api/v1/rule-templates/", {"page_size": 500}).json()["count"] == 17


def test_a_page_past_the_last_one_is_404(cast, api_as):
    response = api_as(cast.author).get("/api/v1/rule-templates/", {"page": 99})
    assert response.status_code == 404 and "Invalid page" in response.json()["message"]
