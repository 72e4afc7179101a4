# One SparkSession per test run, shared with the engine's tests.
from dq_engine.tests.conftest import spark  # noqa: F401
