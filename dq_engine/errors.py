"""Failures as values: the messages a check or a batch reports instead of a stack trace.

A broken check (unknown column, wrong type, bad SQL, bad regex) or an unreadable batch becomes
`{"status": "error", "message": ...}` in the result document.
`describe` turns an exception into one short readable message without a stack trace (an
engine passes `explain` for its own exceptions: dq_engine/spark/messages.py for Spark's and the
JVM's), and `redact` removes the secrets the run used (passwords) from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

MAX_MESSAGE = 1500

# Where Spark's messages stop being useful to the person who wrote the check: the JVM stack, the
# "== DataFrame ==" / "== SQL ==" call-site blocks, and the analyzed plan after "SQLSTATE: ...;".
_CUT_MARKERS = ("\nJVM stacktrace", "\n== ", ";\n", "\n\tat ", "\n\n")


class CheckError(Exception):
    """One check cannot be evaluated; the message says why and, where possible, how to fix it."""


class BatchError(Exception):
    """A batch cannot be read or filtered; every check on it reports this message."""


def describe(
    exc: BaseException, secrets: Iterable[str] = (), explain: Callable[[BaseException], str] | None = None
) -> str:
    """A short, secret-free message for an exception (no stack trace). `explain` gives an engine's
    own message for its exceptions, or "" to fall back to the exception's type and text."""
    if isinstance(exc, CheckError | BatchError):
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
