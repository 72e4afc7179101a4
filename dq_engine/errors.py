"""Failures as values: the messages a check or a batch reports instead of a stack trace.

A broken check (unknown column, wrong type, bad SQL, bad regex) or an unreadable batch becomes
`{"status": "error", "message": ...}` in the result document (CONVENTIONS.md, "A failure is a
value"). `describe` turns any exception, Spark's included, into one short readable message without
the JVM stack trace, and `redact` removes the secrets the run used (passwords) from it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

MAX_MESSAGE = 1500

# Where Spark's messages stop being useful to the person who wrote the check: the JVM stack, the
# "== DataFrame ==" / "== SQL ==" call-site blocks, and the analyzed plan after "SQLSTATE: ...;".
_CUT_MARKERS = ("\nJVM stacktrace", "\n== ", ";\n", "\n\tat ", "\n\n")


class CheckError(Exception):
    """One check cannot be evaluated; the message says why and, where possible, how to fix it."""


class BatchError(Exception):
    """A batch cannot be read or filtered; every check on it reports this message."""


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> str:
    """A short, secret-free message for an exception (no stack trace, no Java class paths)."""
    if isinstance(exc, CheckError | BatchError):
        text = str(exc)
    else:
        text = _spark_message(exc) or _java_message(exc) or f"{type(exc).__name__}: {exc}"
    return redact(_trim(text), secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret value that occurs in the text by ***."""
    for secret in sorted({s for s in secrets if s and len(s) >= 3}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _spark_message(exc: BaseException) -> str:
    """PySpark's own message ("[ERROR_CLASS] text SQLSTATE: x"), which carries no stack trace, plus
    the root cause when Spark's message hides it (FAILED_JDBC.CONNECTION says only "Couldn't
    connect"; the driver's cause says "Connection to host:port refused")."""
    try:
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - the engine always has pyspark
        return ""
    if not isinstance(exc, PySparkException):
        return ""
    try:
        message = exc.getMessage()
    except Exception:  # noqa: BLE001 - a message helper must never raise
        message = ""
    message = _trim(message or str(exc))
    chain = _java_chain(getattr(exc, "_origin", None))
    root = _trim(chain[-1]) if len(chain) > 1 else ""
    if root and root.split(": ", 1)[-1] not in message:
        message = f"{message} (cause: {root})"
    return message


def _java_message(exc: BaseException) -> str:
    """For a raw Py4JJavaError (e.g. the JDBC driver's SQLException): the exception and its root cause."""
    chain = _java_chain(getattr(exc, "java_exception", None))
    if not chain:
        return ""
    first, root = _trim(chain[0]), _trim(chain[-1])
    return first if root.split(": ", 1)[-1] in first else f"{first} (cause: {root})"


def _java_chain(java: object) -> list[str]:
    """toString() of a Java exception and its causes, package names stripped."""
    chain: list[str] = []
    try:
        while java is not None and len(chain) < 10:
            chain.append(_strip_package(str(java.toString())))
            java = java.getCause()
    except Exception:  # noqa: BLE001 - py4j trouble: say less rather than fail
        pass
    return chain


def _strip_package(text: str) -> str:
    """'org.postgresql.util.PSQLException: x' → 'PSQLException: x'."""
    return re.sub(r"^(?:[a-z_$][\w$]*\.)+([A-Z][\w$]*)", r"\1", text.strip())


def _trim(text: str) -> str:
    for marker in _CUT_MARKERS:
        index = text.find(marker)
        if index > 0:
            text = text[:index]
    text = " ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


@contextmanager
def quiet_pyspark_error_logs() -> Iterator[None]:
    """Silence PySpark's loggers that print every caught analysis/runtime error with its JVM stack.

    The engine expects such errors (a broken check is a normal outcome) and reports them in the
    result document; logging them as ERROR with stack traces would only bury the worker's log.
    """
    from pyspark.logger import PySparkLogger

    # Through PySparkLogger.getLogger: a plain logging.Logger created first under these names would
    # later receive PySpark's extra keyword arguments (file=, line=, ...) and raise TypeError.
    names = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")
    loggers: list[logging.Logger] = [PySparkLogger.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
