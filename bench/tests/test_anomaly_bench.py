"""The anomaly benchmark's claim on a third of its series (the first replica of every shape):
the detector finds the planted anomalies, raises few false alarms, and beats the plain z-score on
both. The truth is what the generator planted; `make bench-anomaly` measures all the series."""

from __future__ import annotations

from datetime import timedelta

from bench.anomaly import DAILY_DAYS, SHAPES, START, all_series, measure, precision_recall


def test_the_detector_finds_planted_anomalies_with_few_false_alarms_and_beats_the_zscore():
    first_replicas = [series for series in all_series() if series.name.endswith("#1")]
    assert len(first_replicas) == 16 and all(series.planted for series in first_replicas)
    _, totals, planted = measure(first_replicas)
    precision, recall = precision_recall(*totals["anomaly"], planted)
    z_precision, z_recall = precision_recall(*totals["zscore"], planted)
    assert precision >= 0.9 and recall >= 0.9
    assert precision > z_precision and recall > z_recall


def test_after_a_level_shift_only_its_first_three_points_are_to_be_found():
    shifted = next(series for series in all_series() if series.name == "shift_up#1")
    shift = START + timedelta(days=int(DAILY_DAYS * SHAPES["shift_up"][1].shift_at))
    new_level = [i for i, at in enumerate(shifted.times) if shift <= at < shift + timedelta(days=12)]
    # The first three points of the new level are anomalies; the rest of it is the new normal
    # (no spike is planted within 12 days of a shift).
    assert [i for i in new_level if i in shifted.planted] == new_level[:3]
    assert len(new_level) == 12 and len(shifted.planted) == 3 + 4
