"""A small world for the schema fuzz (tests/test_api_fuzz.py), made in the fuzzed server's own
database: a member of a group, a file datasource with Parquet data the group may use, a check on
it and a finished run with a failed result and error rows, a schedule, an alert channel (to a
host that never resolves), an open incident with its notification and a registered batch, so
that ids in paths and bodies sometimes name real objects and the row-check editor's endpoints
get as far as reading the YAML.
Prints the member's API token. Run as `python -m tests.support.fuzz_world FILES_DIR`."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path


def main(files: Path) -> None:
    import django

    django.setup()
    import pyarrow as pa
    import pyarrow.parquet as pq
    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from rest_framework.authtoken.models import Token

    from datasources.models import Datasource
    from executions.tests.factories import finished_run
    from gates.models import Batch
    from rules.models import Check, RuleTemplate

    (files / "orders").mkdir(parents=True, exist_ok=True)
    pq.write_table(
        pa.table({"order_id": [1, 2, 3], "status": ["paid", None, "void"], "amount": [1.5, -2.0, None]}),
        files / "orders" / "part-00000.parquet",
    )
    group = Group.objects.create(name="analysts")
    member = User.objects.create_user("member", password="member-pass-123")
    member.groups.add(group)
    User.objects.create_user("admin", password="admin-pass-123", is_staff=True)
    lake = Datasource(name="lake", type="file", format="parquet", path=str(files))
    lake.save()
    lake.allowed_groups.add(group)
    params = {
        "src_datasource_id": lake.pk,
        "src_table": "orders",
        "src_field": "status",
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": "alert",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    template = RuleTemplate.objects.get(key="null_check")
    check = Check.objects.create(name="status present", template=template, params=params, owner=member)
    check.record_version(member)
    run = finished_run([check], member, Path(settings.DQ_ERROR_DATA_ROOT))
    _watching(member, check, run)
    Batch.objects.create(datasource=lake, table="orders", biz_date=date(2026, 11, 29), created_by=member)
    print(Token.objects.create(user=member).key)


def _watching(member, check, run) -> None:
    from watching.models import AlertChannel, Incident, Notification, Schedule

    schedule = Schedule.objects.create(name="nightly", cron="0 2 * * *", owner=member)
    schedule.checks.add(check)
    channel = AlertChannel(name="team hook", kind="webhook", notify_on=["fail"])
    channel.target = "https://hooks.invalid/dq"  # .invalid never resolves: nothing is ever sent
    channel.save()
    result = run.results.first()
    Incident.objects.create(rule_check=check, outcome="fail", first_result=result, last_result=result)
    Notification.objects.create(
        channel=channel,
        channel_name=channel.name,
        channel_kind=channel.kind,
        run=run,
        subject="[DQ] failed",
        body="status present failed",
        status=Notification.Status.FAILED,
        error="The webhook answered HTTP 500.",
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
