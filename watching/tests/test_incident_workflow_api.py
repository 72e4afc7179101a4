"""Incidents as a workflow, through the API: search and filters on the server, an order that does
not move an incident when it is handled, a severity, an assignee who can see it, comments, a note
to resolve and the history of every change; one incident per check and partition; a deleted
check closes its incidents and leaves the open failures. Runs are recorded through executions'
own recording, so the incidents are opened by the real alerting."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from watching.models import CheckMute, Incident

pytestmark = pytest.mark.django_db
URL = "/api/v1/incidents/"
FAILING, PASSING = 2, 0
NORWAY = {"country": "NO"}


@pytest.fixture
def warehouse(make_datasource, parquet_dir):
    return make_datasource(name="warehouse", type="file", format="parquet", path=str(parquet_dir))


@pytest.fixture
def desk(make_check, finish_run, warehouse):
    """Three failing checks, each with its open incident: two on lake's orders (one blocking),
    one on warehouse's customers."""
    statuses = make_check("orders statuses present")
    amounts = make_check("order amounts present", src_field="amount", failure_strategy="block")
    emails = make_check(
        "customer emails present", src_datasource_id=warehouse.pk, src_table="customers", src_field="email"
    )
    finish_run([statuses, amounts, emails], {statuses: FAILING, amounts: FAILING, emails: FAILING})
    return {c.name: Incident.objects.get(rule_check=c) for c in (statuses, amounts, emails)}


def names(client, **query) -> list[str]:
    response = client.get(URL, {"page_size": 100, **query})
    assert response.status_code == 200, response.json()
    return sorted(row["check_name"] for row in response.json()["results"])


def test_search_finds_incidents_by_check_name_table_datasource_and_assignee(cast, api_as, desk, analysts_member):
    author = api_as(cast.author)
    amounts = desk["order amounts present"]
    assert author.patch(f"{URL}{amounts.pk}/", {"assignee": "colleague"}, format="json").status_code == 200

    assert names(author, search="EMAILS") == ["customer emails present"]  # the check's name
    assert names(author, search="customers") == ["customer emails present"]  # its table
    assert names(author, search="wareh") == ["customer emails present"]  # its datasource
    assert names(author, search="lake") == ["order amounts present", "orders statuses present"]
    assert names(author, search="colleag") == ["order amounts present"]  # the assignee
    assert names(author, search="orders") == ["order amounts present", "orders statuses present"]
    assert names(author, search="nothing like it") == []
    too_long = author.get(URL, {"search": "x" * 201})
    assert too_long.status_code == 400 and list(too_long.json()["fields"]) == ["search"]


def test_filters_by_severity_assignee_datasource_check_and_status(cast, api_as, desk, analysts_member, warehouse):
    author = api_as(cast.author)
    amounts, emails = desk["order amounts present"], desk["customer emails present"]
    author.patch(f"{URL}{amounts.pk}/", {"assignee": "colleague"}, format="json")
    author.patch(f"{URL}{emails.pk}/", {"assignee": "author"}, format="json")
    author.post(f"{URL}{emails.pk}/acknowledge/")

    # A blocking check that fails opens a critical incident; one that only alerts, a medium one.
    assert names(author, severity="critical") == ["order amounts present"]
    assert names(author, severity="medium,low") == ["customer emails present", "orders statuses present"]
    assert names(author, assignee=str(analysts_member.pk)) == ["order amounts present"]
    assert names(author, assignee="me") == ["customer emails present"]
    assert names(api_as(analysts_member), assignee="me") == ["order amounts present"]
    assert names(author, assignee="none") == ["orders statuses present"]
    assert names(author, datasource=str(warehouse.pk)) == ["customer emails present"]
    assert names(author, check=str(amounts.rule_check_id)) == ["order amounts present"]
    assert names(author, status="acknowledged") == ["customer emails present"]
    assert names(author, status="open", severity="medium") == ["orders statuses present"]

    bad = author.get(URL, {"severity": "urgent", "assignee": "someone", "ordering": "colour", "datasource": "x"})
    assert bad.status_code == 400
    assert sorted(bad.json()["fields"]) == ["assignee", "datasource", "ordering", "severity"]
    assert "critical, high, medium, low" in bad.json()["fields"]["severity"][0]


def test_acknowledging_assigning_or_resolving_an_incident_leaves_every_incident_in_its_place(
    cast, api_as, make_check, finish_run
):
    checks = [make_check(f"check {n}") for n in range(5)]
    for check in checks:  # one run each: five opening times, the last one newest
        finish_run([check], {check: FAILING})
    newest_first = [Incident.objects.get(rule_check=c).pk for c in reversed(checks)]
    author = api_as(cast.author)

    def pages() -> list[list[int]]:
        return [
            [row["id"] for row in author.get(URL, {"page": n, "page_size": 2}).json()["results"]] for n in (1, 2, 3)
        ]

    assert pages() == [newest_first[0:2], newest_first[2:4], newest_first[4:5]]
    first = newest_first[0]
    assert author.post(f"{URL}{first}/acknowledge/").status_code == 200
    assert author.patch(f"{URL}{newest_first[1]}/", {"assignee": "author"}, format="json").status_code == 200
    assert author.post(f"{URL}{newest_first[2]}/resolve/", {"note": "reloaded"}, format="json").status_code == 200
    assert pages() == [newest_first[0:2], newest_first[2:4], newest_first[4:5]]

    # Other orders from the allow-list, each ending with the opened time and the id.
    oldest_first = list(reversed(newest_first))
    assert [r["id"] for r in author.get(URL, {"ordering": "opened_at"}).json()["results"]] == oldest_first
    by_status = [r["id"] for r in author.get(URL, {"ordering": "status"}).json()["results"]]
    open_ones = [pk for pk in newest_first if pk not in (first, newest_first[2])]
    assert by_status == [*open_ones, first, newest_first[2]]


def test_resolving_needs_a_note_and_every_change_is_in_the_history(cast, api_as, desk, analysts_member):
    author = api_as(cast.author)
    incident = desk["orders statuses present"]
    url = f"{URL}{incident.pk}/"
    for body in ({}, {"note": ""}, {"note": "   "}):
        refused = author.post(f"{url}resolve/", body, format="json")
        assert refused.status_code == 400
        assert refused.json()["fields"] == {"note": ["Say what was done about it: the note is kept with the incident."]}
    assert Incident.objects.get(pk=incident.pk).status == "open"

    author.post(f"{url}acknowledge/")
    author.patch(url, {"assignee": "colleague", "note": "knows the loader"}, format="json")
    author.patch(url, {"severity": "high"}, format="json")
    resolved = author.post(f"{url}resolve/", {"note": "Upstream reloaded the table."}, format="json")
    assert resolved.status_code == 200 and resolved.json()["resolution_note"] == "Upstream reloaded the table."

    history = [
        (h["actor"], h["field"], h["from_value"], h["to_value"], h["note"]) for h in author.get(url).json()["history"]
    ]
    run = incident.first_result.run_id
    assert history == [
        (None, "status", "", "open", f"Failed in run {run}."),
        ("author", "status", "open", "acknowledged", ""),
        ("author", "assignee", "", "colleague", "knows the loader"),
        ("author", "severity", "medium", "high", ""),
        ("author", "status", "acknowledged", "resolved", "Upstream reloaded the table."),
    ]


def test_a_severity_follows_the_failure_until_a_person_sets_it(cast, api_as, make_check, finish_run):
    blocking_fail = make_check("blocking fail", failure_strategy="block")
    blocking_error = make_check("blocking error", failure_strategy="block")
    alerting_fail = make_check("alerting fail")
    alerting_error = make_check("alerting error")
    checks = [blocking_fail, blocking_error, alerting_fail, alerting_error]
    outcomes = {blocking_fail: FAILING, blocking_error: "error", alerting_fail: FAILING, alerting_error: "error"}
    finish_run(checks, outcomes)
    severity = {c.name: Incident.objects.get(rule_check=c).severity for c in checks}
    expected = {
        "blocking fail": "critical",
        "blocking error": "high",
        "alerting fail": "medium",
        "alerting error": "low",
    }
    assert severity == expected

    # The alerting check now fails where it erred: medium. The person's "low" is kept through a blocking failure.
    chosen = Incident.objects.get(rule_check=blocking_error)
    assert api_as(cast.author).patch(f"{URL}{chosen.pk}/", {"severity": "low"}, format="json").status_code == 200
    finish_run([alerting_error, blocking_error], {alerting_error: FAILING, blocking_error: FAILING})
    assert Incident.objects.get(rule_check=alerting_error).severity == "medium"
    assert Incident.objects.get(rule_check=blocking_error).severity == "low"


def test_an_incident_is_assigned_only_to_someone_who_can_see_it_by_someone_who_may_handle_it(
    cast, api_as, desk, analysts_member, lake
):
    lake.allowed_groups.set([cast.analysts])  # the outsider no longer sees lake's incidents
    incident = desk["orders statuses present"]
    url = f"{URL}{incident.pk}/"
    author = api_as(cast.author)

    listed = author.get(f"{url}assignees/").json()
    assert [u["username"] for u in listed] == ["admin", "author", "colleague"]
    assert [u["username"] for u in author.get(f"{url}assignees/", {"search": "col"}).json()] == ["colleague"]
    not_seeing = author.patch(url, {"assignee": "outsider"}, format="json")
    assert not_seeing.status_code == 400
    assert not_seeing.json()["fields"]["assignee"] == ["outsider does not exist or may not see this incident."]
    both_bad = author.patch(url, {"assignee": "nobody", "severity": "urgent"}, format="json")
    assert sorted(both_bad.json()["fields"]) == ["assignee", "severity"]

    # The colleague sees it but does not answer for the lake: no assigning, but a comment.
    colleague = api_as(analysts_member)
    refused = colleague.patch(url, {"assignee": "colleague"}, format="json")
    assert refused.status_code == 403 and "owners of the check's datasource" in refused.json()["message"]
    assert colleague.get(url).json()["can_handle"] is False and author.get(url).json()["can_handle"] is True
    said = colleague.post(f"{url}comments/", {"text": "  The loader ran twice.  "}, format="json")
    assert said.status_code == 201 and said.json()["author"] == "colleague"
    blank = colleague.post(f"{url}comments/", {"text": " "}, format="json")
    assert blank.status_code == 400 and blank.json()["fields"] == {"text": ["Write the comment first."]}
    assert [(c["author"], c["text"]) for c in author.get(url).json()["comments"]] == [
        ("colleague", "The loader ran twice.")
    ]

    # The outsider cannot see it: nothing to assign, comment on or resolve.
    outsider = api_as(cast.outsider)
    assert outsider.patch(url, {"assignee": "outsider"}, format="json").status_code == 404
    assert outsider.post(f"{url}comments/", {"text": "hi"}, format="json").status_code == 404
    assert outsider.post(f"{url}resolve/", {"note": "mine"}, format="json").status_code == 404
    assert outsider.get(f"{url}assignees/").status_code == 404

    assert author.patch(url, {"assignee": "colleague"}, format="json").json()["assignee"] == "colleague"
    assert author.patch(url, {"assignee": None}, format="json").json()["assignee"] is None


def test_two_failures_of_one_check_and_partition_make_one_incident_and_another_partition_makes_another(
    make_check, finish_run
):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING}, partition=NORWAY)
    finish_run([check], {check: "error"}, partition=NORWAY)
    (norway,) = Incident.objects.all()
    assert (norway.partition_key, norway.occurrences, norway.status) == ('{"country":"NO"}', 2, "open")

    finish_run([check], {check: FAILING})  # the whole table: another scope
    finish_run([check], {check: FAILING}, partition={"country": "SE"})
    scopes = sorted(Incident.objects.values_list("partition_key", "occurrences"))
    assert scopes == [("", 1), ('{"country":"NO"}', 2), ('{"country":"SE"}', 1)]

    # The database itself refuses a second unresolved incident of a check and partition.
    with pytest.raises(IntegrityError), transaction.atomic():
        Incident.objects.create(
            rule_check=check,
            partition_key=norway.partition_key,
            outcome="fail",
            first_result=norway.first_result,
            last_result=norway.last_result,
        )


def test_deleting_a_check_resolves_its_incidents_and_takes_it_out_of_the_open_failures(
    cast, api_as, make_check, finish_run
):
    gone, kept, fine = make_check("gone"), make_check("kept"), make_check("fine")
    finish_run([gone, kept, fine], {gone: FAILING, kept: FAILING, fine: PASSING})
    finish_run([gone], {gone: FAILING}, partition=NORWAY)
    author = api_as(cast.author)
    summary = author.get("/api/v1/results/summary/").json()
    # gone and kept fail (gone's newest result is its Norway one), fine passes.
    assert (summary["open_failures"], summary["checks"]) == (2, 3)

    assert author.delete(f"/api/v1/checks/{gone.pk}/").status_code == 204

    closed = Incident.objects.filter(rule_check=gone).order_by("pk")
    assert [(i.status, i.resolution_note, i.resolved_by) for i in closed] == [("resolved", "Check deleted.", None)] * 2
    last = api_as(cast.admin).get(f"{URL}{closed[0].pk}/").json()["history"][-1]
    assert (last["actor"], last["from_value"], last["to_value"], last["note"]) == (
        "author",
        "open",
        "resolved",
        "Check deleted.",
    )
    assert Incident.objects.get(rule_check=kept).status == "open"
    summary = author.get("/api/v1/results/summary/").json()
    assert (summary["open_failures"], summary["checks"]) == (1, 2)
    assert [f["check_name"] for f in summary["failing_checks"]] == ["kept"]
    assert names(author, status="open,acknowledged") == ["kept"]


def test_a_run_says_which_of_its_failing_checks_are_muted_by_whom_until_when_and_why(
    cast, api_as, make_check, finish_run, lake
):
    muted, loud, passing = make_check("muted"), make_check("loud"), make_check("passing")
    author = api_as(cast.author)
    until = timezone.now() + timedelta(hours=5)
    for check in (muted, passing):
        mute = {"until": until.isoformat(), "reason": "the loader is being rebuilt"}
        assert author.post(f"/api/v1/checks/{check.pk}/mute/", mute, format="json").status_code == 200
    run = finish_run([muted, loud, passing], {muted: FAILING, loud: FAILING, passing: PASSING})

    (said,) = author.get("/api/v1/muted-checks/", {"run": run.pk}).json()
    assert (said["check"], said["check_name"], said["muted_by"], said["reason"]) == (
        muted.pk,
        "muted",
        "author",
        "the loader is being rebuilt",
    )
    assert said["until"] == CheckMute.objects.get(rule_check=muted).until.isoformat()
    row = next(r for r in author.get(URL).json()["results"] if r["check_name"] == "muted")
    assert (row["muted_by"], row["mute_reason"]) == ("author", "the loader is being rebuilt")

    CheckMute.objects.filter(rule_check=muted).update(until=timezone.now() - timedelta(minutes=1))
    assert author.get("/api/v1/muted-checks/", {"run": run.pk}).json() == []
    assert author.get("/api/v1/muted-checks/").status_code == 400
    lake.allowed_groups.set([cast.analysts])
    assert api_as(cast.outsider).get("/api/v1/muted-checks/", {"run": run.pk}).status_code == 404


def test_the_admin_shows_an_incidents_comments_and_history(cast, api_as, desk, django_user_model, client):
    incident = desk["orders statuses present"]
    author = api_as(cast.author)
    author.post(f"{URL}{incident.pk}/comments/", {"text": "Seen it before."}, format="json")
    author.post(f"{URL}{incident.pk}/resolve/", {"note": "Reloaded by hand."}, format="json")
    root = django_user_model.objects.create_superuser("root", password="root-pass-123")
    client.force_login(root)
    page = client.get(f"/admin/watching/incident/{incident.pk}/change/")
    assert page.status_code == 200
    assert "Seen it before." in page.content.decode() and "Reloaded by hand." in page.content.decode()
