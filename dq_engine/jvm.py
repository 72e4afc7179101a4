"""The engine's own JVM functions (sources in dq_engine/jvm/src/, built by scripts/build-jvm.sh).

One function today: `dq_rlike(text, pattern, automaton)`, RLIKE answered by a precompiled automaton
on the UTF-8 bytes (dq_engine/fast_regex.py says which patterns and why). The jar is optional: a
session without it answers every regexp check with Spark's RLIKE, with the same results, slower.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession

logger = logging.getLogger(__name__)

FUNCTIONS_JAR = Path(__file__).resolve().parent / "jvm" / "build" / "dq-engine-functions.jar"
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


def fast_rlike(spark: SparkSession, text: Column, pattern: str) -> Column | None:
    """`text RLIKE pattern` through the automaton, or None when the pattern or session cannot have it."""
    from pyspark.sql import functions as F

    from dq_engine.fast_regex import compile_find

    automaton = compile_find(pattern)
    if automaton is None or not ensure_functions(spark):
        return None
    return F.call_function(RLIKE, text, F.lit(pattern), F.lit(automaton.serialize()))
