"""The Spark engine's own JVM functions (sources in dq_engine/jvm/src/, built by scripts/build-jvm.sh).

- `dq_rlike(text, pattern, automaton)`: RLIKE answered by a precompiled automaton on the UTF-8 bytes
  (dq_engine/fast_regex.py says which patterns and why), in time linear in the value;
- `dq_rlike_guarded(text, pattern)`, `dq_regexp_extract(text, pattern, group)`,
  `dq_regexp_replace(text, pattern, replacement)`: Java's regex under a step budget (GuardedRegex.java)
  for everything else, so that catastrophic backtracking ends the check `error` instead of stalling
  the worker.

Every regex the engine runs goes through one of them, so the jar is required for regexes: without it a
check or filter using one ends `error` saying so (`make run`, `make test` and the Dockerfile build it).

`regex_find` is the Spark engine's regex hook for the regexp predicate (dq_engine/vocabulary/
predicates.py); `regex_hook` the one for RLIKE/regexp_extract/regexp_replace in filters and custom SQL
(sql_safety.RegexHook). Both compile the pattern with Java's regex engine first.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from sqlglot import exp

from dq_engine.errors import CheckError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)

FUNCTIONS_JAR = Path(__file__).resolve().parents[1] / "jvm" / "build" / "dq-engine-functions.jar"
RLIKE = "dq_rlike"
GUARDED_RLIKE, GUARDED_EXTRACT, GUARDED_REPLACE = "dq_rlike_guarded", "dq_regexp_extract", "dq_regexp_replace"
NOT_BUILT = (
    "The engine's regex functions ({jar}) are not loaded, and without them a regular expression cannot be "
    "run in bounded time; build them with scripts/build-jvm.sh and restart the worker."
)

_lock = threading.Lock()
_ATTRIBUTE = "_dq_engine_functions"  # set on the SparkSession object: whether registration worked


def functions_jar() -> list[str]:
    """[the jar] when it has been built, else [] (build_spark and spark-submit add it to the jars)."""
    if FUNCTIONS_JAR.is_file():
        return [str(FUNCTIONS_JAR)]
    logger.warning("%s is not built (scripts/build-jvm.sh); checks using regexes will end error.", FUNCTIONS_JAR.name)
    return []


def ensure_functions(spark: SparkSession) -> bool:
    """Register the engine's functions in this session once; False when the jar is not loaded."""
    with _lock:
        registered = getattr(spark, _ATTRIBUTE, None)
        if registered is None:
            try:
                spark.sparkContext._jvm.org.dqplatform.engine.Functions.register(spark._jsparkSession)
                registered = True
            except Exception as exc:  # noqa: BLE001 - class not on the classpath (py4j TypeError) or older Spark
                logger.warning("The engine's JVM functions are not available (%s); regex checks will end error.", exc)
                registered = False
            setattr(spark, _ATTRIBUTE, registered)
        return registered


def regex_find(spark: SparkSession, text: exp.Expression, pattern: str) -> exp.Expression:
    """`text RLIKE pattern` as a SQLGlot expression for Spark, in bounded time:
    `dq_rlike(text, pattern, automaton)` when the automaton answers the pattern, else
    `dq_rlike_guarded(text, pattern)`. The pattern and the automaton are string literals (the renderer
    quotes them). Raises CheckError for a pattern Java's regex engine refuses, or without the jar."""
    from dq_engine.fast_regex import compile_find

    check_java_regex(spark, pattern)
    _require_functions(spark)
    automaton = compile_find(pattern)
    if automaton is None:
        return exp.Anonymous(this=GUARDED_RLIKE, expressions=[text, exp.Literal.string(pattern)])
    return exp.Anonymous(
        this=RLIKE, expressions=[text, exp.Literal.string(pattern), exp.Literal.string(automaton.serialize())]
    )


def regex_hook(spark: SparkSession):
    """sql_safety.RegexHook for Spark: RLIKE/REGEXP/regexp_like, regexp_extract and regexp_replace in a
    filter or custom SQL, bound to the engine's bounded functions (the text cast to STRING, as
    Spark's own functions would)."""

    def bind(kind: str, text: exp.Expression, pattern: str, extra: list[exp.Expression]) -> exp.Expression:
        as_text = exp.cast(text, "string")
        if kind == "find":
            return exp.Paren(this=regex_find(spark, as_text, pattern))
        check_java_regex(spark, pattern)
        _require_functions(spark)
        if kind == "extract":
            group = extra[0] if extra else exp.Literal.number(1)
            return exp.Anonymous(
                this=GUARDED_EXTRACT, expressions=[as_text, exp.Literal.string(pattern), exp.cast(group, "int")]
            )
        return exp.Anonymous(this=GUARDED_REPLACE, expressions=[as_text, exp.Literal.string(pattern), extra[0]])

    return bind


def _require_functions(spark: SparkSession) -> None:
    if not ensure_functions(spark):
        raise CheckError(NOT_BUILT.format(jar=FUNCTIONS_JAR.name))


def check_java_regex(spark: SparkSession, pattern: str) -> None:
    """Compile the pattern with Java's regex engine (the one Spark uses), so a bad pattern is this
    check's error before the fused pass runs rather than a failure of the whole pass."""
    try:
        spark.sparkContext._jvm.java.util.regex.Pattern.compile(pattern)
    except Exception as exc:  # noqa: BLE001 - py4j wraps PatternSyntaxException
        from dq_engine.spark.messages import describe

        detail = (describe(exc).splitlines() or ["syntax error"])[0]
        raise CheckError(f"Not a valid regular expression ({detail}): {pattern!r}.")
