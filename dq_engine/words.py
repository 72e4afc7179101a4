"""The engine's user-facing messages, written in English and translatable by the platform.

The engine imports nothing from Django, so it cannot translate: it writes its messages in
English (the record, what the command line and the logs print) from templates with named
placeholders, `say(TEMPLATE, name=value)`. Each template is a module-level constant made with
`gettext_noop("...")`, a no-op here whose name `makemessages` (xgettext) recognises, so the
platform's catalogue holds every one; `templates()` lists them all, and the platform
(executions/stored_words.py) words a message made from one of them again in the reader's
language. dq_engine/tests/test_words.py checks that every `say(...)` call passes such a constant.

Values that are themselves fixed words (the "filter" or the "query" a message is about) are
templates too, marked `noun(...)`, so the platform rewords them inside the sentence; and so are
the parts a message is assembled from ("${a} or ${b}"), marked `fragment(..., "allowed")` with
the placeholders they fill.
"""

from __future__ import annotations

import importlib

_TEMPLATES: dict[str, None] = {}
_PLACES: dict[str, tuple[str, ...]] = {}

# The modules that define templates; imported by `templates()` (a test checks the list is complete).
MODULES = (
    "dq_engine.errors",
    "dq_engine.safe_yaml",
    "dq_engine.sql_safety",
    "dq_engine.rowchecks.language",
    "dq_engine.rowchecks.contract",
    "dq_engine.anomaly",
    "dq_engine.vocabulary.expressions",
    "dq_engine.vocabulary.predicates",
    "dq_engine.vocabulary.metrics",
    "dq_engine.query_checks",
    "dq_engine.identifiers",
    "dq_engine.duckdb.sql",
    "dq_engine.selection",
    "dq_engine.duckdb.capability",
)


def gettext_noop(template: str) -> str:
    """Register a message template and return it unchanged (xgettext extracts it by this name)."""
    _TEMPLATES.setdefault(template, None)
    return template


def fragment(template: str, *places: str) -> str:
    """Mark a template as a part of a message ("${a} or ${b}"), filling only the placeholders named
    `places` of other templates: the platform words it again only there, never a whole message or
    another value (a column, a database's text) that happens to have its shape."""
    _PLACES[template] = places
    return template


def noun(template: str) -> str:
    """A fixed word ("filter") that fills a sentence's `%(what)s`."""
    return fragment(template, "what")


def say(template: str, **values: object) -> str:
    """The English message: `template` with its named placeholders filled."""
    return template % values if values else template


def templates() -> list[str]:
    """Every template the engine's messages are made from."""
    for module in MODULES:
        importlib.import_module(module)
    return list(_TEMPLATES)


def places() -> dict[str, tuple[str, ...]]:
    """{fragment: the placeholders it may fill}."""
    templates()
    return dict(_PLACES)
