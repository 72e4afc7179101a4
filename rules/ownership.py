"""Who may own a check: someone who may read its data. Giving a check to a user who could not see
it would leave a check nobody but administrators can find, owned by someone who cannot change it."""

from __future__ import annotations

from django.utils.translation import gettext as _

from .models import Check


def owner_problem(check: Check, new_owner) -> str | None:
    """Why `new_owner` may not own `check`, or None."""
    if not new_owner.is_active:
        return _("%(user)s is not an active user.") % {"user": new_owner.get_username()}
    if not Check.objects.visible_to(new_owner).filter(pk=check.pk).exists():
        return _("%(user)s may not read this check's data, so cannot own it.") % {"user": new_owner.get_username()}
    return None
