"""Who may own a check: someone who may read its data. Giving a check to a user who could not see
it would leave a check nobody but administrators can find, owned by someone who cannot change it."""

from __future__ import annotations

from .models import Check


def owner_problem(check: Check, new_owner) -> str | None:
    """Why `new_owner` may not own `check`, or None."""
    if not new_owner.is_active:
        return f"{new_owner.get_username()} is not an active user."
    if not Check.objects.visible_to(new_owner).filter(pk=check.pk).exists():
        return f"{new_owner.get_username()} may not read this check's data, so cannot own it."
    return None
