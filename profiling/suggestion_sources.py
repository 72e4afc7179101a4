"""Where suggestions read profiles from: the one seam between suggestions and the profile model.

The profile model belongs to the profiling app (PROFILE_CONTRACT: one profile document per run
for a datasource and table). It is imported here lazily, so suggestions work on a platform
without it (no profile: nothing to suggest) and tests can stand in for this one function.
"""

from __future__ import annotations

from dataclasses import dataclass

# Earlier profiles read for the backtest: enough for a trend, few enough to stay quick.
EARLIER_PROFILES = 20


@dataclass(frozen=True)
class ProfileRecord:
    id: int
    document: dict


def latest_profiles(datasource, table: str, limit: int = EARLIER_PROFILES + 1) -> list[ProfileRecord]:
    """The table's finished whole-table profiles, newest first (the first is the one suggestions
    come from, the others are the backtest's), at most `limit`."""
    try:
        from profiling.models import Profile
    except ImportError:  # the profiling app is not installed: no profiles yet
        return []
    rows = (
        Profile.objects.filter(datasource=datasource, table=table, status="done")
        .order_by("-finished_at", "-pk")
        .values_list("pk", "document")[: limit * 2]
    )
    records = [ProfileRecord(pk, document) for pk, document in rows if isinstance(document, dict)]
    # A profile of a batch (a filter) describes other rows than the table's checks read.
    return [r for r in records if not (r.document.get("source") or {}).get("filter")][:limit]
