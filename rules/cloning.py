"""Cloning a check: a new check with the same template and params, named "<name> (copy)" (or
"(copy 2)", "(copy 3)" … when that is taken), owned by whoever cloned it, at its first version,
with the same tags. Validated like any new check, for the cloner."""

from __future__ import annotations

from django.utils.translation import gettext as _

from .models import Check

MAX_NAME = Check._meta.get_field("name").max_length


def clone_name(name: str) -> str:
    """The first free "<name> (copy)" / "<name> (copy N)" among live checks, cut to fit."""
    taken = set(Check.objects.alive().filter(name__startswith=name[: MAX_NAME - 20]).values_list("name", flat=True))
    number = 1
    while True:
        # The name is stored: in the language of whoever clones, as they would have typed it.
        suffix = _(" (copy)") if number == 1 else _(" (copy %(number)s)") % {"number": number}
        candidate = name[: MAX_NAME - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1


def clone_body(check: Check) -> dict:
    """What CheckSerializer is given to create the clone."""
    return {
        "name": clone_name(check.name),
        "template": check.template.key,
        "params": check.params,
        "tags": sorted(tag.name for tag in check.tags.all()),
    }
