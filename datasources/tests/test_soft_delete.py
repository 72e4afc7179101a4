"""Deleting a datasource hides it and frees its name, but keeps it (and its groups) for the runs,
results and check versions that read it: who may read those does not change."""

from __future__ import annotations

import pytest
from django.db.models import ProtectedError

from datasources.models import Datasource
from executions.models import Run
from executions.tests.factories import finished_run
from rules.models import Check, RuleTemplate

pytestmark = pytest.mark.django_db
URL = "/api/v1/datasources/"


@pytest.fixture
def sources(cast, make_datasource, parquet_dir):
    common = {"type": "file", "format": "parquet", "path": str(parquet_dir)}
    return {
        "restricted": make_datasource(name="restricted", allowed_groups=[cast.analysts], **common),
        "open": make_datasource(name="open", **common),
    }


def test_a_deleted_datasource_frees_its_name_and_keeps_its_groups(cast, api_as, sources, parquet_dir):
    client = api_as(cast.admin)
    restricted = sources["restricted"]
    assert client.delete(f"{URL}{restricted.pk}/").status_code == 204
    again = client.post(URL, {"name": "restricted", "type": "file", "format": "parquet", "path": str(parquet_dir)})
    assert again.status_code == 201, again.json()
    restricted.refresh_from_db()
    assert restricted.is_deleted and [g.name for g in restricted.allowed_groups.all()] == ["analysts"]
    listed = {d["name"]: d["id"] for d in client.get(URL).json()["results"]}
    assert listed == {"open": sources["open"].pk, "restricted": again.json()["id"]}


def test_a_name_in_use_by_an_alive_datasource_is_refused_by_name(cast, api_as, sources, parquet_dir):
    response = api_as(cast.admin).post(
        URL, {"name": "open", "type": "file", "format": "parquet", "path": str(parquet_dir)}
    )
    assert response.status_code == 400 and "already exists" in response.json()["fields"]["name"][0]


def test_nobody_uses_a_deleted_datasource_but_its_groups_still_decide_who_reads_its_data(cast, sources):
    for datasource in sources.values():
        datasource.soft_delete()
    for user in (cast.admin, cast.author, cast.outsider):
        assert not Datasource.objects.visible_to(user).exists()

    def readable(user):
        return set(Datasource.objects.readable_by(user).values_list("name", flat=True))

    assert readable(cast.admin) == {"open", "restricted"}
    assert readable(cast.author) == {"open", "restricted"}
    assert readable(cast.outsider) == {"open"}


def _check_on(datasource, owner) -> Check:
    template = RuleTemplate.objects.get(key="null_check")
    params = {"src_datasource_id": datasource.pk, "src_table": "orders", "src_field": "status"}
    check = Check.objects.create(name=f"on {datasource.name}", template=template, params=params, owner=owner)
    check.record_version(owner)
    return check


def test_runs_of_a_deleted_open_datasource_stay_readable_and_restricted_ones_stay_restricted(
    cast, api_as, sources, tmp_path
):
    runs = {name: finished_run([_check_on(d, cast.author)], cast.author, tmp_path) for name, d in sources.items()}
    for datasource in sources.values():
        assert api_as(cast.admin).delete(f"{URL}{datasource.pk}/").status_code == 204
    outsider = api_as(cast.outsider)
    assert outsider.get(f"/api/v1/runs/{runs['open'].pk}/").status_code == 200
    assert outsider.get(f"/api/v1/runs/{runs['restricted'].pk}/").status_code == 404
    assert api_as(cast.author).get(f"/api/v1/runs/{runs['restricted'].pk}/").status_code == 200


def test_a_datasource_a_run_read_cannot_be_removed_for_good(cast, sources, tmp_path):
    finished_run([_check_on(sources["restricted"], cast.author)], cast.author, tmp_path)
    with pytest.raises(ProtectedError):
        sources["restricted"].delete()


def test_the_admin_site_lists_deleted_datasources_as_such_and_deletes_softly(
    sources, django_user_model, client, cast, tmp_path
):
    run = finished_run([_check_on(sources["restricted"], cast.author)], cast.author, tmp_path)
    client.force_login(django_user_model.objects.create_superuser("root", password="root-pass-123"))
    page = f"/admin/datasources/datasource/{sources['restricted'].pk}/delete/"
    assert client.post(page, {"post": "yes"}).status_code == 302
    restricted = Datasource.objects.get(pk=sources["restricted"].pk)
    assert restricted.is_deleted and list(run.datasources.all()) == [restricted]
    deleted_list = client.get("/admin/datasources/datasource/?state=deleted").content.decode()
    alive_list = client.get("/admin/datasources/datasource/?state=alive").content.decode()
    assert ">restricted<" in deleted_list and ">restricted<" not in alive_list and ">open<" in alive_list
    assert Run.objects.visible_to(cast.outsider).filter(pk=run.pk).count() == 0
