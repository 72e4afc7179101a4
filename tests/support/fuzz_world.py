"""A small world for the schema fuzz (tests/test_api_fuzz.py), made in the fuzzed server's own
database: a member of a group, a file datasource with Parquet data, a check on it and a finished
run with a failed result and error rows, so that ids in paths sometimes name real objects.
Prints the member's API token. Run as `python -m tests.support.fuzz_world FILES_DIR`."""

from __future__ import annotations

import sys
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
    finished_run([check], member, Path(settings.DQ_ERROR_DATA_ROOT))
    print(Token.objects.create(user=member).key)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
