"""Who may handle a check's incidents and messages: acknowledge or resolve an incident, mute or
unmute the check. The same people who may release the batches of the table it watches: the
owners of the check's source datasource and administrators (`Datasource.objects.owned_by`),
plus the check's own owner, who may edit or delete the check anyway. Reading a check is not
enough: acknowledging stops its re-alerts, muting holds its messages back."""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from datasources.models import Datasource
from datasources.readable import readable_ids
from rules.models import Check


def may_handle(user, check: Check) -> bool:
    if user.is_staff or (check.owner_id is not None and check.owner_id == user.pk):
        return True
    source = check.params.get("src_datasource_id")
    return source is not None and Datasource.objects.owned_by(user).filter(pk=source).exists()


REFUSED = "Only the owners of the check's datasource, the check's owner and administrators may {what}."


def owned_among(user, datasource_ids: set[int]) -> set[int]:
    """Which of `datasource_ids` `user` owns (`Datasource.objects.owned_by`, for a page of
    incidents at once), with the readable datasources taken from the request's one answer
    (datasources/readable.py) rather than asked again."""
    if user.is_staff:
        return set(datasource_ids)
    readable = set(readable_ids(user, lambda: list(Datasource.objects.readable_by(user).values_list("pk", flat=True))))
    users = Datasource.owners.through.objects.filter(datasource=OuterRef("pk"), user=user)
    groups = Datasource.owner_groups.through.objects.filter(datasource=OuterRef("pk"), group__in=user.groups.all())
    mine = Datasource.objects.alive().filter(pk__in=datasource_ids & readable).filter(Exists(users) | Exists(groups))
    return set(mine.values_list("pk", flat=True))
