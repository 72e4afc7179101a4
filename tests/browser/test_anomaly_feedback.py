"""On the results page, a result judged by anomaly detection takes feedback in the browser: the
check's owner marks an anomaly expected, and the check's false-alarm rate moves with it. No
worker here: the result is recorded straight into the database, with the evidence a run stores."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from executions.models import Result
from executions.tests.test_dashboard import _check, _result

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def shop(make_datasource):
    return make_datasource(name="shop", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")


def test_the_owner_marks_an_anomaly_expected_and_sees_the_false_alarm_rate(
    live_server, page, shots, console_errors, cast, shop, built_app
):
    check = _check("orders per day", shop)
    check.owner = cast.author
    check.save(update_fields=["owner"])
    anomaly = _result(check, "fail", statistic=10)
    Result.objects.filter(pk=anomaly.pk).update(
        comparison_type="anomaly",
        comparison_source={
            "source": "anomaly",
            "verdict": "fail",
            "severity": "fail",
            "side": "below",
            "warn_range": [36.5, 43.5],
            "fail_range": [35.0, 45.0],
            "expected_range": [36.5, 43.5],
        },
        verdict="10 is below the expected range [36.5, 43.5] (fail beyond [35, 45]) → fail",
    )
    sign_in(page, live_server.url, "author", "author-pass-123", path="/results")

    feedback = page.get_by_test_id("anomaly-feedback")
    expect(feedback).to_have_count(1)
    expect(page.get_by_test_id("false-alarm-rate")).to_have_text("False alarms: 0% (0 of 1 anomalies)")
    page.get_by_test_id("feedback-expected").click()
    expect(page.get_by_test_id("false-alarm-rate")).to_have_text("False alarms: 100% (1 of 1 anomalies)")
    expect(page.get_by_text("Marked expected.")).to_be_visible()
    assert Result.objects.get(pk=anomaly.pk).feedback.verdict == "expected"
    shots("results-anomaly-feedback")
    assert console_errors == []
