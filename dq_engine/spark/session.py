"""Build (or reuse) the SparkSession the engine runs on.

Whoever calls `build_spark` owns the session's life: the Celery
worker keeps one for its whole life, the CLI stops its own, the tests share one per test run.
`getOrCreate` semantics mean a second call in the same process returns the running session (its
static settings, such as the master and the jars, are the first call's).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pyspark is imported lazily: `import dq_engine` must stay cheap
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)

# Debian's packages (libpostgresql-jdbc-java, libmariadb-java).
DEFAULT_JARS = ("/usr/share/java/postgresql.jar", "/usr/share/java/mariadb-java-client.jar")

# The quiet log4j2 configuration shipped with the project.
_LOG4J_CONF = Path(__file__).resolve().parents[2] / "conf" / "spark" / "log4j2.properties"


def build_spark(
    master: str | None = "local[2]",
    jars: Iterable[str] | None = DEFAULT_JARS,
    app_name: str = "dq-engine",
    extra_conf: Mapping[str, str] | None = None,
    driver_memory: str | None = None,
) -> SparkSession:
    """Return a SparkSession for the engine, creating it on first use.

    - `jars`: JDBC drivers and the like for `spark.jars`; a missing file is skipped with a warning
      (a run on a source needing it then fails with "No suitable driver" for that batch only).
      None leaves `spark.jars` as spark-submit set it (`--jars`): setting it here would replace
      that list, and the executors would fetch only the new one (ClassNotFoundException
      org.postgresql.Driver on a cluster, where the driver still had them on its class path).
    - `extra_conf`: any further Spark settings; they win over the defaults here.
    - `driver_memory`: e.g. "2g" (only effective when this call starts the JVM).
    - `master=None` leaves the master to spark-submit or the Spark defaults.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if _LOG4J_CONF.is_file() and "SPARK_CONF_DIR" not in os.environ:
        os.environ["SPARK_CONF_DIR"] = str(_LOG4J_CONF.parent)

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    for key, value in default_conf(master, jars, driver_memory).items():
        builder = builder.config(key, value)
    for key, value in (extra_conf or {}).items():
        builder = builder.config(key, str(value))
    session = builder.getOrCreate()
    _default_shuffle_partitions(session, extra_conf or {})
    return session


def _default_shuffle_partitions(session: SparkSession, extra_conf: Mapping[str, str]) -> None:
    """A few shuffle partitions suit small local batches (Spark's 200 mostly schedule empty tasks);
    a cluster keeps Spark's default, which adaptive execution coalesces anyway."""
    key = "spark.sql.shuffle.partitions"
    if key in extra_conf or session.sparkContext.getConf().contains(key) or session.conf.get(key) != "200":
        return  # configured by someone: leave it
    if session.sparkContext.master.startswith("local"):
        session.conf.set(key, "4")


def default_conf(master: str | None, jars: Iterable[str] | None, driver_memory: str | None = None) -> dict[str, str]:
    """The settings `build_spark` applies before `extra_conf` (exposed for spark-submit wrappers)."""
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # Error rows are read back by pyarrow in the web app: microsecond timestamps round-trip for
        # every date, where INT96/nanoseconds overflow after the year 2262.
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        # Spark replaces `${name}` in SQL text with a setting's value (an empty string when unset):
        # a regular expression or listed value holding `${` would silently change. The engine's
        # SQL binds its values as literals and needs no substitution.
        "spark.sql.variable.substitute": "false",
    }
    from dq_engine.spark.jvm import functions_jar

    existing = [] if jars is None else existing_jars([*jars, *functions_jar()])
    if existing:
        conf["spark.jars"] = ",".join(existing)
    if driver_memory:
        conf["spark.driver.memory"] = driver_memory
    if master and not master.startswith("local"):
        conf["spark.driver.host"] = os.environ.get("SPARK_LOCAL_IP", "127.0.0.1")
    return conf


def existing_jars(jars: Iterable[str]) -> list[str]:
    """The jars that exist; remote URIs (hdfs://, https://, ...) are passed through unchecked."""
    kept = []
    for jar in jars:
        if not jar:
            continue
        if "://" in jar and not jar.startswith("file://"):
            kept.append(jar)
        elif Path(jar.removeprefix("file://")).is_file():
            kept.append(jar)
        else:
            logger.warning("Spark jar %s does not exist; it is left out of spark.jars.", jar)
    return kept
