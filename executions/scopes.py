"""What part of a table a result speaks for: the whole table, or one partition of it.

A registered batch runs its checks on one partition (gates/registering.py); the run freezes that
partition into its batch definition (executions/starting.py). Everything that must not mix the
two — a dynamic range's baseline, an incident and its recovery — compares results by the key
made here, and reads the partition through `partition_of` only.

The key is canonical JSON of the partition ("" for the whole table), so `{"b": 1, "a": "x"}` and
`{"a": "x", "b": 1}` are one partition. A value equal to the run's business date is written
`${biz_date}`: the daily partition `dt=2026-11-29` of the run for 2026-11-29 is the same slot as
`dt=2026-11-30` the next day, so a per-partition baseline and an incident can follow it from day
to day, while `country=NO` stays a partition of its own.
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _

WHOLE_TABLE = ""
BIZ_DATE = "${biz_date}"


def partition_of(run, batch_name: str) -> dict[str, Any]:
    """The partition the run's batch `batch_name` read ({} when it read the whole table)."""
    definition = (run.batches or {}).get("definitions", {}).get(batch_name) or {}
    return dict(definition.get("partition") or {})


def scope_key(partition: dict[str, Any], biz_date: str = "") -> str:
    """The canonical key of `partition` for a run of business date `biz_date` (ISO)."""
    if not partition:
        return WHOLE_TABLE
    values = {name: BIZ_DATE if biz_date and str(value) == biz_date else value for name, value in partition.items()}
    return json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)


def scope_of(run, batch_name: str) -> str:
    return scope_key(partition_of(run, batch_name), run.biz_date.isoformat() if run.biz_date else "")


def scope_words(key: str) -> str:
    """`{"country":"NO"}` → "partition country=NO"; "" → "the whole table"."""
    if not key:
        return _("the whole table")
    try:
        values = json.loads(key)
    except ValueError:
        return _("partition %(partition)s") % {"partition": key}
    return _("partition %(partition)s") % {"partition": ", ".join(f"{name}={value}" for name, value in values.items())}
