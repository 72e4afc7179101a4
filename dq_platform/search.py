"""The two query parameters every searchable list reads the same way.

- `?search=` — text a row's name (or what the list says it matches) contains, any case; at most
  SEARCH_MAX_LENGTH characters, blank meaning no search. The browser's pickers and list search
  boxes send what is typed, so a list of any length is searched by the database, page by page.
- `?ids=1,2,3` — exactly those rows (at most MAX_IDS), for a picker that must name the items it
  holds although they are not on the page it shows. An id the caller may not see is simply absent.

Both answer 400 naming the parameter when malformed. The filtering itself stays with each list,
applied to its `visible_to(user)` queryset, so neither reaches a row the list would not show.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError

from dq_platform.ids import as_id
from dq_platform.pagination import MAX_PAGE_SIZE

SEARCH_MAX_LENGTH = 200
MAX_IDS = MAX_PAGE_SIZE


def search_text(params, name: str = "search") -> str:
    """The text to search for, stripped; '' when absent or blank."""
    text = params.get(name, "").strip()
    if len(text) > SEARCH_MAX_LENGTH:
        raise ValidationError(
            {
                name: [
                    _("At most %(limit)s characters; got %(length)s.")
                    % {"limit": SEARCH_MAX_LENGTH, "length": len(text)}
                ]
            }
        )
    if "\x00" in text:
        raise ValidationError({name: [_("Text without NUL characters.")]})
    return text


def id_list(params, name: str = "ids") -> list[int] | None:
    """`ids=3,5,8` → [3, 5, 8]; None when absent or blank."""
    raw = params.get(name, "").strip()
    if not raw:
        return None
    parts = [part.strip() for part in raw.split(",") if part.strip()]
    wrong = [part for part in parts if as_id(part) is None]
    if wrong:
        raise ValidationError(
            {
                name: [
                    _("Ids are whole numbers from 1, comma-separated; not %(values)s.")
                    % {"values": ", ".join(map(repr, wrong[:5]))}
                ]
            }
        )
    if len(parts) > MAX_IDS:
        raise ValidationError(
            {name: [_("At most %(limit)s ids at once; got %(count)s.") % {"limit": MAX_IDS, "count": len(parts)}]}
        )
    return [as_id(part) for part in parts]
