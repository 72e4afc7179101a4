"""Anomaly detection on a check's statistic over time: pure Python, no Django.

`judge(history, at, value, settings)` says whether `value`, measured at business time `at`, is an
anomaly given the earlier points of the same series, and why: the expected range (warn and fail
bounds), the points it learned from, the points it left out with the reason, the algorithm version.

How (ALGORITHM_VERSION names this exact procedure; change it when the procedure changes):
1. Training points: only points EARLIER than `at` (never the judged point), with a value, that the
   caller did not exclude (a backfill, a rerun: its reason is kept), not marked `incident` by a
   person, and not anomalies themselves, unless a person marked them `expected` (a false alarm).
   Adapting to a new level: when LEVEL_SHIFT_RUN consecutive anomalies lie on the same side,
   the level moved; from there on those points are the new normal and the level is learned only
   from them and later points (seasonal shape and spread still come from the whole history). A
   person can stop that by marking them `incident`.
2. Too few training points (`min_history`) → verdict `unknown`, with a message.
3. Scale: the logarithm when every measured point is positive (seasonal factors, trends and noise
   of counts are relative), else the values themselves.
4. Seasonality (`seasonality: auto`): for a series measured several times a day, by hour of day
   once it spans 3 days; otherwise by day of week once it spans 3 weeks; none for shorter series.
   Offsets per bucket are medians of each point's distance from the median of the whole cycle
   around it, from every measured point (flagged ones too: a median shrugs off a one-off spike,
   and a weekly dip flagged before three weeks of history must still be learnable); used only
   when they explain the series (judged on points left out of their own bucket's median).
5. Level and trend from the most recent points (two cycles) of the deseasonalised series: the
   level a median, the trend a median of slopes, kept only when it stands out from the noise.
6. Spread, each side of the centre on its own: a robust standard deviation (the MAD's, then a
   root mean square within 3 of it) of each training point's distance from the median of its
   neighbours, widened by the errors of the level and seasonal estimates (and of the trend, over
   the distance it is carried), never below SCALE_FLOOR of the centre, so a near-constant series
   does not alarm on a tiny move.
7. Bands: warn = centre ± k_warn × spread, fail = centre ± k_fail × spread (k widened for short
   histories as a Student t quantile is), each at least `min_change_pct` % of the centre (fail
   scaled by k_fail / k_warn), so a change smaller than that is never an anomaly; `direction` up
   or down keeps only that side's bound.
Verdict: `pass` inside the warn band (bounds included), `warn` between the bands, `fail` outside
the fail band.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from dq_engine.words import gettext_noop, say

ALGORITHM_VERSION = "anomaly-v1"
DIRECTIONS = ("both", "up", "down")
SEASONALITIES = ("auto", "none")

# The messages (dq_engine/words.py: the platform translates them).
CHOOSE = gettext_noop("Choose %(names)s.")
K_WARN_RANGE = gettext_noop("A number above 0, at most 100.")
K_FAIL_RANGE = gettext_noop("At least the warn band's k, at most 100.")
MIN_HISTORY_RANGE = gettext_noop("A whole number from 2 to 10000.")
MIN_CHANGE_RANGE = gettext_noop("A percentage from 0 to 1000.")
NOTHING_MEASURED = gettext_noop("No statistic was measured.")
TOO_LITTLE_HISTORY = gettext_noop(
    "Too little history to judge: %(count)s of the %(needed)s earlier normal points needed."
)
_JUDGED = {
    "below": gettext_noop(
        "%(value)s is below the expected range %(warn)s (fail beyond %(fail)s); centre %(centre)s, "
        "seasonality %(seasonality)s, learned from %(count)s earlier points"
    ),
    "above": gettext_noop(
        "%(value)s is above the expected range %(warn)s (fail beyond %(fail)s); centre %(centre)s, "
        "seasonality %(seasonality)s, learned from %(count)s earlier points"
    ),
    "within": gettext_noop(
        "%(value)s is within the expected range %(warn)s (fail beyond %(fail)s); centre %(centre)s, "
        "seasonality %(seasonality)s, learned from %(count)s earlier points"
    ),
}
VERDICTS = ("pass", "warn", "fail", "unknown")

MAD_TO_SIGMA = 1.4826  # the MAD of a normal distribution is 0.6745 σ
MEAN_AD_TO_SIGMA = 1.2533  # its mean absolute deviation is 0.7979 σ
TRIM, TRIMMED_SD = 3.0, 0.9866  # a normal cut at ±3σ keeps a standard deviation of 0.9866 σ
SCALE_FLOOR = 0.005  # the spread is at least 0.5 % of the centre
LEVEL_SHIFT_RUN = 3
SEASONAL_GAIN = 0.85
SEASON_CYCLES = 3  # a bucket needs this many points, the series this many cycles
SUB_DAILY = timedelta(hours=6)  # a median gap below this: an hourly-ish series
MEDIAN_VARIANCE = math.pi / 2  # the variance of a median of n normal values: (π/2)·σ²/n
TREND_SIGNIFICANCE = 2.0  # a slope is kept when it is this many standard errors from 0


@dataclass(frozen=True)
class Settings:
    """The knobs (the platform's form inputs `anomaly_<name>`)."""

    direction: str = "both"
    k_warn: float = 3.5
    k_fail: float = 5.0
    min_history: int = 14
    min_change_pct: float = 2.0
    seasonality: str = "auto"

    def problems(self) -> dict[str, str]:
        found = {}
        if self.direction not in DIRECTIONS:
            found["direction"] = say(CHOOSE, names=", ".join(DIRECTIONS))
        if self.seasonality not in SEASONALITIES:
            found["seasonality"] = say(CHOOSE, names=", ".join(SEASONALITIES))
        if not 0 < self.k_warn <= 100:
            found["k_warn"] = say(K_WARN_RANGE)
        if not self.k_warn <= self.k_fail <= 100:
            found["k_fail"] = say(K_FAIL_RANGE)
        if not 2 <= self.min_history <= 10_000:
            found["min_history"] = say(MIN_HISTORY_RANGE)
        if not 0 <= self.min_change_pct <= 1000:
            found["min_change_pct"] = say(MIN_CHANGE_RANGE)
        return found


@dataclass(frozen=True)
class Point:
    """One earlier measurement. `anomaly`: it was judged an anomaly (warn or fail), and on which
    side: "above" or "below" (any other true value: side unknown); `feedback`:
    what a person said of it (`expected` or `incident`); `excluded`: the caller's reason to
    leave it out of training (a backfill, a rerun, a non-business day), empty when none."""

    time: datetime
    value: float | None
    id: Any = None
    anomaly: str = ""  # "above" or "below" its expected range when it was judged an anomaly
    feedback: str = ""
    excluded: str = ""


@dataclass
class Judgement:
    verdict: str
    value: float | None
    message: str
    centre: float | None = None
    spread: tuple[float, float] | None = None  # below and above the centre, on `scale`
    scale: str = "linear"
    warn: tuple[float | None, float | None] | None = None
    fail: tuple[float | None, float | None] | None = None
    seasonality: str = "none"
    trend_per_day: float | None = None
    level_shift_at: datetime | None = None
    used: list[Point] = field(default_factory=list)
    excluded: list[tuple[Point, str]] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    version: str = ALGORITHM_VERSION

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: what the platform stores with a result."""
        return {
            "algorithm_version": self.version,
            "verdict": self.verdict,
            "message": self.message,
            "centre": self.centre,
            "spread": list(self.spread) if self.spread else None,
            "scale": self.scale,
            "warn_range": list(self.warn) if self.warn else None,
            "fail_range": list(self.fail) if self.fail else None,
            "seasonality": self.seasonality,
            "trend_per_day": self.trend_per_day,
            "level_shift_at": self.level_shift_at.isoformat() if self.level_shift_at else None,
            "settings": self.settings.__dict__.copy(),
            "training": [_point_entry(p) for p in self.used],
            "excluded": [{**_point_entry(p), "reason": why} for p, why in self.excluded],
        }


def _point_entry(point: Point) -> dict[str, Any]:
    entry = {"id": point.id, "time": point.time.isoformat(), "value": point.value}
    if point.feedback:
        entry["feedback"] = point.feedback
    return entry


def judge(history: list[Point], at: datetime, value: float | None, settings: Settings | None = None) -> Judgement:
    settings = settings or Settings()
    used, excluded, shift_at, measured = training(history, at)
    base = {"used": used, "excluded": excluded, "settings": settings, "level_shift_at": shift_at}
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return Judgement("unknown", None, say(NOTHING_MEASURED), **base)
    if len(used) < settings.min_history:
        return Judgement(
            "unknown",
            value,
            say(TOO_LITTLE_HISTORY, count=len(used), needed=settings.min_history),
            **base,
        )
    log = all(p.value > 0 for p in measured)  # relative changes: a multiplicative series
    model = _fit(used, measured, at, settings, shift_at, math.log if log else float)
    centre_t, spread_t = model["centre"], model["spread"]
    back = math.exp if log else float
    centre = back(centre_t)
    floor = abs(centre) * settings.min_change_pct / 100
    bands = []
    for k, least in ((settings.k_warn, floor), (settings.k_fail, floor * settings.k_fail / settings.k_warn)):
        # Short histories estimate the spread roughly: k widens as a Student t quantile does
        # (Cornish–Fisher's first term), from +20 % at 14 residuals to +2 % at 300.
        k = k + (k**3 + k) / (4 * max(model["dof"], 1))
        low, high = back(centre_t - k * spread_t[0]), back(centre_t + k * spread_t[1])
        bands.append(_band(min(low, centre - least), max(high, centre + least), settings.direction))
    warn, fail = bands
    verdict = "fail" if _outside(value, fail) else "warn" if _outside(value, warn) else "pass"
    message = say(
        _JUDGED[side_of(value, warn)],
        value=_num(value),
        warn=_span(warn),
        fail=_span(fail),
        centre=_num(centre),
        seasonality=model["seasonality"].replace("_", " "),
        count=len(used),
    )
    return Judgement(
        verdict,
        value,
        message,
        centre=centre,
        spread=spread_t,
        scale="log" if log else "linear",
        warn=warn,
        fail=fail,
        seasonality=model["seasonality"],
        trend_per_day=model["trend"],
        **base,
    )


# --- 1. training points ---------------------------------------------------------------------------
def training(
    history: list[Point], at: datetime
) -> tuple[list[Point], list[tuple[Point, str]], datetime | None, list[Point]]:
    """(points learned from, oldest first; points left out with why; when a new level began;
    every measured point of a normal run, anomalies included: what the seasonal shape is
    learned from)."""
    excluded: list[tuple[Point, str]] = []
    candidates: list[Point] = []
    for point in sorted(history, key=lambda p: p.time):
        why = _why_left_out(point, at)
        if why:
            excluded.append((point, why))
        else:
            candidates.append(point)
    shift = _level_shift(candidates)
    used = []
    for index, point in enumerate(candidates):
        if point.anomaly and point.feedback != "expected" and (shift is None or index < shift):
            excluded.append((point, "anomaly"))
        else:
            used.append(point)
    return used, excluded, candidates[shift].time if shift is not None else None, candidates


def _why_left_out(point: Point, at: datetime) -> str:
    if point.time >= at:
        return "not earlier than the judged point"
    if point.excluded:
        return point.excluded
    if point.value is None or not math.isfinite(point.value):
        return "no statistic"
    if point.feedback == "incident":
        return "marked incident"
    return ""


def _level_shift(candidates: list[Point]) -> int | None:
    """Index of the first point of the newest run of LEVEL_SHIFT_RUN or more consecutive unmarked
    anomalies on the same side of the median of the normal points before them; None when none."""
    newest = None
    index = 0
    while index < len(candidates):
        if not _unmarked_anomaly(candidates[index]):
            index += 1
            continue
        end = index
        while end < len(candidates) and _unmarked_anomaly(candidates[end]):
            end += 1
        if end - index >= LEVEL_SHIFT_RUN:
            sides = {p.anomaly for p in candidates[index:end]}
            if sides - {"above", "below"}:  # sides not given: against the level before the run
                before = [p.value for p in candidates[:index] if not _unmarked_anomaly(p)]
                level = statistics.median(before[-14:]) if before else None
                sides = {p.value > level for p in candidates[index:end]} if level is not None else {1, 2}
            if len(sides) == 1:
                newest = index
        index = end
    return newest


def _unmarked_anomaly(point: Point) -> bool:
    return point.anomaly and point.feedback != "expected"


# --- 3–5. the model ----------------------------------------------------------------------------------
def _fit(
    used: list[Point], measured: list[Point], at: datetime, settings: Settings, shift_at: datetime | None, scale
) -> dict[str, Any]:
    """Centre and spread at `at` on the scale `scale` (log for positive series, where seasonal
    factors, trends and noise are relative, else the values themselves)."""
    times = [p.time for p in used]
    values = [scale(p.value) for p in used]
    hourly = _median_gap(times) < SUB_DAILY
    cycle = 24 if hourly else 7  # points per cycle
    bucket_of = (lambda t: t.hour) if hourly else (lambda t: t.weekday())
    offsets, seasonality, per_bucket = {}, "none", 0
    if settings.seasonality == "auto":
        offsets, per_bucket = _seasonal_offsets(measured, at, bucket_of, hourly, scale)
        seasonality = ("hour_of_day" if hourly else "day_of_week") if offsets else "none"
    deseasonalised = [v - offsets.get(bucket_of(t), 0.0) for t, v in zip(times, values, strict=True)]
    local = _local_residuals(deseasonalised, cycle // 2)[-cycle * 12 :]
    noise = _sigma(local)
    recent = [i for i, t in enumerate(times) if shift_at is None or t >= shift_at][-cycle * 2 :]
    level, trend, trend_error = _level_and_trend([times[i] for i in recent], [deseasonalised[i] for i in recent], noise)
    days_ahead = (at - times[recent[-1]]).total_seconds() / 86400
    centre = level + (trend or 0.0) * days_ahead + offsets.get(bucket_of(at), 0.0)
    # The error of a prediction: the noise, and the errors of the level (a median of the recent
    # points) and of the seasonal offset (a median of its bucket) it is built from; a trend's
    # error grows with the distance it is carried.
    # Each side's noise on its own: skewed noise (a volatile count on the log scale) gets the
    # wider side where it is wider.
    estimation = noise * math.sqrt(MEDIAN_VARIANCE / len(recent) + (MEDIAN_VARIANCE / per_bucket if offsets else 0))
    if trend:
        estimation = math.hypot(estimation, trend_error * days_ahead)
    floor = max(SCALE_FLOOR if scale is math.log else SCALE_FLOOR * abs(centre), 1e-9)
    below, above = _side_sigmas(local)
    spread = (max(math.hypot(below, estimation), floor), max(math.hypot(above, estimation), floor))
    return {"centre": centre, "spread": spread, "seasonality": seasonality, "trend": trend, "dof": len(local) // 2}


def _seasonal_offsets(
    measured: list[Point], at: datetime, bucket_of, hourly: bool, scale
) -> tuple[dict[int, float], int]:
    """Offset of each bucket (hour of day, day of week) from the local level, or {} when the
    series is too short or the offsets do not explain it; and how many points the judged
    point's bucket has. Learned from every measured point of
    normal runs, anomalies included: the median per bucket shrugs off a one-off spike, and a
    weekly dip that was flagged before three weeks of history existed must still be learnable."""
    times = [p.time for p in measured]
    values = [scale(p.value) for p in measured]
    cycle_span = timedelta(days=1) if hourly else timedelta(days=7)
    if len(times) < 2 or times[-1] - times[0] < cycle_span * SEASON_CYCLES:
        return {}, 0
    residuals = _cycle_residuals(times, values, cycle_span)
    buckets: dict[int, list[float]] = {}
    for t, r in residuals:
        buckets.setdefault(bucket_of(t), []).append(r)
    if len(buckets.get(bucket_of(at), ())) < SEASON_CYCLES:
        return {}, 0
    offsets = {b: statistics.median(rs) for b, rs in buckets.items() if len(rs) >= SEASON_CYCLES}
    # Judged as it will be used, on points it did not learn from: each residual against the
    # median of the OTHER points of its bucket (with three points a bucket, its own median
    # would fit one of them exactly and any noise would look seasonal).
    plain, seasonal = [], []
    for bucket, rs in buckets.items():
        if bucket not in offsets:
            continue
        for i, r in enumerate(rs):
            plain.append(r)
            seasonal.append(r - statistics.median(rs[:i] + rs[i + 1 :]))
    # Mean absolute deviations: a robust spread would look at the ordinary days alone and not
    # see the weekend at all.
    explains = _mean_deviation(seasonal) <= SEASONAL_GAIN * _mean_deviation(plain)
    return (offsets, len(buckets[bucket_of(at)])) if explains else ({}, 0)


def _side_sigmas(residuals: list[float]) -> tuple[float, float]:
    """(σ below the median, σ above it): each side's deviations as a half-normal's, robustly."""
    centre = statistics.median(residuals)
    below = [centre - r for r in residuals if r < centre]
    above = [r - centre for r in residuals if r > centre]
    whole = _sigma(residuals)
    return _half_sigma(below, whole), _half_sigma(above, whole)


def _half_sigma(deviations: list[float], whole: float) -> float:
    """Like `_sigma`, for the distances on one side (a half-normal's median is 0.6745 σ, too)."""
    if len(deviations) < 5:
        return whole
    rough = MAD_TO_SIGMA * statistics.median(deviations)
    if rough == 0:
        return whole
    kept = [d * d for d in deviations if d <= TRIM * rough]
    return math.sqrt(statistics.fmean(kept)) / TRIMMED_SD


def _mean_deviation(residuals: list[float]) -> float:
    centre = statistics.median(residuals)
    return statistics.fmean(abs(r - centre) for r in residuals)


def _cycle_residuals(times: list[datetime], values: list[float], cycle_span: timedelta) -> list[tuple[datetime, float]]:
    """(time, value minus the median of the whole cycle centred on it) for the points with a whole
    cycle around them: every bucket weighs alike in that median, so the level it gives is not
    pulled by the point's own bucket."""
    half = cycle_span / 2
    slack = cycle_span / 48 if cycle_span <= timedelta(days=1) else timedelta(hours=12)
    out = []
    low = high = 0
    for t, value in zip(times, values, strict=True):
        if t - times[0] < half - slack or times[-1] - t < half - slack:
            continue
        while times[low] < t - half:
            low += 1
        while high < len(times) and times[high] < t + half:
            high += 1
        out.append((t, value - statistics.median(values[low:high])))
    return out


def _median_gap(times: list[datetime]) -> timedelta:
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    return statistics.median(gaps) if gaps else timedelta(days=1)


def _local_residuals(values: list[float], half: int) -> list[float]:
    """Each value minus the median of its neighbours within `half` points on either side (itself
    left out): what is left when the local level, trend and shifts are taken away."""
    out = []
    for i, value in enumerate(values):
        neighbours = values[max(0, i - half) : i] + values[i + 1 : i + half + 1]
        out.append(value - statistics.median(neighbours) if neighbours else 0.0)
    return out


def _sigma(residuals: list[float]) -> float:
    """A robust standard deviation: the MAD's, then (the MAD alone wanders ±20 % over 50 points)
    the root mean square of the residuals within 3 of those, corrected for the cut."""
    if not residuals:
        return 0.0
    centre = statistics.median(residuals)
    deviations = [abs(r - centre) for r in residuals]
    mad = statistics.median(deviations)
    if mad == 0:
        return MEAN_AD_TO_SIGMA * statistics.fmean(deviations)
    rough = MAD_TO_SIGMA * mad
    kept = [d * d for d in deviations if d <= TRIM * rough]
    return math.sqrt(statistics.fmean(kept)) / TRIMMED_SD


def _level_and_trend(times: list[datetime], values: list[float], noise: float) -> tuple[float, float | None, float]:
    """(level at the newest time, slope per day or None when no trend stands out, slope's error)."""
    newest = times[-1]
    ages = [(newest - t).total_seconds() / 86400 for t in times]
    slope, error = None, 0.0
    if len(values) >= 8:  # fewer (just after a level shift): a level only
        lag = len(values) // 2
        slopes = [
            (values[i] - values[i - lag]) / (ages[i - lag] - ages[i])
            for i in range(lag, len(values))
            if ages[i - lag] > ages[i]
        ]
        if slopes:
            span = statistics.fmean(ages[i - lag] - ages[i] for i in range(lag, len(values)))
            # A pair's slope has the error √2·noise/span; the median of n of them about 1.25/√n of that.
            error = 1.25 * math.sqrt(2) * noise / span / math.sqrt(len(slopes)) if span else math.inf
            candidate = statistics.median(slopes)
            if abs(candidate) > TREND_SIGNIFICANCE * error:
                slope = candidate
    level = statistics.median(v + (slope or 0.0) * age for v, age in zip(values, ages, strict=True))
    return level, slope, error


def _band(low: float, high: float, direction: str) -> tuple[float | None, float | None]:
    return (None if direction == "up" else low, None if direction == "down" else high)


def _outside(value: float, band: tuple[float | None, float | None]) -> bool:
    low, high = band
    return (low is not None and value < low) or (high is not None and value > high)


def side_of(value: float, band: tuple[float | None, float | None]) -> str:
    """Where `value` lies against a band: "below", "above" or "within"."""
    low, high = band
    if low is not None and value < low:
        return "below"
    if high is not None and value > high:
        return "above"
    return "within"


def _span(band: tuple[float | None, float | None]) -> str:
    low, high = band
    return f"[{'−∞' if low is None else _num(low)}, {'∞' if high is None else _num(high)}]"


def _num(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.2f}" if abs(value) >= 1 else f"{value:.4g}"
