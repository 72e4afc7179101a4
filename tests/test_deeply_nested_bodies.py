"""A JSON body nested deeper than the decoder can follow is a 400 in the error shape, not a 500."""

import pytest

from rules.models import Check

pytestmark = pytest.mark.django_db
DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("post", "/api/v1/checks/", '{"name": "x", "template": "null_check", "params": ' + DEEP + "}"),
        ("post", "/api/v1/checks/import/", '{"yaml": ' + DEEP + "}"),
        ("post", "/api/v1/runs/", '{"checks": ' + DEEP + "}"),
        ("patch", "/api/v1/datasources/{datasource}/", DEEP),
    ],
)
def test_a_50000_deep_json_body_answers_400(cast, api_as, make_datasource, method, url, body):
    datasource = make_datasource(name="db", type="postgresql", host="db", database="d", username="u")
    url = url.format(datasource=datasource.pk)
    response = getattr(api_as(cast.admin), method)(url, body, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["message"]
    assert not Check.objects.exists()
