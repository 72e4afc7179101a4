"""Who answers for a datasource's data (`Datasource.objects.owned_by`): its owners and the members
of its owner groups, while they may use it, and admins."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from datasources.models import Datasource

pytestmark = pytest.mark.django_db
FILES = {"type": "file", "format": "parquet"}


def owned(user) -> set[str]:
    return set(Datasource.objects.owned_by(user).values_list("name", flat=True))


def test_owners_are_named_users_and_members_of_owner_groups_who_may_use_the_datasource(
    cast, make_datasource, parquet_dir
):
    stewards = Group.objects.create(name="stewards")
    cast.outsider.groups.add(stewards)
    shop = make_datasource(name="shop", path=str(parquet_dir), **FILES)
    vault = make_datasource(name="vault", path=str(parquet_dir), allowed_groups=[cast.analysts], **FILES)
    make_datasource(name="unowned", path=str(parquet_dir), **FILES)
    shop.owners.set([cast.author])
    vault.owner_groups.set([stewards])
    vault.owners.set([cast.author])
    assert owned(cast.author) == {"shop", "vault"}
    assert owned(cast.outsider) == set()  # a steward of vault, which is closed to them: no say
    vault.allowed_groups.add(stewards)
    assert owned(cast.outsider) == {"vault"}
    assert owned(cast.admin) == {"shop", "vault", "unowned"}
    shop.soft_delete()
    assert owned(cast.author) == {"vault"} and "shop" in owned(cast.admin)


def test_owners_are_set_by_admins_through_the_api_and_shown_by_name(cast, api_as, make_datasource, parquet_dir):
    shop = make_datasource(name="shop", path=str(parquet_dir), **FILES)
    url = f"/api/v1/datasources/{shop.pk}/"
    body = {"owners": ["author"], "owner_groups": ["analysts"]}
    assert api_as(cast.author).patch(url, body, format="json").status_code == 403
    granted = api_as(cast.admin).patch(url, body, format="json")
    assert granted.status_code == 200
    shown = api_as(cast.outsider).get(url).json()
    assert (shown["owners"], shown["owner_groups"]) == (["author"], ["analysts"])
    unknown = api_as(cast.admin).patch(url, {"owners": ["nobody"]}, format="json")
    assert unknown.status_code == 400 and "owners" in unknown.json()["fields"]
