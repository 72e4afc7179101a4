"""A result is written out by hand (`shown_result`, LatestResultSerializer.to_representation)
rather than walked field by field by DRF: the answer must be exactly what the declared fields
would give, key for key and value for value, for every kind of result."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from executions.models import Result, Run
from executions.serializers import LatestResultSerializer, ResultSerializer, shown_results
from executions.tests.test_dashboard import _check, _result

pytestmark = pytest.mark.django_db


@pytest.fixture
def results(make_datasource):
    source = make_datasource(name="open", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")
    check = _check("emails", source)
    plain = _result(check, "fail", strategy="block")  # no verdict stored: worded from its numbers
    worded = _result(check, "pass", statistic=0.0)
    Result.objects.filter(pk=worded.pk).update(verdict="Pass when actual − expected ≤ 0: 0 − 0 = 0 ≤ 0 → pass")
    errored = _result(check, "error", statistic=None)
    Result.objects.filter(pk=errored.pk).update(message="The table is gone.", comparison_value=None)
    rows = _result(check, "fail", statistic=3)
    Result.objects.filter(pk=rows.pk).update(
        error_row_count=3,
        error_rows_written=3,
        error_rows_path="/var/error-rows/x",
        rows_scanned=120,
        partition_key="dt=2026-12-01",
        details={"checks": [{"name": "email present", "failed_rows": 3, "critical": True}]},
        comparison_source={"type": "fix_value", "source": "fixed"},
        formula_value=3.0,
    )
    unwritten = _result(check, "fail")  # rows found, none stored
    Result.objects.filter(pk=unwritten.pk).update(error_row_count=5, error_rows_written=0, error_rows_path="/x")
    unknown_rule = _result(check, "unknown", strategy="block")
    Result.objects.filter(pk=unknown_rule.pk).update(check_type="no_such_type", threshold=2)
    no_batch = _result(check, "pass")
    Run.objects.filter(pk=no_batch.run_id).update(batches={"definitions": {"b1": {"table": "files/orders"}}})
    no_definitions = _result(check, "pass")
    Run.objects.filter(pk=no_definitions.run_id).update(batches={})
    ids = [plain.pk, worded.pk, errored.pk, rows.pk, unwritten.pk, unknown_rule.pk, no_batch.pk, no_definitions.pk]
    return list(Result.objects.filter(pk__in=ids).select_related("check_version", "rule_check__template", "run"))


def _as_json(data) -> str:
    return JSONRenderer().render(data).decode()


def _field_by_field(serializer_class, result) -> dict:
    """What DRF's ModelSerializer answers from the declared fields, walking them one by one."""
    return serializers.ModelSerializer.to_representation(serializer_class(), result)


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_a_result_is_written_as_its_declared_fields_would_write_it(results, zone):
    with timezone.override(zone):
        for result in results:
            expected = _field_by_field(ResultSerializer, result)
            assert list(ResultSerializer(result).data) == list(expected)
            assert _as_json(ResultSerializer(result).data) == _as_json(expected)


def test_a_page_of_results_read_as_values_is_written_as_the_serializer_writes_them(results):
    ids = [r.pk for r in sorted(results, key=lambda r: -r.pk)]
    by_id = {r.pk: r for r in results}
    assert _as_json(shown_results(ids)) == _as_json([ResultSerializer(by_id[pk]).data for pk in ids])
    assert json.loads(_as_json(shown_results(ids)))[0]["id"] == ids[0]


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_a_newest_result_is_written_as_its_declared_fields_would_write_it(results, zone):
    with timezone.override(zone):
        for result in results:
            expected = _field_by_field(LatestResultSerializer, result)
            assert _as_json(LatestResultSerializer(result).data) == _as_json(expected)
