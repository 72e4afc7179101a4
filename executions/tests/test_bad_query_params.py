"""Bad filters and ids in query strings answer 400 naming the parameter, never a 500,
and a run of a check whose datasource was deleted is refused with a message saying what to do."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from executions.models import Run
from rules.models import Check

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/runs/?limit=-1", "limit"),
        ("/api/v1/runs/?offset=5", "offset"),
        ("/api/v1/checks/?limit=10", "limit"),
        ("/api/v1/runs/?status=bogus", "status"),
        ("/api/v1/runs/?check=abc", "check"),
        ("/api/v1/results/?check=abc", "check"),
        ("/api/v1/results/?run=abc", "run"),
        ("/api/v1/results/?run=-3", "run"),
        ("/api/v1/results/?run=99999999999999999999999", "run"),
        ("/api/v1/results/?status=bogus", "status"),
        ("/api/v1/results/?datasource=abc", "datasource"),
        ("/api/v1/checks/?datasource=abc", "datasource"),
        ("/api/v1/checks/export/?datasource=1.5", "datasource"),
        ("/api/v1/form-options/tables/?datasource=abc", "datasource"),
        ("/api/v1/form-options/columns/?datasource=abc&table=orders", "datasource"),
    ],
)
def test_a_bad_query_parameter_answers_400_naming_it(cast, api_as, url, field):
    response = api_as(cast.author).get(url)
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert list(body["fields"]) == [field] and body["fields"][field][0] and field in body["message"]


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/runs/?page_size=5&status=failed&check=1",
        "/api/v1/runs/?status=",  # an empty filter is no filter, as the browser app sends it
        "/api/v1/results/?status=fail&check=1&run=2",
        "/api/v1/checks/?datasource=3&template=null_check&search=x",
        "/api/v1/form-options/tables/?datasource=",
    ],
)
def test_good_and_empty_filters_still_answer_200(cast, api_as, url):
    assert api_as(cast.author).get(url).status_code == 200


def test_the_status_message_lists_the_statuses_to_use(cast, api_as):
    body = api_as(cast.author).get("/api/v1/results/?status=bogus").json()
    assert "pass, fail, error, unknown" in body["fields"]["status"][0]


@pytest.fixture
def check_on_deleted_datasource(cast, api_as, make_datasource, parquet_dir) -> Check:
    files = make_datasource(name="files", type="file", format="parquet", path=str(parquet_dir))
    params = {
        "src_datasource_id": files.pk,
        "src_table": "orders",
        "src_field": "status",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    response = api_as(cast.author).post(
        "/api/v1/checks/", {"name": "statuses", "template": "null_check", "params": params}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert api_as(cast.admin).delete(f"/api/v1/datasources/{files.pk}/").status_code == 204
    return Check.objects.get(pk=response.json()["id"])


@pytest.mark.parametrize("role", ["author", "admin"])
def test_running_a_check_whose_datasource_was_deleted_is_a_400_saying_so(
    cast, api_as, check_on_deleted_datasource, role
):
    response = api_as(getattr(cast, role)).post(
        "/api/v1/runs/", {"checks": [check_on_deleted_datasource.pk]}, format="json"
    )
    assert response.status_code == 400
    message = response.json()["fields"]["checks"][0]
    assert "'files'" in message and "deleted" in message and "edit the check" in message
    assert not Run.objects.exists()


def test_the_cli_refuses_it_too_with_exit_code_2(cast, check_on_deleted_datasource):
    with pytest.raises(CommandError, match="which was deleted") as raised:
        call_command("dq_run", "--check", str(check_on_deleted_datasource.pk), "--user", "author")
    assert raised.value.returncode == 2 and not Run.objects.exists()
