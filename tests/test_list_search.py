"""`?search=` and `?ids=` on the lists the browser's pickers and search boxes read (dq_platform/search.py):
the database finds a row wherever it sits in a long list, only among the rows the caller may see."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from tests.support.many_checks import bulk_checks, bulk_runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def finance(db):
    from django.contrib.auth.models import Group

    return Group.objects.create(name="finance")


@pytest.fixture
def shop(make_datasource):
    return make_datasource(name="shop", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")


@pytest.fixture
def ledger(make_datasource, finance):
    """A datasource only the finance group reads: the author (an analyst) must never find what reads it."""
    return make_datasource(
        name="ledger",
        type="postgresql",
        host="127.0.0.1",
        port=5432,
        database="y",
        username="u",
        allowed_groups=[finance],
    )


@pytest.fixture
def many_checks(shop, ledger):
    """150 checks on the open datasource named `check 000` … `check 149`, one more sorting right
    after `check 120` (the 122nd by name: page 3 at 50 a page), and its namesake on the ledger."""
    plain = bulk_checks([f"check {i:03d}" for i in range(150)], shop)
    (needle,) = bulk_checks(["check 120 payments"], shop)
    (hidden,) = bulk_checks(["check 120 payments (ledger)"], ledger)
    return plain, needle, hidden


def _names(body: dict) -> list[str]:
    return [row["name"] for row in body["results"]]


def test_a_check_on_page_three_of_the_list_is_found_by_part_of_its_name(cast, api_as, many_checks):
    _, needle, _ = many_checks
    client = api_as(cast.author)
    pages = [_names(client.get("/api/v1/checks/", {"page": n}).json()) for n in (1, 2, 3)]
    assert pages[2][21] == "check 120 payments"  # 50 + 50 + 22nd: where a picker of the first page never looks
    assert all("check 120 payments" not in page for page in pages[:2])

    found = client.get("/api/v1/checks/", {"search": "PAYMENTS"}).json()
    assert found["count"] == 1 and [row["id"] for row in found["results"]] == [needle.pk]


def test_a_member_never_finds_another_teams_check_an_administrator_does(cast, api_as, many_checks):
    _, needle, hidden = many_checks
    assert _names(api_as(cast.author).get("/api/v1/checks/", {"search": "payments"}).json()) == ["check 120 payments"]
    assert _names(api_as(cast.admin).get("/api/v1/checks/", {"search": "payments"}).json()) == [
        "check 120 payments",
        "check 120 payments (ledger)",
    ]
    by_id = api_as(cast.author).get("/api/v1/checks/", {"ids": f"{needle.pk},{hidden.pk}"}).json()
    assert [row["id"] for row in by_id["results"]] == [needle.pk]


def test_checks_asked_by_id_come_whatever_page_they_are_on(cast, api_as, many_checks):
    plain, needle, _ = many_checks
    wanted = [plain[0].pk, plain[149].pk, needle.pk]
    body = api_as(cast.author).get("/api/v1/checks/", {"ids": ",".join(map(str, wanted))}).json()
    assert body["count"] == 3
    assert sorted(row["id"] for row in body["results"]) == sorted(wanted)


@pytest.mark.parametrize("ids", ["1,x", "0", "-3", "1;2"])
def test_a_malformed_id_list_answers_400_naming_ids(cast, api_as, ids):
    for url in ("/api/v1/checks/", "/api/v1/datasources/"):
        response = api_as(cast.author).get(url, {"ids": ids})
        assert response.status_code == 400
        assert list(response.json()["fields"]) == ["ids"]


@pytest.mark.parametrize(
    "url", ["/api/v1/checks/", "/api/v1/datasources/", "/api/v1/runs/", "/api/v1/batches/", "/api/v1/schedules/"]
)
def test_a_search_longer_than_200_characters_answers_400_naming_search(cast, api_as, url):
    response = api_as(cast.author).get(url, {"search": "x" * 201})
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["search"]


def test_more_ids_than_a_page_holds_answer_400(cast, api_as):
    response = api_as(cast.author).get("/api/v1/checks/", {"ids": ",".join(str(i) for i in range(1, 502))})
    assert response.status_code == 400 and "At most 500 ids" in response.json()["fields"]["ids"][0]


def test_datasources_are_searched_by_name_and_asked_by_id_among_those_the_member_may_use(
    cast, api_as, make_datasource, shop, ledger
):
    for i in range(60):
        make_datasource(name=f"lake {i:02d}", type="postgresql", host="h", port=5432, database="d", username="u")
    client = api_as(cast.author)
    assert client.get("/api/v1/datasources/").json()["count"] == 61  # 60 lakes and the shop, not the ledger
    assert _names(client.get("/api/v1/datasources/", {"search": "KE 5"}).json()) == [f"lake 5{i}" for i in range(10)]
    assert _names(client.get("/api/v1/datasources/", {"search": "ledger"}).json()) == []
    assert _names(api_as(cast.admin).get("/api/v1/datasources/", {"search": "ledger"}).json()) == ["ledger"]
    by_id = client.get("/api/v1/datasources/", {"ids": f"{shop.pk},{ledger.pk}"}).json()
    assert _names(by_id) == ["shop"]


def test_runs_are_found_by_a_checks_name_by_number_and_by_author_only_among_visible_runs(
    cast, api_as, many_checks, shop, ledger
):
    plain, needle, hidden = many_checks
    (needle_run,) = bulk_runs([needle], shop, author=cast.admin)  # the oldest: on the last page
    bulk_runs(plain[:120], shop)
    (hidden_run,) = bulk_runs([hidden], ledger)
    client = api_as(cast.author)
    everything = client.get("/api/v1/runs/", {"page_size": 50, "page": 3}).json()
    assert everything["count"] == 121 and everything["results"][-1]["id"] == needle_run.pk

    assert [r["id"] for r in client.get("/api/v1/runs/", {"search": "payments"}).json()["results"]] == [needle_run.pk]
    assert [r["id"] for r in client.get("/api/v1/runs/", {"search": f"#{needle_run.pk}"}).json()["results"]] == [
        needle_run.pk
    ]
    assert [r["id"] for r in client.get("/api/v1/runs/", {"search": "admi"}).json()["results"]] == [needle_run.pk]
    assert client.get("/api/v1/runs/", {"search": str(hidden_run.pk)}).json()["count"] == 0
    admin_found = api_as(cast.admin).get("/api/v1/runs/", {"search": "payments"}).json()
    assert [r["id"] for r in admin_found["results"]] == [hidden_run.pk, needle_run.pk]


def test_batches_are_found_by_table_datasource_or_number_only_among_visible_ones(cast, api_as, shop, ledger):
    from gates.models import Batch

    start = date(2026, 1, 1)
    wanted = Batch.objects.create(datasource=shop, table="sales.refunds", biz_date=start)
    for day in range(1, 121):
        Batch.objects.create(datasource=shop, table="sales.orders", biz_date=start + timedelta(days=day))
    secret = Batch.objects.create(datasource=ledger, table="sales.refunds_ledger", biz_date=start)
    client = api_as(cast.author)
    assert client.get("/api/v1/batches/").json()["count"] == 121

    assert [b["id"] for b in client.get("/api/v1/batches/", {"search": "REFUNDS"}).json()["results"]] == [wanted.pk]
    assert [b["id"] for b in client.get("/api/v1/batches/", {"search": f"#{wanted.pk}"}).json()["results"]] == [
        wanted.pk
    ]
    assert client.get("/api/v1/batches/", {"search": "ledger"}).json()["count"] == 0
    assert client.get("/api/v1/batches/", {"search": str(secret.pk)}).json()["count"] == 0
    assert api_as(cast.admin).get("/api/v1/batches/", {"search": "ledger"}).json()["count"] == 1


def test_schedules_and_alert_channels_are_searched_by_name(cast, api_as, many_checks):
    from watching.models import AlertChannel, Schedule

    plain, needle, hidden = many_checks
    for name, check in (("nightly payments", needle), ("nightly orders", plain[0]), ("ledger payments", hidden)):
        Schedule.objects.create(name=name, cron="0 2 * * *", owner=cast.admin).checks.add(check)
    for name in ("payments mail", "orders mail"):
        channel = AlertChannel(name=name, kind="email", notify_on=["fail"])
        channel.target = "ops@example.com"
        channel.save()
    client = api_as(cast.author)
    assert _names(client.get("/api/v1/schedules/", {"search": "PAYMENTS"}).json()) == ["nightly payments"]
    assert _names(client.get("/api/v1/alert-channels/", {"search": "payments"}).json()) == ["payments mail"]


def test_the_live_catalog_is_searched_by_part_of_a_table_or_column_name(cast, api_as, make_datasource, parquet_dir):
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    client = api_as(cast.author)
    assert client.get(f"/api/v1/datasources/{lake.pk}/tables/", {"search": "CUST"}).json() == [{"name": "customers"}]
    columns = client.get(f"/api/v1/datasources/{lake.pk}/columns/", {"table": "orders", "search": "Stat"}).json()
    assert [c["name"] for c in columns] == ["status"]
