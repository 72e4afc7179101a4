"""Messages written once, shown in the reader's language.

A run's and a result's `message` (and a verdict, executions/evaluation.py) are written when the
run ends, in English: that is the record, and what the command line and the logs print. The
screens and the alerts show them in the reader's (or the channel's) language: `reworded(text)`
recognises a message made from one of the templates below and words it again in the active
language with the same values. Any other text stays as it was written: what a database, Spark or
a script said, a person's own words.
"""

from __future__ import annotations

import re
from functools import cache

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from dq_engine import words as engine_words

NO_RESULT = gettext_noop("The engine returned no result.")
NOT_EVALUATED = gettext_noop("The check could not be evaluated.")
SOME_NOT_EVALUATED = gettext_noop("%(errors)s of %(total)s checks could not be evaluated.")
ENGINE_FAILED = gettext_noop("The engine could not run the checks: %(reason)s")
CANCELLED_BY = gettext_noop("Cancelled by %(user)s.")
CRITICAL_FAILED = gettext_noop("Critical checks failed: %(checks)s; the result blocks whatever its threshold.")
TIME_LIMIT = gettext_noop(
    "The run took longer than its time limit (%(limit)s) and was stopped. Make the checks cheaper (a filter on a "
    "partition, a sample), or raise the limit with the DQ_RUN_TIME_LIMIT setting (seconds) and restart the workers."
)
RUN_IS_NOW = gettext_noop("The run is %(status)s now.")
WORKER_STOPPED = gettext_noop(
    "The worker running this run stopped before it finished (killed, crashed or lost); retry the run."
)
NAMED_WORKER_STOPPED = gettext_noop(
    "The worker running this run (%(worker)s) stopped before it finished (killed, crashed or lost); retry the run."
)
NEVER_CLAIMED = gettext_noop(
    "No worker took this run although one was idle (its task was sent %(count)s times over %(elapsed)s). Check "
    "that a worker consumes the '%(queue)s' queue and that its log shows no error, then retry the run."
)
FIRST_SCHEMA = gettext_noop("First schema seen (%(count)s columns); later runs compare with it.")
NO_SCHEMA_CHANGE = gettext_noop("No column changed since the last seen schema.")
NO_COMPARISON = gettext_noop("Template version %(version)s defines no %(comparison)s.")
MARKED_EXPECTED = gettext_noop("Marked expected (a false alarm) on result %(result)s.")
MINUTES = gettext_noop("%(count)s min")
SECONDS = gettext_noop("%(count)s s")

# The engine's own (dq_engine imports no Django: dq_engine/words.py lists them). A fragment ("filter",
# "${a} or ${b}") is worded again only as the value of the placeholders it fills, never as a whole
# message or another value (a column, a database's text) that happens to have its shape.
ENGINE = tuple(engine_words.templates())
_PLACES = engine_words.places()
# Placeholders that hold a number: "line %(line)s: …" must not take "line 1:5 mismatched input".
_NUMBERS = {"line", "depth"}
_DIGITS, _ANY = r"\d+", ".+?"

TEMPLATES = [
    NO_RESULT,
    NOT_EVALUATED,
    SOME_NOT_EVALUATED,
    ENGINE_FAILED,
    CANCELLED_BY,
    CRITICAL_FAILED,
    TIME_LIMIT,
    RUN_IS_NOW,
    WORKER_STOPPED,
    NAMED_WORKER_STOPPED,
    NEVER_CLAIMED,
    FIRST_SCHEMA,
    NO_SCHEMA_CHANGE,
    NO_COMPARISON,
    MARKED_EXPECTED,
    MINUTES,
    SECONDS,
    *ENGINE,
]


def register(*templates: str) -> None:
    """Another app's stored messages (gates' reasons), made with `template % values` in English."""
    TEMPLATES.extend(t for t in templates if t not in TEMPLATES)
    _patterns.cache_clear()


@cache
def _patterns() -> list[tuple[re.Pattern, str]]:
    found = []
    # The longest first: a template that is a prefix of another must not take its text.
    for template in sorted(TEMPLATES, key=len, reverse=True):
        parts = re.split(r"%\((\w+)\)s", template)
        pattern, seen = "", set()
        for i, part in enumerate(parts):
            if i % 2 == 0:
                pattern += re.escape(part)
            elif part in seen:  # the same value again ("write %(name)s = true" after "%(name)s")
                pattern += f"(?P={part})"
            else:
                pattern += f"(?P<{part}>{_DIGITS if part in _NUMBERS else _ANY})"
                seen.add(part)
        found.append((re.compile(f"^{pattern}$", re.S), template))
    return found


def reworded(text: str, place: str | None = None) -> str:
    """`text` in the active language when it was made from a known template; else unchanged. A
    message quoted inside another with its first letter lowered ("published although no check
    produced a result") is recognised too. `place`: the placeholder it fills in another message."""
    if not text:
        return text
    found = _reworded(text, place)
    if found is None and text[:1].islower():
        found = _reworded(text[:1].upper() + text[1:], place)
        if found is not None and found[:1].isascii():
            found = found[:1].lower() + found[1:]
    return text if found is None else found


def _reworded(text: str, place: str | None) -> str | None:
    for pattern, template in _patterns():
        if template in _PLACES and place not in _PLACES[template]:
            continue
        match = pattern.match(text)
        if match:
            values = {name: _inner(reworded(value, name), name, template) for name, value in match.groupdict().items()}
            return _(template) % values if values else _(template)
    return None


def _inner(value: str, name: str, template: str) -> str:
    """A sentence quoted inside another loses its Chinese full stop ("…结果。，仍已发布" reads wrong);
    the English one is part of the record and stays."""
    if value.endswith("。") and not template.endswith(f"%({name})s"):
        return value[:-1]
    return value
