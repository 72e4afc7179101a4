"""The Spark engine's own JVM functions (sources in dq_engine/jvm/src/, built by scripts/build-jvm.sh).

One function today: `dq_rlike(text, pattern, automaton)`, RLIKE answered by a precompiled automaton
on the UTF-8 bytes (dq_engine/spark/fast_regex.py says which patterns and why). The jar is optional: a
session without it answers every regexp check with Spark's RLIKE, with the same results, slower.

`regex_find` is the Spark engine's regex hook (the regexp predicate's one engine-specific call,
dq_engine/vocabulary/predicates.py): the pattern checked by Java's regex engine, then matched by
the automaton or by RLIKE.
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

_lock = threading.Lock()
_ATTRIBUTE = "_dq_engine_functions"  # set on the SparkSession object: whether registration worked


def functions_jar() -> list[str]:
    """[the jar] when it has been built, else [] (build_spark and spark-submit add it to the jars)."""
    if FUNCTIONS_JAR.is_file():
        return [str(FUNCTIONS_JAR)]
    logger.info("%s is not built (scripts/build-jvm.sh); regexp checks use Spark's RLIKE.", FUNCTIONS_JAR.name)
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
                logger.info("The engine's JVM functions are not available (%s); regexp checks use RLIKE.", exc)
                registered = False
            setattr(spark, _ATTRIBUTE, registered)
        return registered


def regex_find(spark: SparkSession, text: exp.Expression, pattern: str) -> exp.Expression:
    """`text RLIKE pattern` as a SQLGlot expression for Spark: `dq_rlike(text, pattern, automaton)`
    when the automaton answers the pattern and the jar is loaded, else RLIKE. The pattern and the
    automaton are string literals (the renderer quotes them). Raises CheckError for a pattern
    Java's regex engine refuses."""
    from dq_engine.spark.fast_regex import compile_find

    check_java_regex(spark, pattern)
    automaton = compile_find(pattern)
    if automaton is None or not ensure_functions(spark):
        return exp.RegexpLike(this=text, expression=exp.Literal.string(pattern))
    return exp.Anonymous(
        this=RLIKE, expressions=[text, exp.Literal.string(pattern), exp.Literal.string(automaton.serialize())]
    )


def check_java_regex(spark: SparkSession, pattern: str) -> None:
    """Compile the pattern with Java's regex engine (the one Spark uses), so a bad pattern is this
    check's error before the fused pass runs rather than a failure of the whole pass."""
    try:
        spark.sparkContext._jvm.java.util.regex.Pattern.compile(pattern)
    except Exception as exc:  # noqa: BLE001 - py4j wraps PatternSyntaxException
        from dq_engine.spark.messages import describe

        detail = (describe(exc).splitlines() or ["syntax error"])[0]
        raise CheckError(f"Not a valid regular expression ({detail}): {pattern!r}.")
