"""What a comparison type is made of, and what each part means.

A comparison type (the `ComparisonType` rows an admin manages) says where a check's expected
value comes from, with three fields this module defines:
- `source`: `fixed` (the number typed in the check), `history` (this check's earlier statistics),
  `range` (an expected range from this check's earlier *normal* statistics: a dynamic threshold)
  or `data` (a row count the engine measures in the same pass as the statistic);
- for history, a `window` on business time and an `aggregation` of the values in it;
- for range, a counted `window` (`last_<N>_runs` or `last_<N>_days`) and a spread as its
  `aggregation`: `sigma_<k>` (mean ± k standard deviations) or `pct_<p>` (mean ± p percent);
  its `batch` is empty (learn from whole-table results) or `partition` (learn from results of the
  same partition as the one judged: a per-partition baseline);
- for data, the `batch` whose rows are counted: the check's `source` or `target` table;
- for anomaly (anomaly detection, dq_engine/anomaly.py), a counted `window` (`last_<N>_days` or
  `last_<N>_runs`) of earlier results to learn from, and a `batch` empty or `partition` as for a
  range; its knobs are the check's own inputs (ANOMALY_PARAMS), read when a run judges.

Saving a type checks its fields here (model, admin and API alike), executions/history.py computes
windows and aggregations from here, and executions/recording.py dispatches on `source`. A new
aggregation or window shape is added in this module only.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _

SOURCES = ("fixed", "history", "range", "data", "anomaly")
BATCHES = ("source", "target")
RANGE_SCOPES = ("", "partition")
MAX_WINDOW_LENGTH = 3660

# How the values of a window become one expected value; values come oldest first.
AGGREGATIONS: dict[str, Callable[[list[float]], float]] = {
    "avg": statistics.fmean,
    "min": min,
    "max": max,
    "median": statistics.median,
    "last": lambda values: values[-1],
}

# Windows on business time, relative to the run's business day (the day `data_time` falls on).
# `day` includes that day (earlier runs of it); the others end where the business day starts.
FIXED_WINDOWS = {
    "day": "the business day itself (its earlier runs)",
    "week": "from the start of the business week (Monday) up to the business day",
    "month": "from the start of the business month up to the business day",
}
COUNTED_WINDOW = re.compile(r"^last_(?P<n>[1-9][0-9]*)_(?P<unit>days|runs)$")
WINDOW_FORMS = ", ".join([*FIXED_WINDOWS, "last_<N>_days", "last_<N>_runs"])
# A range's spread around the baseline's mean: `sigma_3` (± 3 standard deviations), `pct_20` (± 20 %);
# at most 99.9 of either, so that the key fits the aggregation column.
RANGE_SPREAD = re.compile(r"^(?P<kind>sigma|pct)_(?P<amount>[0-9]{1,2}(?:\.[0-9])?)$")
SPREAD_FORMS = "sigma_<k> (mean ± k standard deviations) or pct_<p> (mean ± p percent)"
# Stored with every range result: a change to how ranges are computed gets a new version, so a
# range that suddenly widens can be traced to the data, the baseline or the algorithm.
RANGE_ALGORITHM_VERSION = "range-v1"

# The fields that decide what a type computes: snapshotted into each template version, so
# editing a type later never changes what an existing check version compares with.
SEMANTIC_FIELDS = ("key", "source", "window", "aggregation", "batch")
# A check's anomaly knobs: input entry name → the detector's setting (dq_engine.anomaly.Settings).
# Stable names: other features (table monitors) set them.
ANOMALY_PARAMS = {
    "anomaly_direction": "direction",
    "anomaly_k_warn": "k_warn",
    "anomaly_k_fail": "k_fail",
    "anomaly_min_history": "min_history",
    "anomaly_min_change_pct": "min_change_pct",
    "anomaly_seasonality": "seasonality",
}


@dataclass(frozen=True)
class Window:
    """Statistics with `start <= data_time < end` count (no start: any time before `end`);
    `latest`, when set, keeps only that many of the newest."""

    start: datetime | None
    end: datetime
    latest: int | None = None


@dataclass(frozen=True)
class ComparisonSpec:
    """A comparison type's semantic fields, from a model row or a version's snapshot."""

    key: str
    source: str
    window: str = ""
    aggregation: str = ""
    batch: str = ""

    @classmethod
    def of(cls, value: Any) -> ComparisonSpec:
        if isinstance(value, Mapping):
            return cls(**{name: value.get(name) or "" for name in SEMANTIC_FIELDS})
        return cls(**{name: getattr(value, name, "") or "" for name in SEMANTIC_FIELDS})

    def snapshot(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in SEMANTIC_FIELDS}

    def aggregate(self, values: list[float]) -> float | None:
        return AGGREGATIONS[self.aggregation](values) if values else None

    def window_on(self, data_time: datetime) -> Window:
        return window_bounds(self.window, data_time)

    def min_baseline(self) -> int:
        """How many normal values a range needs: half its window (rounded up), at least 2."""
        counted = COUNTED_WINDOW.match(self.window)
        return max(2, -(-int(counted["n"]) // 2)) if counted else 2

    def expected_range(self, values: list[float]) -> tuple[float, float, float] | None:
        """(low, high, mean) of `values` by the spread; None with fewer than `min_baseline()`."""
        if len(values) < self.min_baseline():
            return None
        spread = RANGE_SPREAD.match(self.aggregation)
        mean, amount = statistics.fmean(values), float(spread["amount"])
        width = amount * statistics.stdev(values) if spread["kind"] == "sigma" else abs(mean) * amount / 100
        return mean - width, mean + width, mean


def window_bounds(window: str, data_time: datetime) -> Window:
    """The window `window` (one of WINDOW_FORMS) for a run whose business time is `data_time`."""
    day = data_time.replace(hour=0, minute=0, second=0, microsecond=0)
    if window == "day":
        return Window(day, day + timedelta(days=1))
    if window == "week":
        return Window(day - timedelta(days=day.weekday()), day)
    if window == "month":
        return Window(day.replace(day=1), day)
    counted = COUNTED_WINDOW.match(window or "")
    if counted is None:
        raise ValueError(f"Unknown window {window!r}; use one of {WINDOW_FORMS}.")
    n = int(counted["n"])
    if counted["unit"] == "days":
        return Window(day - timedelta(days=n), day)
    return Window(None, day, latest=n)


def definition_problems(source: str, window: str, aggregation: str, batch: str) -> dict[str, list[str]]:
    """Field-level problems with a comparison type's fields; empty when a run can evaluate it."""
    if source not in SOURCES:
        return {
            "source": [_("Choose where the expected value comes from: %(sources)s.") % {"sources": ", ".join(SOURCES)}]
        }
    problems: dict[str, list[str]] = {}
    unused = {
        "fixed": ("window", "aggregation", "batch"),
        "history": ("batch",),
        "range": (),
        "data": ("window", "aggregation"),
        "anomaly": ("aggregation",),
    }[source]
    values = {"window": window, "aggregation": aggregation, "batch": batch}
    for name in unused:
        if values[name]:
            problems[name] = [
                _("A %(source)s comparison takes no %(field)s; leave it empty.") % {"source": source, "field": name}
            ]
    if source == "history":
        problems.update(_history_problems(window, aggregation))
    if source == "range":
        problems.update(_range_problems(window, aggregation))
        if batch not in RANGE_SCOPES:
            problems["batch"] = [
                _("A range learns from whole-table results (leave batch empty) or per partition (batch: partition).")
            ]
    if source == "anomaly":
        counted = COUNTED_WINDOW.match(window or "")
        if counted is None or not 2 <= int(counted["n"]) <= MAX_WINDOW_LENGTH:
            problems["window"] = [
                _(
                    "Anomaly detection learns from a counted window: last_<N>_days or last_<N>_runs, N from 2 to "
                    "%(limit)s (got %(window)s)."
                )
                % {"limit": MAX_WINDOW_LENGTH, "window": repr(window)}
            ]
        if batch not in RANGE_SCOPES:
            problems["batch"] = [
                _(
                    "Anomaly detection learns from whole-table results (leave batch empty) "
                    "or per partition (batch: partition)."
                )
            ]
    if source == "data" and batch not in BATCHES:
        problems["batch"] = [_("Say whose rows are counted: %(batches)s.") % {"batches": " or ".join(BATCHES)}]
    return problems


def _history_problems(window: str, aggregation: str) -> dict[str, list[str]]:
    problems: dict[str, list[str]] = {}
    counted = COUNTED_WINDOW.match(window or "")
    if window not in FIXED_WINDOWS and counted is None:
        problems["window"] = [
            _("Unknown window %(window)s; use one of %(forms)s (e.g. last_14_days).")
            % {"window": repr(window), "forms": WINDOW_FORMS}
        ]
    elif counted is not None and int(counted["n"]) > MAX_WINDOW_LENGTH:
        problems["window"] = [_("A window may span at most %(limit)s days or runs.") % {"limit": MAX_WINDOW_LENGTH}]
    if aggregation not in AGGREGATIONS:
        problems["aggregation"] = [
            _("Unknown aggregation %(aggregation)s; use one of %(aggregations)s.")
            % {"aggregation": repr(aggregation), "aggregations": ", ".join(AGGREGATIONS)}
        ]
    return problems


def _range_problems(window: str, aggregation: str) -> dict[str, list[str]]:
    problems: dict[str, list[str]] = {}
    counted = COUNTED_WINDOW.match(window or "")
    if counted is None:
        problems["window"] = [
            _("A range needs a counted window: last_<N>_runs or last_<N>_days (got %(window)s).")
            % {"window": repr(window)}
        ]
    elif not 2 <= int(counted["n"]) <= MAX_WINDOW_LENGTH:
        problems["window"] = [_("A range's window spans 2 to %(limit)s days or runs.") % {"limit": MAX_WINDOW_LENGTH}]
    if RANGE_SPREAD.match(aggregation or "") is None:
        problems["aggregation"] = [
            _("Unknown spread %(aggregation)s; use %(forms)s (e.g. sigma_3, pct_20).")
            % {"aggregation": repr(aggregation), "forms": SPREAD_FORMS}
        ]
    return problems


def template_problems(metric: Mapping[str, Any], specs: list[ComparisonSpec], input_fields: set[str]) -> list[str]:
    """Comparison types a template may not offer: ones its checks could never evaluate (a target
    row count without a target table) and ones that compare the statistic with itself."""
    problems = []
    for spec in specs:
        if spec.source != "data":
            continue
        if spec.batch == "target" and "target_table" not in input_fields:
            problems.append(
                f"comparison_types: {spec.key} counts the target table's rows, but this template has no "
                "target_table input; remove it or add the target inputs."
            )
        if spec.batch == "source" and metric.get("kind") == "row_count":
            problems.append(
                f"comparison_types: {spec.key} counts the same rows as this template's statistic, so the "
                "check would compare the statistic with itself; remove it."
            )
    return problems
