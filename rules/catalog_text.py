"""The built-in catalog's words (template names and descriptions, input titles, placeholders, help
and option labels, comparison type names) in the request's language.

The catalog is stored and versioned in English (TemplateVersion hashes cover these texts, so
translating them in the database would make every check upgrade); it is translated where it is
served. rules/catalog_messages.py lists every catalog text for makemessages; an admin's own text has
no translation and is served as written.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext


def catalog_text(text: Any) -> Any:
    """`text` translated when it is a catalog text; "" stays "" (gettext("") is the .po header)."""
    return gettext(text) if isinstance(text, str) and text else text


def catalog_options(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Select options with their labels translated; the values stay as stored."""
    return [{**o, "label": catalog_text(o.get("label"))} if isinstance(o, dict) else o for o in options]
