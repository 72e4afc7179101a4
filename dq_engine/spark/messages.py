"""Spark's and the JVM's exceptions as short messages, and quiet PySpark error loggers.

`describe` is dq_engine.errors.describe with Spark's own message (its error class and text, plus
the root cause when Spark's message hides it) instead of a JVM stack trace.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from dq_engine import errors
from dq_engine.errors import trim


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> str:
    """A short, secret-free message for an exception, Spark's and py4j's included."""
    return errors.describe(exc, secrets, explain=explain)


def explain(exc: BaseException) -> str:
    message = _spark_message(exc) or _java_message(exc)
    # The engine's own regex guard (GuardedRegex.java) says what happened; Spark's wrapping of a
    # failed function (FAILED_EXECUTE_UDF, a lambda's class name) says nothing more.
    marker = "RegexBudgetExceeded: "
    if marker not in message:
        return message
    reason = message.split(marker, 1)[1]
    for end in (" SQLSTATE:", " (cause:", "\n"):
        reason = reason.split(end, 1)[0]
    return reason.rstrip(". ") + "."


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
    message = trim(message or str(exc))
    chain = _java_chain(getattr(exc, "_origin", None))
    root = trim(chain[-1]) if len(chain) > 1 else ""
    if root and root.split(": ", 1)[-1] not in message:
        message = f"{message} (cause: {root})"
    return message


def _java_message(exc: BaseException) -> str:
    """For a raw Py4JJavaError (e.g. the JDBC driver's SQLException): the exception and its root cause."""
    chain = _java_chain(getattr(exc, "java_exception", None))
    if not chain:
        return ""
    first, root = trim(chain[0]), trim(chain[-1])
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
