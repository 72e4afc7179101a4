"""Failure is a value at every stage of a run: a check whose engine fails in a way nobody foresaw
(a bug: here a KeyError planted in one backend method) ends `error` with a message in words, and
every other check of the run still reports its hand-counted value.

The values are worked out from conftest.ORDERS rows 1..7 and the active CUSTOMERS.
"""

from __future__ import annotations

import threading
import time

import pytest

from dq_engine.tests.conftest import check, make_spec

EMAIL = "customer_email"

HEALTHY = [
    check("count", "row_count"),
    check("nulls", "null_or_empty", column=EMAIL),  # NULL (2), '' (3)
    check("dups", "duplicate_values", column="status"),  # paid (1, 2, 4)
    check("accuracy", "unmatched_rows", target="t", mappings=[{"source": EMAIL, "operator": "=", "target": "email"}]),
    check(
        "compare",
        "value_comparison",
        target="t",
        sql="SELECT count(*) FROM ${src_table}",
        comparison_sql="SELECT count(*) FROM ${target_table}",
    ),
]
HEALTHY_VALUES = {"count": 7.0, "nulls": 2.0, "dups": 1.0, "accuracy": 4.0, "compare": 7.0}

# The victim of each stage: a check that goes through the failing backend method.
ROW_VICTIM = check("victim", "outside_range", column="amount", min=0, max=100)
VICTIMS = {
    "refusal": ROW_VICTIM,
    "metric": ROW_VICTIM,
    "bind": ROW_VICTIM,
    "aggregate": ROW_VICTIM,
    "key_column": check("victim", "duplicate_values", column=EMAIL),
    "duplicates": check("victim", "duplicate_values", column=EMAIL),
    "unmatched": check(
        "victim", "unmatched_rows", target="t", mappings=[{"source": EMAIL, "operator": "<=>", "target": "email"}]
    ),
    "scalar": check(
        "victim",
        "value_comparison",
        target="t",
        sql="SELECT max(amount) FROM ${src_table}",
        comparison_sql="SELECT count(*) FROM ${target_table}",
    ),
}


def _planted(method: str, original, victims: set[int]):
    """The backend method, raising an unforeseen KeyError where it touches the victim."""

    def touches(args) -> bool:
        for arg in args:
            if getattr(arg, "id", None) == "victim":
                return True
            if isinstance(arg, list | tuple) and any(id(m) in victims for m in arg):
                return True
            if arg == EMAIL and method == "duplicates":
                return True
            if isinstance(arg, tuple) and arg and isinstance(arg[0], tuple) and arg[0][1] == "<=>":
                return True  # the victim's mappings
        return False

    def planted(self, *args, **kwargs):
        if touches(args):
            raise KeyError("b1")
        return original(self, *args, **kwargs)

    return planted


def _backend_class(engine: str):
    if engine == "duckdb":
        from dq_engine.duckdb.backend import DuckDBBackend

        return DuckDBBackend
    from dq_engine.pushdown.backend import PushdownBackend

    return PushdownBackend


def _spec(request, engine: str, store: str, checks: list[dict]) -> dict:
    spec = make_spec(request.getfixturevalue(store), checks)
    for batch in spec["batches"].values():
        batch["engine"] = engine
    return spec


ENGINES = [("duckdb", "parquet_sources"), ("pushdown", "pg_sources"), ("pushdown", "mariadb_sources")]


def _assert_unforeseen_said_in_words(message: str) -> None:
    assert "failed unexpectedly" in message and "KeyError" in message
    assert "'b1'" not in message and "Traceback" not in message


@pytest.mark.parametrize(("engine", "store"), ENGINES)
@pytest.mark.parametrize("stage", sorted(VICTIMS))
def test_an_unforeseen_failure_at_any_stage_errors_only_its_check(request, monkeypatch, engine, store, stage):
    import dq_engine

    cls = _backend_class(engine)
    victims: set[int] = set()
    if stage in ("bind", "aggregate"):  # the victim's metric is recognised by the one `metric` made
        original_metric = cls.metric

        def tagging(self, name, check_, folded):
            result = original_metric(self, name, check_, folded)
            if check_.id == "victim":
                victims.add(id(result))
            return result

        monkeypatch.setattr(cls, "metric", tagging)
    monkeypatch.setattr(cls, stage, _planted(stage, getattr(cls, stage), victims))

    document = dq_engine.run(
        _spec(request, engine, store, [*HEALTHY, VICTIMS[stage]]), spark=lambda: pytest.fail("no Spark")
    )
    checks = document["checks"]

    assert {name: (checks[name]["status"], checks[name]["statistic"]) for name in HEALTHY_VALUES} == {
        name: ("ok", value) for name, value in HEALTHY_VALUES.items()
    }
    assert checks["compare"]["comparison"] == 3.0
    assert checks["victim"]["status"] == "error"
    _assert_unforeseen_said_in_words(checks["victim"]["message"])


@pytest.mark.parametrize(("engine", "store"), ENGINES)
def test_a_batch_that_fails_to_open_unforeseen_errors_only_the_checks_reading_it(request, monkeypatch, engine, store):
    import dq_engine

    cls = _backend_class(engine)
    original = cls.open

    def planted(self, name):
        if name == "t":
            raise KeyError("b1")
        return original(self, name)

    monkeypatch.setattr(cls, "open", planted)

    document = dq_engine.run(_spec(request, engine, store, HEALTHY), spark=lambda: pytest.fail("no Spark"))
    checks = document["checks"]

    reading_b = ("count", "nulls", "dups")
    assert {n: (checks[n]["status"], checks[n]["statistic"]) for n in reading_b} == {
        "count": ("ok", 7.0),
        "nulls": ("ok", 2.0),
        "dups": ("ok", 1.0),
    }
    for name in ("accuracy", "compare"):
        assert checks[name]["status"] == "error"
        assert checks[name]["message"].startswith("Target batch: ")
        _assert_unforeseen_said_in_words(checks[name]["message"])
    _assert_unforeseen_said_in_words(document["batches"]["t"]["error"])


@pytest.mark.parametrize(("engine", "store"), ENGINES)
def test_an_unforeseen_failure_while_recording_a_value_errors_only_its_check(request, monkeypatch, engine, store):
    import dq_engine
    from dq_engine.recorder import Recorder

    original = Recorder.ok_count

    def planted(self, check_, value):
        if check_.id == "victim":
            raise TypeError("float() argument must be a string or a real number, not 'NoneType'")
        return original(self, check_, value)

    monkeypatch.setattr(Recorder, "ok_count", planted)

    document = dq_engine.run(
        _spec(request, engine, store, [*HEALTHY, ROW_VICTIM]), spark=lambda: pytest.fail("no Spark")
    )
    checks = document["checks"]

    assert {name: checks[name]["statistic"] for name in HEALTHY_VALUES} == HEALTHY_VALUES
    assert checks["victim"]["status"] == "error"
    assert "failed unexpectedly while recording" in checks["victim"]["message"]
    assert "float() argument" not in checks["victim"]["message"]


@pytest.mark.parametrize(("engine", "store"), ENGINES)
def test_a_run_returns_as_soon_as_its_work_is_done(request, monkeypatch, engine, store):
    """The cancel watcher is released by an Event when the work ends: no poll is left to sleep."""
    import dq_engine
    from dq_engine.passes import run as skeleton
    from dq_engine.recorder import Recorder

    finished_work: list[float] = []
    original = Recorder.finish

    def finish(self):
        original(self)
        finished_work.append(time.monotonic())

    monkeypatch.setattr(Recorder, "finish", finish)
    monkeypatch.setattr(skeleton, "CANCEL_POLL_SECONDS", 5.0)  # a watcher waited out would cost seconds

    document = dq_engine.run(_spec(request, engine, store, [check("count", "row_count")]), cancel=threading.Event())
    returned = time.monotonic()

    assert document["checks"]["count"]["statistic"] == 7.0
    assert returned - finished_work[0] < 1.0  # the watcher polls every 5 s here: it was not waited out


def test_an_unforeseen_failure_while_selecting_an_engine_sends_the_batch_to_spark_saying_why(
    monkeypatch, parquet_sources
):
    from dq_engine.duckdb.engine import DuckDBEngine
    from dq_engine.selection import choose_engines
    from dq_engine.spec import JobSpec

    def planted(self, check_):
        raise KeyError("b1")

    monkeypatch.setattr(DuckDBEngine, "reason_cannot_check", planted)
    spec = make_spec(parquet_sources, [check("nulls", "null_or_empty", column=EMAIL)])
    for batch in spec["batches"].values():
        batch["engine"] = "auto"

    choices = choose_engines(JobSpec.from_dict(spec))

    assert choices["b"].engine == "spark"
    assert choices["b"].reason == "auto: duckdb could not tell whether it runs check 'check nulls'"
