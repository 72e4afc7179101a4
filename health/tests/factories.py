"""Checks and their results made directly, at chosen times, for the health tests: the health
answers are worked out from these by hand in each test."""

from __future__ import annotations

from datetime import datetime

from executions.models import Result, Run
from rules.models import Check, CheckVersion, RuleTemplate


def make_check(name: str, template: str, datasource, table: str, column: str = "", dimension: str = "") -> Check:
    params = {"src_datasource_id": datasource.pk, "src_table": table}
    if column:
        params["src_field"] = column
    check = Check.objects.create(
        name=name, template=RuleTemplate.objects.get(key=template), params=params, dimension=dimension
    )
    check.datasources.add(datasource)
    return check


def record(check: Check, status: str, at: datetime) -> Result:
    """One finished run that read the check's datasource, with one result of `check`, made `at`."""
    datasource = check.datasources.get()
    version, _ = CheckVersion.objects.get_or_create(
        parent_check=check,
        number=1,
        defaults={"name": check.name, "template_key": check.template.key, "template_version": 1, "params": {}},
    )
    definitions = {"b1": {"datasource_id": datasource.pk, "datasource": datasource.name, "table": "t"}}
    run = Run.objects.create(
        biz_date=at.date(), data_time=at, rule_set_hash="x", status="failed", batches={"definitions": definitions}
    )
    run.check_versions.add(version)
    run.datasources.add(datasource)  # what the run read decides who may see its results
    result = Result.objects.create(
        run=run,
        check_version=version,
        rule_check=check,
        batch="b1",
        status=status,
        statistic_name="s",
        statistics_value=1.0,
        comparison_value=0,
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy="alert",
        identity=f"id-{check.pk}",
        data_time=at,
    )
    Run.objects.filter(pk=run.pk).update(created_at=at)
    Result.objects.filter(pk=result.pk).update(created_at=at)
    return result
