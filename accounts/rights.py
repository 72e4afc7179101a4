"""Who may do what to an object, as the list of actions the API reports in `permissions`.

Each rule is written once here and used twice: by the view that enforces it (a permission class,
a view's refusal) and by the serializer or list row that tells the browser which buttons to offer.
The rules read only the requesting user and columns of the object's own row (an owner id, an
author id), never a query per object, so a list page of fifty rows costs nothing more. Rules that
need the database (a datasource's owners) take what the caller worked out once for the page.
"""

from __future__ import annotations

from collections.abc import Collection

# Check actions: change (edit, enable/disable, tag, give away), delete, run, clone.
CHECK_OWNER_ACTIONS = ("change", "delete")
CHECK_READER_ACTIONS = ("run", "clone")


def is_admin(user) -> bool:
    return bool(user and user.is_authenticated and user.is_staff)


def owns(user, owner_id: int | None) -> bool:
    return bool(user and user.is_authenticated and owner_id is not None and owner_id == user.pk)


def may_change_owned(user, owner_id: int | None) -> bool:
    """Checks, schedules and runs: their owner (a run's author) and administrators."""
    return is_admin(user) or owns(user, owner_id)


def check_permissions(user, owner_id: int | None) -> list[str]:
    """What `user`, who sees the check, may do with it. Everyone who sees a check may run it and
    clone it (the clone is theirs); its owner and administrators change and delete it."""
    owner_actions = list(CHECK_OWNER_ACTIONS) if may_change_owned(user, owner_id) else []
    return [*owner_actions, *CHECK_READER_ACTIONS]


def run_permissions(user, created_by_id: int | None) -> list[str]:
    """A run's author and administrators cancel and retry it (whether its state allows it now is
    the run's `status`: a running run is cancelled, an ended one retried)."""
    return ["cancel", "retry"] if may_change_owned(user, created_by_id) else []


def schedule_permissions(user, owner_id: int | None) -> list[str]:
    return ["change", "delete"] if may_change_owned(user, owner_id) else []


def datasource_permissions(user) -> list[str]:
    """Administrators write datasources; whoever may use one tests its stored connection."""
    return ["change", "delete", "test"] if is_admin(user) else ["test"]


def alert_channel_permissions(user) -> list[str]:
    return ["change", "delete", "test"] if is_admin(user) else []


def batch_permissions(datasource_id: int, owned_datasource_ids: Collection[int]) -> list[str]:
    """Release and re-validate: the owners of the batch's datasource and administrators
    (`Datasource.objects.owned_by`, asked once per page by the caller)."""
    return ["release", "revalidate"] if datasource_id in owned_datasource_ids else []
