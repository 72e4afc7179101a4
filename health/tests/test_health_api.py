"""The health API: scores per dimension and overall, their 30-day trend, coverage, incident timing
and the worst tables, each worked out by hand in the test from the results it made — errored,
unknown and never-run checks beside passing and failing ones, a deleted check that must not
count, and a restricted datasource a member outside its group must not see."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone

from watching.models import Incident

from .factories import make_check, record

pytestmark = pytest.mark.django_db


def _csv(directory, tables: dict[str, list[str]]):
    directory.mkdir(parents=True)
    for table, columns in tables.items():
        (directory / f"{table}.csv").write_text(",".join(columns) + "\n" + ",".join("1" for _ in columns) + "\n")
    return directory


@pytest.fixture
def world(file_roots, make_datasource, cast):
    """`shop` (open to all): orders(order_id, status, amount), customers(customer_id, email) and
    refunds(refund_id, reason); `vault` (analysts only): ledger(entry_id, amount)."""
    shop_dir = _csv(
        file_roots / "shop",
        {
            "orders": ["order_id", "status", "amount"],
            "customers": ["customer_id", "email"],
            "refunds": ["refund_id", "reason"],
        },
    )
    vault_dir = _csv(file_roots / "vault", {"ledger": ["entry_id", "amount"]})
    shop = make_datasource(name="shop", type="file", format="csv", path=str(shop_dir))
    vault = make_datasource(
        name="vault", type="file", format="csv", path=str(vault_dir), allowed_groups=[cast.analysts]
    )
    now = timezone.now()
    ago = lambda hours: now - timedelta(hours=hours)  # noqa: E731
    checks = {
        # orders: latest pass, fail, pass, error, unknown, never run, pass (dimension named by the check)
        "orders status": make_check("orders status", "null_check", shop, "orders", "status"),
        "orders amount": make_check("orders amount", "null_check", shop, "orders", "amount"),
        "orders unique": make_check("orders unique", "uniqueness_check", shop, "orders", "order_id"),
        "orders fresh": make_check("orders fresh", "freshness_check", shop, "orders"),
        "orders range": make_check("orders range", "value_range_check", shop, "orders", "amount"),
        "orders pattern": make_check("orders pattern", "regexp_check", shop, "orders", "status"),
        "orders ids": make_check("orders ids", "null_check", shop, "orders", "order_id", dimension="accuracy"),
        # customers: latest fail (completeness), pass (custom SQL: validity)
        "customers email": make_check("customers email", "null_check", shop, "customers", "email"),
        "customers sql": make_check("customers sql", "custom_sql", shop, "customers"),
        # refunds: only a deleted check, which failed
        "refunds reason": make_check("refunds reason", "null_check", shop, "refunds", "reason"),
        # vault.ledger: latest fail
        "ledger ids": make_check("ledger ids", "null_check", vault, "ledger", "entry_id"),
    }
    record(checks["orders status"], "fail", ago(50))
    record(checks["orders status"], "pass", ago(1))  # the newest decides
    record(checks["orders amount"], "pass", ago(40))
    record(checks["orders amount"], "fail", ago(2))
    record(checks["orders unique"], "pass", ago(3))
    record(checks["orders fresh"], "error", ago(3))
    record(checks["orders range"], "unknown", ago(3))
    record(checks["orders ids"], "pass", ago(3))
    record(checks["customers email"], "fail", ago(4))
    record(checks["customers sql"], "pass", ago(4))
    record(checks["refunds reason"], "fail", ago(4))
    checks["refunds reason"].soft_delete()
    record(checks["ledger ids"], "fail", ago(5))
    return {"shop": shop, "vault": vault, "checks": checks}


def _dimensions(body) -> dict:
    return {row["dimension"]: row for row in body["dimensions"]}


def _tally(score, passed, failed, errors=0, unknown=0, never_run=0):
    return {
        "score": score,
        "checks": passed + failed + errors + unknown + never_run,
        "passed": passed,
        "failed": failed,
        "errors": errors,
        "unknown": unknown,
        "never_run": never_run,
    }


def test_a_datasource_scores_each_dimension_by_the_checks_that_decided_on_their_latest_result(world, cast, api_as):
    body = api_as(cast.outsider).get(f"/api/v1/health/datasources/{world['shop'].pk}/").json()
    # Latest results on shop: pass ×4 (orders status, orders unique, orders ids, customers sql),
    # fail ×2 (orders amount, customers email), error ×1, unknown ×1, never run ×1; the deleted
    # refunds check is nowhere. 4 ÷ (4 + 2) × 100 = 66.7.
    assert body["overall"] == _tally(66.7, passed=4, failed=2, errors=1, unknown=1, never_run=1)
    assert "passed ÷ (passed + failed)" in body["formula"]
    dimensions = _dimensions(body)
    # completeness: orders status pass, orders amount fail, customers email fail → 1 ÷ 3
    assert {k: v for k, v in dimensions["completeness"].items() if k not in ("dimension", "label")} == _tally(
        33.3, 1, 2
    )
    assert dimensions["uniqueness"]["score"] == 100.0 and dimensions["uniqueness"]["checks"] == 1
    # timeliness: only an error — counted, but no score
    assert dimensions["timeliness"]["score"] is None and dimensions["timeliness"]["errors"] == 1
    # validity: range unknown, pattern never run, custom SQL pass (a custom template counts as validity)
    assert {k: v for k, v in dimensions["validity"].items() if k not in ("dimension", "label")} == _tally(
        100.0, 1, 0, unknown=1, never_run=1
    )
    # accuracy: the null check that names its own dimension
    assert dimensions["accuracy"]["score"] == 100.0 and dimensions["accuracy"]["passed"] == 1
    assert dimensions["consistency"]["checks"] == 0 and dimensions["consistency"]["score"] is None
    # worst first: customers (1 ÷ 2 = 50.0) before orders (3 ÷ 4 = 75.0); refunds has no live check
    assert [(t["table"], t["score"]) for t in body["worst_tables"]] == [("customers", 50.0), ("orders", 75.0)]


def test_the_dimensions_and_the_score_formula_are_named_in_the_readers_language(world, cast, api_as):
    url = f"/api/v1/health/datasources/{world['shop'].pk}/"
    client = api_as(cast.outsider)
    english, chinese = client.get(url).json(), client.get(url, HTTP_ACCEPT_LANGUAGE="zh-Hans").json()
    assert [(d["dimension"], d["label"]) for d in chinese["dimensions"]] == [
        ("completeness", "完整性"),
        ("uniqueness", "唯一性"),
        ("validity", "有效性"),
        ("timeliness", "及时性"),
        ("accuracy", "准确性"),
        ("consistency", "一致性"),
    ]
    assert [d["label"] for d in english["dimensions"]][:2] == ["Completeness", "Uniqueness"]
    assert chinese["formula"].startswith("得分 = 成功数 ÷（成功数 + 失败数）× 100")
    # The numbers do not depend on the language.
    assert [{k: v for k, v in d.items() if k != "label"} for d in chinese["dimensions"]] == [
        {k: v for k, v in d.items() if k != "label"} for d in english["dimensions"]
    ]


def test_the_platform_counts_only_the_datasources_the_caller_may_use(world, cast, api_as):
    outsider = api_as(cast.outsider).get("/api/v1/health/").json()
    member = api_as(cast.author).get("/api/v1/health/").json()
    # The outsider sees shop alone (66.7 as above); the member also vault's failing ledger check:
    # 4 ÷ (4 + 3) × 100 = 57.1, and completeness 1 ÷ 4 = 25.0.
    assert outsider["overall"]["score"] == 66.7 and outsider["overall"]["failed"] == 2
    assert member["overall"] == _tally(57.1, passed=4, failed=3, errors=1, unknown=1, never_run=1)
    assert _dimensions(member)["completeness"]["score"] == 25.0
    assert [t["table"] for t in outsider["worst_tables"]] == ["customers", "orders"]
    assert [(t["datasource_name"], t["table"], t["score"]) for t in member["worst_tables"]] == [
        ("vault", "ledger", 0.0),
        ("shop", "customers", 50.0),
        ("shop", "orders", 75.0),
    ]
    assert "vault" not in str(outsider)
    assert [(d["datasource_name"], d["score"], d["checks"]) for d in member["datasources"]] == [
        ("shop", 66.7, 9),
        ("vault", 0.0, 1),
    ]
    vault_catalog = next(c for c in member["coverage"]["catalogs"] if c["datasource_name"] == "vault")
    assert (vault_catalog["tables"], vault_catalog["tables_checked"]) == (1, 1)
    assert api_as(cast.outsider).get(f"/api/v1/health/datasources/{world['vault'].pk}/").status_code == 404
    table = f"/api/v1/health/tables/?datasource={world['vault'].pk}&table=ledger"
    assert api_as(cast.outsider).get(table).status_code == 404
    assert api_as(cast.author).get(table).json()["overall"] == _tally(0.0, passed=0, failed=1)


def test_a_table_scores_its_own_checks_and_lists_them_with_their_dimension(world, cast, api_as):
    body = api_as(cast.author).get(f"/api/v1/health/tables/?datasource={world['shop'].pk}&table=orders").json()
    # orders: pass ×3, fail ×1, error, unknown, never run → 3 ÷ 4 = 75.0
    assert body["overall"] == _tally(75.0, passed=3, failed=1, errors=1, unknown=1, never_run=1)
    listed = {c["name"]: (c["dimension"], c["status"]) for c in body["checks"]}
    assert listed == {
        "orders status": ("completeness", "pass"),
        "orders amount": ("completeness", "fail"),
        "orders unique": ("uniqueness", "pass"),
        "orders fresh": ("timeliness", "error"),
        "orders range": ("validity", "unknown"),
        "orders pattern": ("validity", None),
        "orders ids": ("accuracy", "pass"),
    }
    # columns: orders has 3, and its live checks name status, amount and order_id
    assert (body["coverage"]["tables"], body["coverage"]["tables_checked"]) == (1, 1)
    assert (body["coverage"]["columns"], body["coverage"]["columns_checked"]) == (3, 3)


def test_coverage_divides_checked_tables_and_columns_by_the_catalog(world, cast, api_as):
    coverage = api_as(cast.author).get(f"/api/v1/health/datasources/{world['shop'].pk}/").json()["coverage"]
    # Catalog: orders, customers, refunds. Checked: orders and customers (refunds' only check was
    # deleted) → 2 ÷ 3. Columns: 3 + 2 + 2 = 7; named by live checks: orders' status, amount,
    # order_id and customers' email → 4 ÷ 7 = 57.1.
    assert (coverage["tables"], coverage["tables_checked"], coverage["table_share"]) == (3, 2, 66.7)
    assert (coverage["columns"], coverage["columns_checked"], coverage["column_share"]) == (7, 4, 57.1)
    assert coverage["catalogs"][0]["known"] is True and coverage["catalogs"][0]["message"] == ""
    assert [t["table"] for t in coverage["unchecked_tables"]] == ["refunds"]


def test_a_new_table_counts_once_the_catalog_is_read_again(world, cast, api_as, file_roots):
    shop = world["shop"]
    api_as(cast.author).get(f"/api/v1/health/datasources/{shop.pk}/")
    (file_roots / "shop" / "returns.csv").write_text("return_id\n1\n")
    answer = api_as(cast.author).post(f"/api/v1/health/datasources/{shop.pk}/catalog/")
    assert answer.status_code == 200
    # 2 ÷ 4 tables, 4 ÷ 8 columns
    assert (answer.json()["coverage"]["table_share"], answer.json()["coverage"]["column_share"]) == (50.0, 50.0)


def test_an_unreadable_catalog_is_named_and_breaks_nothing_else(world, cast, api_as, make_datasource, file_roots):
    gone = file_roots / "gone"
    gone.mkdir()
    lost = make_datasource(name="lost", type="file", format="csv", path=str(gone))
    gone.rmdir()
    body = api_as(cast.outsider).get("/api/v1/health/").json()
    catalogs = {c["datasource_name"]: c for c in body["coverage"]["catalogs"]}
    assert catalogs["lost"]["known"] is False and "lost" in catalogs["lost"]["message"]
    assert lost.pk and catalogs["shop"]["known"] is True
    assert body["coverage"]["tables"] == 3  # shop's catalog still counts
    assert body["overall"]["score"] == 66.7


def test_the_trend_scores_each_day_from_each_checks_latest_result_as_of_that_days_end(
    file_roots, make_datasource, cast, api_as
):
    directory = _csv(file_roots / "lake", {"events": ["event_id"]})
    lake = make_datasource(name="lake", type="file", format="csv", path=str(directory))
    today = timezone.localdate()

    def at(days_ago: int) -> datetime:
        return timezone.make_aware(datetime.combine(today - timedelta(days=days_ago), time(10)))

    a, b, c, d = (make_check(f"events {n}", "null_check", lake, "events", "event_id") for n in "abcd")
    record(c, "pass", at(40))  # before the window: where c stands on its first day
    record(a, "fail", at(5))
    record(b, "pass", at(4))
    record(a, "pass", at(3))
    record(b, "error", at(2))
    record(d, "unknown", at(1))
    gone = make_check("events gone", "null_check", lake, "events", "event_id")
    record(gone, "fail", at(4))
    gone.soft_delete()  # never counts, on any day
    body = api_as(cast.author).get(f"/api/v1/health/datasources/{lake.pk}/").json()
    days = body["trend"]["days"]
    assert len(days) == 30 and days[-1]["date"] == today.isoformat()
    by_age = {(today - datetime.fromisoformat(p["date"]).date()).days: p for p in days}
    # (score, passed, failed, errors, unknown) at each day's end, by hand:
    expected = {age: (100.0, 1, 0, 0, 0) for age in range(6, 30)}  # c passes; nothing else yet
    expected[5] = (50.0, 1, 1, 0, 0)  # a fails
    expected[4] = (66.7, 2, 1, 0, 0)  # b passes
    expected[3] = (100.0, 3, 0, 0, 0)  # a passes
    expected[2] = (100.0, 2, 0, 1, 0)  # b errors: out of the score
    expected[1] = (100.0, 2, 0, 1, 1)  # d unknown: out of the score
    expected[0] = expected[1]
    got = {age: (p["score"], p["passed"], p["failed"], p["errors"], p["unknown"]) for age, p in by_age.items()}
    assert got == expected
    assert body["overall"]["score"] == days[-1]["score"]  # today's point is the current score


def test_incident_timing_is_the_median_over_the_incidents_opened_in_the_window(world, cast, api_as):
    now = timezone.now()
    checks, results = world["checks"], {}
    for name in ("orders status", "orders amount", "customers email", "customers sql", "orders unique"):
        results[name] = record(checks[name], "fail", now - timedelta(days=60))

    def incident(name, opened_days_ago, acked_after=None, resolved_after=None, status="resolved"):
        opened = now - timedelta(days=opened_days_ago)
        return Incident.objects.create(
            rule_check=checks[name],
            status=status,
            outcome="fail",
            first_result=results[name],
            last_result=results[name],
            opened_at=opened,
            acknowledged_at=opened + acked_after if acked_after else None,
            resolved_at=opened + resolved_after if resolved_after else None,
        )

    hours = lambda n: timedelta(hours=n)  # noqa: E731
    incident("orders status", 10, acked_after=hours(2), resolved_after=hours(10))
    incident("orders amount", 5, acked_after=hours(0.5), resolved_after=hours(4))
    incident("customers email", 1, status="open")
    incident("customers sql", 2, acked_after=hours(1), status="acknowledged")
    incident("orders unique", 40, acked_after=hours(100), resolved_after=hours(200))  # before the window
    body = api_as(cast.author).get(f"/api/v1/health/datasources/{world['shop'].pk}/").json()["incidents"]
    # acknowledged within the window after 2 h, 0.5 h, 1 h → median 1 h; resolved after 10 h, 4 h → 7 h
    assert body["statistic"] == "median"
    assert body["median_seconds_to_acknowledge"] == 3600.0
    assert body["median_seconds_to_resolve"] == 7 * 3600.0
    assert (body["open"], body["acknowledged"], body["opened_in_window"]) == (1, 1, 4)
    assert [i["check_name"] for i in body["unresolved"]] == ["customers email", "customers sql"]


def test_a_table_needs_a_datasource_id_and_a_name_said_together(cast, api_as):
    answer = api_as(cast.author).get("/api/v1/health/tables/?datasource=abc")
    assert answer.status_code == 400
    assert set(answer.json()["fields"]) == {"datasource", "table"}


def test_a_check_names_its_dimension_or_takes_its_templates(world, cast, api_as):
    client = api_as(cast.admin)
    check = world["checks"]["orders status"]
    check.record_version(cast.admin)
    shown = client.get(f"/api/v1/checks/{check.pk}/").json()
    assert (shown["dimension"], shown["effective_dimension"]) == ("", "completeness")
    changed = client.patch(f"/api/v1/checks/{check.pk}/", {"dimension": "validity"}, format="json")
    assert changed.status_code == 200, changed.json()
    assert (changed.json()["dimension"], changed.json()["effective_dimension"]) == ("validity", "validity")
    assert changed.json()["current_version"] == shown["current_version"]  # filing a check changes no version
    listed = client.get("/api/v1/checks/", {"search": "orders status"}).json()["results"][0]
    assert (listed["dimension"], listed["effective_dimension"]) == ("validity", "validity")
    wrong = client.patch(f"/api/v1/checks/{check.pk}/", {"dimension": "volume"}, format="json")
    assert wrong.status_code == 400 and "completeness" in str(wrong.json()["fields"]["dimension"])
    sql = client.get(f"/api/v1/checks/{world['checks']['customers sql'].pk}/").json()
    assert sql["effective_dimension"] == "validity"


def test_a_catalog_that_cannot_be_read_again_keeps_the_one_before_and_says_why(world, cast, api_as, file_roots):
    shop = world["shop"]
    api_as(cast.author).get(f"/api/v1/health/datasources/{shop.pk}/")
    (file_roots / "shop").rename(file_roots / "shop-moved")
    answer = api_as(cast.author).post(f"/api/v1/health/datasources/{shop.pk}/catalog/").json()["coverage"]
    assert (answer["tables"], answer["tables_checked"]) == (3, 2)  # the catalog read before
    assert answer["catalogs"][0]["known"] is True
    assert "could not be read" in answer["catalogs"][0]["message"]


def test_a_stale_catalog_is_read_again_on_the_next_page(world, cast, api_as, file_roots, settings):
    shop = world["shop"]
    api_as(cast.author).get(f"/api/v1/health/datasources/{shop.pk}/")
    (file_roots / "shop" / "returns.csv").write_text("return_id\n1\n")
    kept = api_as(cast.author).get(f"/api/v1/health/datasources/{shop.pk}/").json()["coverage"]
    assert kept["tables"] == 3  # within DQ_HEALTH_CATALOG_MAX_AGE: the kept catalog
    settings.DQ_HEALTH_CATALOG_MAX_AGE = 0
    fresh = api_as(cast.author).get(f"/api/v1/health/datasources/{shop.pk}/").json()["coverage"]
    assert fresh["tables"] == 4
