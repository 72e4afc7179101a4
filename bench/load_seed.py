"""The load benchmark's data (bench/load.py): a member who sees `checks` checks (copies of a demo
check, on the demo datasource everyone may read) and `results` results over runs of 100 checks
each, with an open incident on every failing check — written with bulk inserts, in seconds.

Called inside the platform's environment after `load_demo` (bench/load.py does it through
`manage.py shell`); `seed` answers the member's API token."""

from __future__ import annotations

import hashlib
from datetime import date, timedelta

CHECKS_PER_RUN = 100
MEMBER = "bench-member"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def seed(checks: int, results: int, checks_per_run: int = CHECKS_PER_RUN) -> str:
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from executions.models import Result, Run, RunDatasource
    from rules.models import Check, CheckVersion, CheckVersionDatasource
    from watching.models import Incident

    member, _ = get_user_model().objects.get_or_create(username=MEMBER, defaults={"is_staff": False})
    token, _ = Token.objects.get_or_create(user=member)
    model = Check.objects.alive().exclude(template__key="row_level_check").order_by("pk").first()
    if model is None:
        raise SystemExit("No demo check to copy: run `manage.py load_demo` first.")
    version = model.current()
    datasource_ids = sorted(model.datasource_ids())
    now = timezone.now()
    with transaction.atomic():
        made = Check.objects.bulk_create(
            Check(
                name=f"bench check {i:05d}",
                template=model.template,
                params=model.params,
                current_version=1,
                owner=member,
            )
            for i in range(checks)
        )
        versions = CheckVersion.objects.bulk_create(
            CheckVersion(
                parent_check=c,
                number=1,
                name=c.name,
                template_key=version.template_key,
                template_version=version.template_version,
                definition=version.definition,
                params=c.params,
                content_hash=_hash(c.name),
            )
            for c in made
        )
        Check.datasources.through.objects.bulk_create(
            Check.datasources.through(check_id=c.pk, datasource_id=d) for c in made for d in datasource_ids
        )
        CheckVersionDatasource.objects.bulk_create(
            CheckVersionDatasource(check_version_id=v.pk, datasource_id=d) for v in versions for d in datasource_ids
        )
        runs_needed = -(-results // checks_per_run)
        runs = Run.objects.bulk_create(
            Run(
                status=Run.Status.FAILED,
                biz_date=date.today() - timedelta(days=runs_needed - i),
                data_time=now - timedelta(days=runs_needed - i),
                rule_set_hash=_hash(str(i)),
                created_by=member,
                started_at=now,
                finished_at=now,
            )
            for i in range(runs_needed)
        )
        RunDatasource.objects.bulk_create(RunDatasource(run=r, datasource_id=d) for r in runs for d in datasource_ids)
        rows, links = [], []
        for n in range(results):
            run = runs[n // checks_per_run]
            v = versions[n % len(versions)]
            status = Result.Status.FAIL if n % 7 == 0 else Result.Status.ERROR if n % 23 == 0 else Result.Status.PASS
            rows.append(
                Result(
                    run=run,
                    check_version=v,
                    rule_check_id=v.parent_check_id,
                    batch="b",
                    status=status,
                    statistic_name="null_count.nulls",
                    statistics_value=float(n % 5),
                    comparison_value=0,
                    comparison_type="fix_value",
                    check_type="statistics_minus_comparison",
                    operator="le",
                    threshold=0,
                    failure_strategy="block" if n % 2 else "alert",
                    identity=v.content_hash,
                    data_time=run.data_time,
                )
            )
            links.append(Run.check_versions.through(run_id=run.pk, checkversion_id=v.pk))
        made_results = Result.objects.bulk_create(rows, batch_size=2000)
        Run.check_versions.through.objects.bulk_create(links, batch_size=2000, ignore_conflicts=True)
        newest_failure = {}
        for r in made_results:
            if r.status != Result.Status.PASS:
                newest_failure[r.rule_check_id] = r
        Incident.objects.bulk_create(
            Incident(rule_check_id=c, outcome=r.status, first_result=r, last_result=r)
            for c, r in newest_failure.items()
        )
    return token.key


def demo_check_id() -> int:
    """A demo check the benchmark runs (POST /runs/) under load: a cheap one on the demo files."""
    from rules.models import Check

    return Check.objects.alive().exclude(name__startswith="bench check").order_by("pk").values_list("pk", flat=True)[0]
