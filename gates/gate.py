"""The downstream gate: may the newest batch of a table's partition be consumed? Shared by
`GET /gate/` and `manage.py dq_gate`, so a workflow scheduler gets the same answer either way."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.utils.translation import gettext as _

from datasources.models import Datasource
from dq_platform.ids import as_id
from executions.stored_words import reworded

from . import lifecycle
from .models import Batch
from .partitions import describe, partition_key


@dataclass(frozen=True)
class GateAnswer:
    state: str | None
    may_consume: bool
    batch: int | None
    reason: str

    def as_dict(self) -> dict:
        return {"state": self.state, "may_consume": self.may_consume, "batch": self.batch, "reason": self.reason}


def find_datasource(user, value: str) -> Datasource | None:
    """By id (digits) or by name, among the datasources whose data `user` may read (a deleted
    one only by id: its name may have been reused)."""
    readable = Datasource.objects.readable_by(user)
    if value.strip().isdigit():
        found = as_id(value)
        return None if found is None else readable.filter(pk=found).first()
    return readable.alive().filter(name=value).first()


def parse_partition(pairs: list[str], separator: str) -> dict[str, str]:
    """["dt:2026-11-29", "hour:03"] (or `k=v` for the CLI) → {"dt": "2026-11-29", "hour": "03"};
    a pair may also hold several, comma-separated. A value holding a comma is asked as one JSON
    object instead (`{"country": "CN,HK"}`), alone. ValueError names the bad pair."""
    if len(pairs) == 1 and pairs[0].lstrip().startswith("{"):
        return _json_partition(pairs[0])
    partition: dict[str, str] = {}
    for item in (part.strip() for pair in pairs for part in pair.split(",")):
        if not item:
            continue
        name, found, value = item.partition(separator)
        if not found or not name.strip():
            raise ValueError(
                _("%(pair)s is not column%(separator)svalue.") % {"pair": repr(item), "separator": separator}
            )
        if name.strip() in partition:
            raise ValueError(_("Column %(column)s is given twice.") % {"column": repr(name.strip())})
        partition[name.strip()] = value.strip()
    return partition


def _json_partition(text: str) -> dict[str, str]:
    try:
        partition = json.loads(text)
    except ValueError:
        raise ValueError(_("%(text)s is not a JSON object.") % {"text": repr(text)}) from None
    if not isinstance(partition, dict) or not all(
        isinstance(v, str | int) and not isinstance(v, bool) for v in partition.values()
    ):
        raise ValueError(
            _("%(text)s is not a JSON object of column names to texts or whole numbers.") % {"text": repr(text)}
        )
    return partition


def answer(user, datasource: Datasource, table: str, partition: dict[str, str]) -> GateAnswer:
    batch = (
        Batch.objects.visible_to(user)
        .filter(datasource=datasource, table=table, partition_key=partition_key(partition))
        .order_by("-created_at", "-id")
        .first()
    )
    where = f"{datasource.name}.{table}" + (f" {describe(partition)}" if partition else "")
    if batch is None:
        return GateAnswer(None, False, None, _("No batch of %(table)s is registered.") % {"table": where})
    batch = lifecycle.catch_up(batch)
    return GateAnswer(batch.state, batch.may_consume, batch.pk, reworded(batch.reason))
