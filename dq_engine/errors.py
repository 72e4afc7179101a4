"""Failures as values: the messages a check or a batch reports instead of a stack trace.

A broken check (unknown column, wrong type, bad SQL, bad regex) or an unreadable batch becomes
`{"status": "error", "message": ...}` in the result document.
`describe` turns an exception into one short readable message without a stack trace (an
engine passes `explain` for its own exceptions: dq_engine/spark/messages.py for Spark's and the
JVM's), and `redact` removes the secrets the run used (passwords) from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dq_engine.words import fragment, gettext_noop, say

MAX_MESSAGE = 1500

# Where Spark's messages stop being useful to the person who wrote the check: the JVM stack, the
# "== DataFrame ==" / "== SQL ==" call-site blocks, and the analyzed plan after "SQLSTATE: ...;".
_CUT_MARKERS = ("\nJVM stacktrace", "\n== ", ";\n", "\n\tat ", "\n\n")


# The messages every engine writes alike (dq_engine/words.py: the platform translates them).
NO_COLUMN = gettext_noop("The check names no column.")
UNKNOWN_COLUMN = gettext_noop("Unknown column %(column)s; the batch has the columns %(columns)s.")
AMBIGUOUS_COLUMN = gettext_noop("Column %(column)s is ambiguous: the batch has %(columns)s.")
NO_TABLE = gettext_noop("Table %(table)s does not exist in %(where)s (or is not visible).")
AND_MORE = fragment(gettext_noop("%(shown)s, and %(count)s more"), "columns", "known")
UNREADABLE = gettext_noop("Batch %(name)s could not be read (%(source)s): %(why)s")
DATASET = fragment(gettext_noop("%(format)s dataset %(path)s"), "source")
TABLE_AT = fragment(gettext_noop("table %(table)s at %(where)s"), "source")
FILTER_REFUSED = gettext_noop("The filter of batch %(name)s was refused: %(why)s")
FILTER_NOT_APPLIED = gettext_noop("The filter of batch %(name)s cannot be applied: %(why)s")
BAD_SAMPLE = gettext_noop("Batch %(name)s: sample_fraction must be a number in (0, 1]; got %(value)s.")
BAD_LIMIT = gettext_noop("Batch %(name)s: limit must be a positive whole number; got %(value)s.")


def shown_names(names: Sequence[str], limit: int) -> str:
    """The first `limit` names, then how many more: "a, b, c, and 9 more"."""
    shown = ", ".join(names[:limit])
    return say(AND_MORE, shown=shown, count=len(names) - limit) if len(names) > limit else shown


class CheckError(Exception):
    """One check cannot be evaluated; the message says why and, where possible, how to fix it."""


class BatchError(Exception):
    """A batch cannot be read or filtered; every check on it reports this message."""


class Refusal(ValueError):
    """A person's input refused (their SQL): the message is written for them, shown as it is."""


def column_problem(name: object, names: Sequence[str], matches: Sequence[str]) -> CheckError:
    """Why `name` does not name exactly one of the batch's columns `names` (`matches`: the ones it named)."""
    if not isinstance(name, str) or not name:
        return CheckError(say(NO_COLUMN))
    if not matches:
        return CheckError(say(UNKNOWN_COLUMN, column=repr(name), columns=shown_names(names, 12)))
    return CheckError(say(AMBIGUOUS_COLUMN, column=repr(name), columns=", ".join(matches)))


def describe(
    exc: BaseException, secrets: Iterable[str] = (), explain: Callable[[BaseException], str] | None = None
) -> str:
    """A short, secret-free message for an exception (no stack trace). `explain` gives an engine's
    own message for its exceptions, or "" to fall back to the exception's type and text."""
    if isinstance(exc, CheckError | BatchError | Refusal):
        text = str(exc)
    else:
        text = (explain(exc) if explain else "") or f"{type(exc).__name__}: {exc}"
    return redact(trim(text), secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret value that occurs in the text by ***."""
    for secret in sorted({s for s in secrets if s and len(s) >= 3}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def trim(text: str) -> str:
    for marker in _CUT_MARKERS:
        index = text.find(marker)
        if index > 0:
            text = text[:index]
    text = " ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."
