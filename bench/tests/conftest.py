# One SparkSession per test run, shared with the engine's tests (stack-notes T15).
from dq_engine.tests.conftest import spark  # noqa: F401
