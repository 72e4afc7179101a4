"""Catalog checks (schema changes, a file's age) are answered by the platform beside the engine:
left out of the engine's spec, each one's failure its own error."""

from __future__ import annotations

import pytest

from executions.catalog_checks import catalog_outcomes, compare_schemas, describe
from executions.jobs import build_job
from executions.starting import start_run
from rules.models import Check, RuleTemplate

pytestmark = pytest.mark.django_db

VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


def _check(name, template, datasource, table, **params):
    check = Check.objects.create(
        name=name,
        template=RuleTemplate.objects.get(key=template),
        params={"src_datasource_id": datasource.pk, "src_table": table, **VERDICT, **params},
    )
    check.record_version()
    return check


def test_a_schema_check_on_a_source_that_does_not_answer_is_its_own_error_and_never_reaches_the_engine(
    cast, make_datasource, closed_port, parquet_dir
):
    gone = make_datasource(
        name="gone", type="postgresql", host="127.0.0.1", port=closed_port, database="x", username="u"
    )
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    schema = _check("schema of gone", "schema_change_check", gone, "public.orders")
    db_age = _check("file age of gone", "file_freshness_check", gone, "public.orders", age_unit="hours")
    count = _check("rows of lake", "table_count_check", lake, "orders")
    run, _ = start_run([schema, db_age, count], cast.admin)

    outcomes = catalog_outcomes(run)
    spec = build_job(run).spec

    by_check = {v.parent_check_id: str(v.pk) for v in run.check_versions.all()}
    assert set(outcomes) == {by_check[schema.pk], by_check[db_age.pk]}
    assert outcomes[by_check[schema.pk]]["status"] == "error"
    assert str(closed_port) in outcomes[by_check[schema.pk]]["message"]
    assert outcomes[by_check[db_age.pk]]["message"].startswith("Only file datasources have a modification time")
    assert [c["id"] for c in spec["checks"]] == [by_check[count.pk]]
    assert [b["source"] for b in spec["batches"].values()] == list(spec["sources"])  # only the lake's batch
    assert len(spec["batches"]) == 1


def test_schema_changes_are_named_by_column_in_the_catalogs_order():
    before = [
        {"name": "id", "type": "integer"},
        {"name": "legacy", "type": "text"},
        {"name": "amount", "type": "integer"},
    ]
    after = [{"name": "id", "type": "integer"}, {"name": "amount", "type": "bigint"}, {"name": "Note", "type": "text"}]

    changes = compare_schemas(before, after)

    assert changes == {
        "added": [{"name": "Note", "type": "text"}],
        "removed": [{"name": "legacy", "type": "text"}],
        "retyped": [{"name": "amount", "from": "integer", "to": "bigint"}],
    }
    assert describe(changes) == "Added: Note (text). Removed: legacy (text). Retyped: amount integer → bigint."
    assert describe(compare_schemas(after, after)) == "No column changed since the last seen schema."
