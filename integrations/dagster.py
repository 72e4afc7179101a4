"""Dagster asset-check reports: one `POST <url>/report_asset_check/<asset key>` per result, with
`check_name`, `passed`, `severity` (ERROR for a `block` check, WARN for an `alert` one) and
`metadata` (the statistic, the expected value, the verdict sentence, links, the run id).

A result that could not decide (`unknown`: no history yet, an empty partition) is not reported:
an asset check is passed or not, and calling "no evidence" passed would be a claim the data
never supported; calling it failed would stop Dagster's downstream assets for nothing."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.utils.translation import gettext as _

from executions.models import Result

from .sources import Source

# Dagster+ authenticates API calls with this header.
TOKEN_HEADER = "Dagster-Cloud-Api-Token"
REPORTED = (Result.Status.PASS, Result.Status.FAIL, Result.Status.ERROR)
KEY_PART = re.compile(r"^[^\s/]{1,200}$")


def default_asset_key(source: Source) -> list[str]:
    """`warehouse` reading `public.orders` → ["warehouse", "public", "orders"]."""
    parts = [source.datasource.name] if source.datasource else []
    return parts + [p for p in source.table.split(".") if p]


def asset_key_of(mapping: dict[str, str], result: Result, source: Source) -> list[str]:
    """The integration's own key for the result's check, else the key derived from its table."""
    mapped = mapping.get(str(result.rule_check_id))
    return mapped.split("/") if mapped else default_asset_key(source)


def parse_asset_key(text: str) -> list[str]:
    """`a/b/c` → ["a", "b", "c"]; ValueError saying what is wrong."""
    parts = str(text).strip().strip("/").split("/")
    if not text or not all(KEY_PART.match(p) for p in parts):
        raise ValueError(
            _("An asset key is its parts joined with /, without spaces or empty parts, e.g. warehouse/public/orders.")
        )
    return parts


def check_name_of(name: str) -> str:
    """Dagster names hold letters, digits and underscores: "emails present" → "emails_present"."""
    return re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "check"


def report_path(asset_key: list[str]) -> str:
    return "/report_asset_check/" + "/".join(quote(part, safe="") for part in asset_key)


def report_of(result: Result, asset_key: list[str]) -> tuple[str, dict[str, Any]]:
    """(the path after the integration's URL, the JSON body) of one result's report."""
    public = settings.DQ_PUBLIC_URL.rstrip("/")
    metadata = {
        "check": result.check_version.name,
        "check_id": result.rule_check_id,
        "status": result.status,
        "statistic_name": result.statistic_name,
        "statistic": result.statistics_value,
        "expected_value": result.comparison_value,
        "verdict": result.verdict or result.message,
        "partition": result.partition_key or None,
        "run_id": result.run_id,
        "result_id": result.pk,
        "run_url": f"{public}/runs/{result.run_id}",
        "result_url": f"{public}/api/v1/results/{result.pk}/",
    }
    body = {
        "check_name": check_name_of(result.check_version.name),
        "passed": result.status == Result.Status.PASS,
        "severity": "ERROR" if result.failure_strategy == "block" else "WARN",
        # Dagster takes plain values; a missing number is left out rather than sent as null.
        "metadata": {k: v for k, v in metadata.items() if v is not None},
    }
    return report_path(asset_key), body


def test_report() -> tuple[str, dict[str, Any]]:
    return report_path(["dq_platform", "test"]), {
        "check_name": "dq_platform_test",
        "passed": True,
        "severity": "WARN",
        "metadata": {"test": True, "platform": settings.DQ_PUBLIC_URL},
    }
