"""Who may handle a check's incidents and messages: acknowledge or resolve an incident, mute or
unmute the check. The same people who may release the batches of the table it watches: the
owners of the check's source datasource and administrators (`Datasource.objects.owned_by`),
plus the check's own owner, who may edit or delete the check anyway. Reading a check is not
enough: acknowledging stops its re-alerts, muting holds its messages back."""

from __future__ import annotations

from datasources.models import Datasource
from rules.models import Check


def may_handle(user, check: Check) -> bool:
    if user.is_staff or (check.owner_id is not None and check.owner_id == user.pk):
        return True
    source = check.params.get("src_datasource_id")
    return source is not None and Datasource.objects.owned_by(user).filter(pk=source).exists()


REFUSED = "Only the owners of the check's datasource, the check's owner and administrators may {what}."
