"""The checks list builds its rows from column values (rules/check_rows.py); each row must be what
the check's own page (CheckSerializer) says about it."""

import pytest
from django.db.models import F

from executions.tests.conftest import create_check
from rules.models import Check, RuleTemplate

pytestmark = pytest.mark.django_db
URL = "/api/v1/checks/"
RULE = {"check_type": "statistics_minus_comparison", "failure_strategy": "alert", "comparison_type": "fix_value"}


@pytest.fixture
def varied_checks(cast, api_as, parquet_dir, make_datasource):
    """Checks with different rules, one whose owner's account is gone, one whose template moved on."""
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    client = api_as(cast.author)
    on_status = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status"}
    create_check(
        client, "nulls at most 0", "null_check", **on_status, **RULE, operator="le", threshold=0, comparison_value=0
    )
    create_check(
        client, "nulls under 2.5", "null_check", **on_status, **RULE, operator="lt", threshold=2.5, comparison_value=0
    )
    orphan = create_check(
        client, "ownerless", "null_check", **on_status, **RULE, operator="le", threshold=1, comparison_value=0
    )
    Check.objects.filter(pk=orphan).update(owner=None)
    moved_on = create_check(
        client, "ids unique", "uniqueness_check", **on_status, **RULE, operator="le", threshold=0, comparison_value=0
    )
    RuleTemplate.objects.filter(checks=moved_on).update(version=F("version") + 1)
    return lake


@pytest.mark.parametrize("who", ["author", "admin"])
def test_every_listed_check_reads_as_on_its_own_page(cast, api_as, varied_checks, who):
    client = api_as(getattr(cast, who))
    listed = client.get(URL, {"page_size": 500}).json()["results"]

    assert [row["name"] for row in listed] == ["ids unique", "nulls at most 0", "nulls under 2.5", "ownerless"]
    assert [row for row in listed if row["owner"] is None and row["name"] == "ownerless"]
    assert [row for row in listed if row["upgrade_available"] and row["name"] == "ids unique"]
    for row in listed:
        assert row == client.get(f"{URL}{row['id']}/").json()


def test_a_page_of_checks_has_the_list_count_and_the_right_slice(cast, api_as, varied_checks):
    client = api_as(cast.author)
    second = client.get(URL, {"page_size": 3, "page": 2}).json()

    assert second["count"] == 4 and [row["name"] for row in second["results"]] == ["ownerless"]
    assert second["next"] is None and second["previous"].endswith("page_size=3")
