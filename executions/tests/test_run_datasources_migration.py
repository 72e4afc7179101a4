"""The migrations that freeze what earlier runs and check versions read: runs get the datasources
of their batch definitions, versions those their params name. A datasource removed before soft
delete existed cannot be linked, and a run left with none fails closed (admins only)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from executions.models import Run
from rules.models import CheckVersion

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
BEFORE = [("executions", "0001_initial"), ("rules", "0002_load_builtin_catalog")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _make_history(apps) -> dict[str, int]:
    """Rows as the platform wrote them before this change: a check on a restricted datasource, its
    version, a run that read it, and a run that read only a datasource since removed."""
    Datasource = apps.get_model("datasources", "Datasource")
    Group = apps.get_model("auth", "Group")
    kept = Datasource.objects.create(name="restricted", type="file", format="parquet", path="/data")
    kept.allowed_groups.add(Group.objects.create(name="analysts"))
    gone = Datasource.objects.create(name="gone", type="file", format="parquet", path="/data").pk
    Datasource.objects.filter(pk=gone).delete()
    template = apps.get_model("rules", "RuleTemplate").objects.get(key="null_check")
    check = apps.get_model("rules", "Check").objects.create(name="c", template=template, params={})
    version = apps.get_model("rules", "CheckVersion").objects.create(
        parent_check=check,
        number=1,
        name="c",
        template_key="null_check",
        template_version=1,
        params={"src_datasource_id": kept.pk, "target_datasource_id": gone},
        content_hash="h",
    )
    Run = apps.get_model("executions", "Run")
    common = {"biz_date": "2026-11-30", "data_time": "2026-11-30T00:00:00Z", "rule_set_hash": "h"}
    both = Run.objects.create(
        batches={"definitions": {"b1": {"datasource_id": kept.pk}, "b2": {"datasource_id": gone}}}, **common
    )
    orphan = Run.objects.create(batches={"definitions": {"b1": {"datasource_id": gone}}}, **common)
    return {"kept": kept.pk, "version": version.pk, "both": both.pk, "orphan": orphan.pk}


def test_existing_runs_and_versions_get_the_datasources_they_read(django_user_model):
    ids = _make_history(_migrate(BEFORE))
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    assert list(Run.objects.get(pk=ids["both"]).datasources.values_list("pk", flat=True)) == [ids["kept"]]
    assert list(CheckVersion.objects.get(pk=ids["version"]).datasources.values_list("pk", flat=True)) == [ids["kept"]]
    assert not Run.objects.get(pk=ids["orphan"]).datasources.exists()

    outsider = django_user_model.objects.create_user("outsider")
    admin = django_user_model.objects.create_user("admin", is_staff=True)
    assert not Run.objects.visible_to(outsider).exists()  # restricted, and the orphan fails closed
    assert not CheckVersion.objects.visible_to(outsider).exists()
    assert set(Run.objects.visible_to(admin).values_list("pk", flat=True)) == {ids["both"], ids["orphan"]}
