"""Lists that build rows from column values format date-times with dq_platform.api_times; the
text must be DRF's own, in whatever time zone is active."""

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone as django_timezone
from rest_framework import serializers

from dq_platform import api_times

MOMENTS = [
    None,
    datetime(2026, 12, 5, 8, 30, 1, 123456, tzinfo=UTC),
    datetime(2026, 12, 5, 8, 30, tzinfo=UTC),
    datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("Europe/Oslo")),
    datetime(2026, 7, 1, 12, 0, tzinfo=timezone(timedelta(hours=-3, minutes=-30))),
    datetime(2026, 12, 5, 8, 30),  # naive: DRF makes it aware in the current zone
]


@pytest.mark.parametrize("zone", ["UTC", "Asia/Shanghai", "America/St_Johns"])
def test_every_moment_reads_as_drf_writes_it(zone):
    with django_timezone.override(ZoneInfo(zone)):
        drf = serializers.DateTimeField().to_representation
        ours = api_times.formatter()
        assert [ours(m) for m in MOMENTS] == [drf(m) for m in MOMENTS]
