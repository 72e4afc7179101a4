"""Many checks (and runs of them) at once, for the tests of searching long lists: bulk inserts of
checks, their first versions and the datasources they read, in well under a second for a thousand."""

from __future__ import annotations


def bulk_checks(names: list[str], datasource, owner=None, template_key: str = "null_check") -> list:
    """Saved checks named `names` reading `datasource` (a null check of its `orders` table),
    each at version 1, as creating them through the API would leave them."""
    from rules.models import Check, CheckVersion, CheckVersionDatasource, RuleTemplate

    template = RuleTemplate.objects.get(key=template_key)
    definition = template.definitions.order_by("-number").first()
    params = {"src_datasource_id": datasource.pk, "src_table": "orders", "src_field": "email"}
    made = Check.objects.bulk_create(
        Check(name=name, template=template, params=params, current_version=1, owner=owner) for name in names
    )
    versions = CheckVersion.objects.bulk_create(
        CheckVersion(
            parent_check=check,
            number=1,
            name=check.name,
            template_key=template.key,
            template_version=definition.number if definition else 1,
            definition=definition,
            params=params,
            content_hash=f"bulk-{check.pk}",
        )
        for check in made
    )
    Check.datasources.through.objects.bulk_create(
        Check.datasources.through(check_id=check.pk, datasource_id=datasource.pk) for check in made
    )
    CheckVersionDatasource.objects.bulk_create(
        CheckVersionDatasource(check_version_id=version.pk, datasource_id=datasource.pk) for version in versions
    )
    return made


def bulk_runs(checks, datasource, author=None) -> list:
    """One finished run per check, oldest first (the runs list shows the newest first), reading
    `datasource` (which decides who sees the run)."""
    from datetime import date

    from django.utils import timezone

    from executions.models import Run, RunDatasource

    made = Run.objects.bulk_create(
        Run(
            status=Run.Status.PASSED,
            biz_date=date(2026, 11, 1),
            data_time=timezone.now(),
            rule_set_hash="h",
            created_by=author,
        )
        for _ in checks
    )
    Run.check_versions.through.objects.bulk_create(
        Run.check_versions.through(run_id=run.pk, checkversion_id=check.versions.get().pk)
        for run, check in zip(made, checks, strict=True)
    )
    RunDatasource.objects.bulk_create(RunDatasource(run=run, datasource=datasource) for run in made)
    return made
