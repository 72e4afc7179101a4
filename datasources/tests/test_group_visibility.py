"""A datasource limited to groups is invisible to everyone outside them."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def restricted(cast, make_datasource):
    return make_datasource(
        name="finance", type="postgresql", host="db", database="d", username="u", allowed_groups=[cast.analysts]
    )


def test_a_member_of_the_group_sees_the_restricted_datasource(cast, api_as, restricted):
    client = api_as(cast.author)
    assert [d["name"] for d in client.get("/api/v1/datasources/").json()["results"]] == ["finance"]
    assert client.get(f"/api/v1/datasources/{restricted.pk}/").status_code == 200


@pytest.mark.parametrize("suffix", ["", "tables/", "columns/?table=x"])
def test_a_user_outside_the_group_gets_404_for_every_endpoint(cast, api_as, restricted, suffix):
    client = api_as(cast.outsider)
    assert client.get("/api/v1/datasources/").json()["results"] == []
    assert client.get(f"/api/v1/datasources/{restricted.pk}/{suffix}").status_code == 404


def test_a_user_outside_the_group_cannot_test_the_connection(cast, api_as, restricted):
    assert api_as(cast.outsider).post(f"/api/v1/datasources/{restricted.pk}/test/").status_code == 404


def test_an_admin_sees_every_datasource_and_its_groups(cast, api_as, restricted):
    body = api_as(cast.admin).get(f"/api/v1/datasources/{restricted.pk}/").json()
    assert body["allowed_groups"] == ["analysts"]


def test_an_admin_limits_a_datasource_to_a_group_by_name(cast, api_as, make_datasource):
    datasource = make_datasource(name="open", type="postgresql", host="db", database="d", username="u")
    response = api_as(cast.admin).patch(
        f"/api/v1/datasources/{datasource.pk}/", {"allowed_groups": ["analysts"]}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert api_as(cast.outsider).get(f"/api/v1/datasources/{datasource.pk}/").status_code == 404
    unknown = api_as(cast.admin).patch(
        f"/api/v1/datasources/{datasource.pk}/", {"allowed_groups": ["nobody"]}, format="json"
    )
    assert unknown.status_code == 400 and "allowed_groups" in unknown.json()["fields"]
