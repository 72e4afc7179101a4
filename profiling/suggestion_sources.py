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
        # filter "": profiles of the whole table; a batch's (a filter) describe other rows than the
        # table's checks read.
        Profile.objects.filter(datasource=datasource, table=table, filter="", status="done")
        .filter(document__isnull=False)
        .order_by("-pk")
        .values_list("pk", "document")[:limit]
    )
    return [ProfileRecord(pk, document) for pk, document in rows if isinstance(document, dict)]
