"""Incidents per check and partition: a partition passing says nothing about the whole table or
another partition, so it closes none of their incidents and sends no recovery; an empty partition
passes nothing at all. Messages go to a real SMTP server and a real HTTP server in this process."""

import pytest

from watching.models import Incident, Notification

pytestmark = pytest.mark.django_db

FAILING, PASSING = 2, 0  # NULL statuses the engine reports
NOWHERE = {"country": "NO-SUCH-COUNTRY"}
NORWAY = {"country": "NO"}


def test_a_passing_empty_partition_batch_leaves_the_whole_tables_incident_open_and_sends_nothing(
    make_check, channels, smtp_server, webhook_server, finish_run
):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})
    (incident,) = Incident.objects.all()
    assert len(smtp_server.wait_for(1)) == 1 and len(webhook_server.wait_for(1)) == 1

    empty = finish_run([check], {check: PASSING}, partition=NOWHERE, rows=0)
    (result,) = empty.results.all()
    assert result.status == "unknown" and result.partition_key == '{"country":"NO-SUCH-COUNTRY"}'
    assert result.verdict.endswith(
        "but partition country=NO-SUCH-COUNTRY has no rows, and passing on no rows is no evidence → unknown"
    )
    incident.refresh_from_db()
    assert incident.status == "open" and incident.resolved_by_result is None
    assert not Notification.objects.filter(run=empty).exists()
    assert len(smtp_server.wait_for(2, timeout=1)) == 1 and len(webhook_server.wait_for(2, timeout=1)) == 1


def test_a_partition_passing_with_rows_does_not_close_the_whole_tables_incident(
    make_check, channels, smtp_server, finish_run
):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})
    norway = finish_run([check], {check: PASSING}, partition=NORWAY, rows=3)
    assert norway.results.get().status == "pass"
    (incident,) = Incident.objects.all()
    assert incident.status == "open" and incident.partition_key == ""
    assert not Notification.objects.filter(run=norway).exists()


def test_each_partition_has_its_own_incident_and_only_its_own_pass_recovers_it(
    make_check, channels, smtp_server, webhook_server, finish_run
):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})  # the whole table
    finish_run([check], {check: FAILING}, partition=NORWAY)
    whole, norway = Incident.objects.order_by("id")
    assert (whole.partition_key, norway.partition_key) == ("", '{"country":"NO"}')
    assert whole.status == norway.status == "open"

    recovered = finish_run([check], {check: PASSING}, partition=NORWAY)
    whole.refresh_from_db()
    norway.refresh_from_db()
    assert whole.status == "open" and norway.status == "resolved"
    assert norway.resolved_by_result.run_id == recovered.pk
    mails = smtp_server.wait_for(3)
    assert len(mails) == 3 and mails[2]["subject"] == f"[DQ] Run {recovered.pk}: 1 recovered"
    assert "✓ statuses present passes again on partition country=NO" in mails[2]["text"]
    (hook,) = [r for r in webhook_server.wait_for(3) if r["json"]["recoveries"]]
    assert hook["json"]["recoveries"][0] == {
        **hook["json"]["recoveries"][0],
        "incident": norway.pk,
        "partition": '{"country":"NO"}',
    }

    table_back = finish_run([check], {check: PASSING})
    whole.refresh_from_db()
    assert whole.status == "resolved" and whole.resolved_by_result.run_id == table_back.pk
    assert "passes again on the whole table" in smtp_server.wait_for(4)[3]["text"]


def test_the_incidents_api_says_which_partition(cast, api_as, make_check, finish_run):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING}, partition=NORWAY)
    (body,) = api_as(cast.author).get("/api/v1/incidents/").json()["results"]
    assert body["partition_key"] == '{"country":"NO"}' and body["partition"] == "partition country=NO"
