"""Anomaly detection benchmark: the platform's detector against the plain z-score, same series.

`make bench-anomaly` (pure Python, seconds). A fixed, seeded set of metric series (daily and
hourly; weekly and daily seasonality, trends, level shifts, spikes, drops, missing days, volatile
and near-constant series) with planted anomalies. Each series is judged point by point in time
order, as the platform judges runs: the detector learns from the earlier points only, and a point
it flagged stays out of its later training (nobody gives feedback here). The z-score is
Elementary's default: mean ± 3σ of the window INCLUDING the point.

What counts as an anomaly to find (bench/README.md):
- a planted spike or drop (one point);
- the first LEVEL_SHIFT_POINTS points of a new level after a level shift; the points after them are
  the new normal, and flagging them is a false alarm (a detector must adapt).
A point is flagged when the verdict is warn or fail. Only points after the warm-up are scored,
for both methods alike (before it, the detector says `unknown`).

The series were written down before the detector (the generator does not look at it): their
shapes and noise are what metric series look like; a planted anomaly's size is at least 6 noise
standard deviations and at least 25% of the expected value (what an owner would want to hear of),
times a random factor from 1 to 2.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from dq_engine.anomaly import ALGORITHM_VERSION, Point, Settings, judge

SEED = 20261205
START = datetime(2026, 1, 5)  # a Monday
DAILY_DAYS = 120
HOURLY_DAYS = 28
WARMUP_DAYS = {"daily": 35, "hourly": 8}
LEVEL_SHIFT_POINTS = 3
MIN_SIGMAS, MIN_SHARE = 6.0, 0.25
# The detector's training span (what the platform's `anomaly` type reads: its window) and the
# z-score's window (Elementary's default training period: 14 days).
TRAINING_DAYS = {"daily": 84, "hourly": 14}
ZSCORE_DAYS = 14


@dataclass
class Series:
    name: str
    freq: str  # daily | hourly
    times: list[datetime] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    planted: set[int] = field(default_factory=set)  # indexes of the anomalies to find


@dataclass(frozen=True)
class Shape:
    """How a series' expected value and noise move; every part optional."""

    level: float
    noise: float  # coefficient of variation (multiplicative Gaussian noise), or "poisson" below
    weekly: tuple[float, ...] | None = None  # factor per weekday, Monday first
    diurnal: float = 0.0  # amplitude of the hour-of-day cycle (hourly series)
    trend: float = 0.0  # relative change per day
    shift_at: float | None = None  # share of the series where the level moves
    shift_by: float = 0.0  # relative size of the move
    missing: float = 0.0  # share of points absent
    poisson: bool = False  # small counts: Poisson noise instead
    spikes: int = 4  # planted one-point anomalies


OFFICE_WEEK = (1.0, 1.02, 1.0, 0.98, 0.95, 0.7, 0.55)
B2B_WEEK = (1.0, 1.0, 1.0, 1.0, 0.9, 0.15, 0.1)
SHAPES: dict[str, tuple[str, Shape]] = {
    "flat": ("daily", Shape(10_000, 0.03)),
    "weekly": ("daily", Shape(10_000, 0.03, weekly=OFFICE_WEEK)),
    "weekly_b2b": ("daily", Shape(80_000, 0.04, weekly=B2B_WEEK)),
    "weekly_trend_up": ("daily", Shape(20_000, 0.03, weekly=OFFICE_WEEK, trend=0.006)),
    "trend_down": ("daily", Shape(50_000, 0.02, trend=-0.004)),
    "shift_up": ("daily", Shape(10_000, 0.03, weekly=OFFICE_WEEK, shift_at=0.6, shift_by=0.45)),
    "shift_down": ("daily", Shape(30_000, 0.025, shift_at=0.7, shift_by=-0.4)),
    "missing_days": ("daily", Shape(10_000, 0.03, weekly=OFFICE_WEEK, missing=0.12)),
    "volatile": ("daily", Shape(2_000, 0.15)),
    "near_constant": ("daily", Shape(5_000_000, 0.0002)),
    "small_counts": ("daily", Shape(40, 0.0, poisson=True)),
    "hourly_diurnal": ("hourly", Shape(1_000, 0.05, diurnal=0.6, spikes=6)),
    "hourly_diurnal_trend": ("hourly", Shape(3_000, 0.04, diurnal=0.5, trend=0.01, spikes=6)),
    "hourly_volatile": ("hourly", Shape(500, 0.2, spikes=6)),
    "hourly_shift": ("hourly", Shape(1_000, 0.05, diurnal=0.6, shift_at=0.65, shift_by=0.5, spikes=6)),
    "hourly_missing": ("hourly", Shape(1_000, 0.05, diurnal=0.6, missing=0.06, spikes=6)),
}
REPLICAS = 3


def expected_at(shape: Shape, start: datetime, at: datetime, shift_time: datetime | None) -> float:
    days = (at - start).total_seconds() / 86400
    value = shape.level * (1 + shape.trend) ** days
    if shape.weekly:
        value *= shape.weekly[at.weekday()]
    if shape.diurnal:
        # Quiet at night, busy in the afternoon.
        value *= 1 + shape.diurnal * math.sin((at.hour - 9) / 24 * 2 * math.pi)
    if shift_time is not None and at >= shift_time:
        value *= 1 + shape.shift_by
    return value


def noisy(rng: random.Random, shape: Shape, expected: float) -> tuple[float, float]:
    """(a draw, the noise's standard deviation there)."""
    if shape.poisson:
        sd = math.sqrt(expected)
        return max(0.0, round(expected + sd * rng.gauss(0, 1))), sd
    sd = expected * shape.noise
    return max(0.0, expected + sd * rng.gauss(0, 1)), sd


def generate(name: str, freq: str, shape: Shape, rng: random.Random) -> Series:
    step = timedelta(days=1) if freq == "daily" else timedelta(hours=1)
    count = DAILY_DAYS if freq == "daily" else HOURLY_DAYS * 24
    warmup = int(WARMUP_DAYS[freq] * (1 if freq == "daily" else 24))
    series = Series(name, freq)
    shift_index = int(count * shape.shift_at) if shape.shift_at is not None else None
    shift_time = START + step * shift_index if shift_index is not None else None
    present = [i for i in range(count) if i < warmup or rng.random() >= shape.missing]
    # Planted one-point anomalies: after the warm-up, apart from each other and from the shift.
    forbidden = set(range(0, warmup))
    if shift_index is not None:
        forbidden |= set(range(shift_index - 3, shift_index + 12))
    spikes: set[int] = set()
    candidates = [i for i in present if i not in forbidden]
    while len(spikes) < shape.spikes and candidates:
        pick = rng.choice(candidates)
        spikes.add(pick)
        candidates = [i for i in candidates if abs(i - pick) > 3]
    shifted_seen = 0
    for i in present:
        at = START + step * i
        expected = expected_at(shape, START, at, shift_time)
        value, sd = noisy(rng, shape, expected)
        planted = False
        if i in spikes:
            size = max(MIN_SIGMAS * sd, MIN_SHARE * expected) * rng.uniform(1.0, 2.0)
            up = rng.random() < 0.5 or size >= expected  # a drop can take at most all of it
            value = expected + size if up else expected - size
            planted = True
        if shift_time is not None and at >= shift_time:
            shifted_seen += 1
            planted = planted or shifted_seen <= LEVEL_SHIFT_POINTS
        if planted:
            series.planted.add(len(series.values))
        series.times.append(at)
        series.values.append(value)
    return series


def all_series() -> list[Series]:
    rng = random.Random(SEED)
    return [
        generate(f"{name}#{replica}", freq, shape, rng)
        for name, (freq, shape) in SHAPES.items()
        for replica in range(1, REPLICAS + 1)
    ]


# --- the two methods ------------------------------------------------------------------------------
def detector_flags(series: Series, scored: list[int]) -> set[int]:
    """The detector, point by point: a flagged point stays out of later training (it was an anomaly)."""
    settings = Settings()
    span = timedelta(days=TRAINING_DAYS[series.freq])
    flagged_points: list[str] = []  # "above", "below" or "" (not flagged)
    flags: set[int] = set()
    first = 0
    for i, (at, value) in enumerate(zip(series.times, series.values, strict=True)):
        while series.times[first] < at - span:
            first += 1
        history = [Point(series.times[j], series.values[j], id=j, anomaly=flagged_points[j]) for j in range(first, i)]
        judged = judge(history, at, value, settings)
        flagged = judged.verdict in ("warn", "fail")
        flagged_points.append(("above" if value > judged.centre else "below") if flagged else "")
        if flagged:
            flags.add(i)
    return flags & set(scored)


def zscore_flags(series: Series, scored: list[int]) -> set[int]:
    """Mean ± 3 standard deviations of the last ZSCORE_DAYS of values, the point itself included."""
    span = timedelta(days=ZSCORE_DAYS)
    flags = set()
    first = 0
    for i in scored:
        at = series.times[i]
        while series.times[first] <= at - span:
            first += 1
        window = series.values[first : i + 1]
        if len(window) < 3:
            continue
        mean, sd = statistics.fmean(window), statistics.pstdev(window)
        if sd > 0 and abs(series.values[i] - mean) > 3 * sd:
            flags.add(i)
    return flags


def scored_points(series: Series) -> list[int]:
    warmup_end = START + timedelta(days=WARMUP_DAYS[series.freq])
    return [i for i, at in enumerate(series.times) if at >= warmup_end]


def precision_recall(found: int, flagged: int, planted: int) -> tuple[float, float]:
    return (found / flagged if flagged else 1.0), (found / planted if planted else 1.0)


def measure(series_set: list[Series]) -> tuple[list[list], dict[str, tuple[int, int]], int]:
    """(a row per series: name, points, planted, then hits and false alarms of each method;
    {method: (planted points found, points flagged)}; planted points scored)."""
    rows = []
    totals = {"anomaly": [0, 0], "zscore": [0, 0]}
    planted_total = 0
    for series in series_set:
        scored = scored_points(series)
        planted = series.planted & set(scored)
        planted_total += len(planted)
        row = [series.name, len(series.values), len(planted)]
        for method, flags in (("anomaly", detector_flags(series, scored)), ("zscore", zscore_flags(series, scored))):
            found = len(flags & planted)
            totals[method][0] += found
            totals[method][1] += len(flags)
            row += [found, len(flags) - found]
        rows.append(row)
    return rows, {method: (found, flagged) for method, (found, flagged) in totals.items()}, planted_total


def main() -> int:
    started = time.monotonic()
    rows, totals, planted_total = measure(all_series())
    print(
        f"{'series':24} {'points':>6} {'planted':>7} | {'anomaly hit':>11} {'false':>5} | {'zscore hit':>10} {'false':>5}"
    )
    for name, points, planted, a_hit, a_false, z_hit, z_false in rows:
        print(f"{name:24} {points:>6} {planted:>7} | {a_hit:>11} {a_false:>5} | {z_hit:>10} {z_false:>5}")
    figures = {}
    for method, (found, flagged) in totals.items():
        figures[method] = precision_recall(found, flagged, planted_total)
        print(f"{method}: {found} of {planted_total} planted found, {flagged - found} false alarms")
    print(f"{len(rows)} series, detector {ALGORITHM_VERSION}, {time.monotonic() - started:.1f} s")
    (ap, ar), (zp, zr) = figures["anomaly"], figures["zscore"]
    print(f"anomaly_precision={ap:.3f} anomaly_recall={ar:.3f} zscore_precision={zp:.3f} zscore_recall={zr:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
