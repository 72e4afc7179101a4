"""Suggested checks over the API, on a real PostgreSQL table: the profile document is computed in
plain Python from the rows (as the profiler would report them), the suggestions are accepted
through the API, their checks run for real, and every one passes; planted bad rows make the
relevant ones fail, as plain Python over the rows says they must.

The profile model lives on another branch: `profiling.suggestion_sources.latest_profiles` is the
one seam, and these tests stand in for it (monkeypatch) with the documents they build.
"""

from __future__ import annotations

import operator
import re
from datetime import datetime, timedelta

import psycopg
import pytest

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER
from profiling.suggesting import suggest
from profiling.suggestion_sources import ProfileRecord
from rules.models import Check, RejectedSuggestion, RuleTemplate
from rules.params import validate_params

from .profile_documents import profile_of

SCHEMA = "dq_suggest"
TABLE = f"{SCHEMA}.orders"
COLUMNS = ["order_id", "email", "status", "amount", "qty", "zip", "day", "created_at"]
TYPES = {
    "order_id": ("integer", "number"),
    "email": ("text", "string"),
    "status": ("text", "string"),
    "amount": ("numeric", "number"),
    "qty": ("integer", "number"),
    "zip": ("text", "string"),
    "day": ("text", "string"),
    "created_at": ("timestamp without time zone", "time"),
}
START = datetime(2026, 11, 1, 8, 0, 0)


def make_rows(n: int = 40) -> list[dict]:
    rows = []
    for i in range(1, n + 1):
        rows.append(
            {
                "order_id": i,
                "email": None if i % 10 == 0 else f"customer{i}@shop{i % 3}.example.com",
                "status": ["paid", "void", "shipped", "paid"][i % 4],
                "amount": i * 2.5,
                "qty": 1 + i % 5,
                "zip": f"{10000 + i * 7}",
                "day": f"2026-11-{1 + i % 28:02d}",
                "created_at": START + timedelta(hours=i),
            }
        )
    return rows


def _insert(conn, rows):
    with conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {TABLE} VALUES ({', '.join(['%s'] * len(COLUMNS))})",
            [tuple(r[c] for c in COLUMNS) for r in rows],
        )


@pytest.fixture
def orders(shared_servers_lock):
    rows = make_rows()
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(
            f"CREATE TABLE {TABLE} (order_id integer, email text, status text, amount numeric(10,2), qty integer, "
            "zip text, day text, created_at timestamp)"
        )
        _insert(conn, rows)
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield rows
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def warehouse(pg_server, orders, make_datasource):
    return make_datasource(name="warehouse", **PG_PROBE_DATASOURCE)


@pytest.fixture
def profiles(monkeypatch):
    """`profiles(doc, *earlier)`: the documents latest_profiles gives from now on (newest first)."""

    def serve(*documents):
        records = [ProfileRecord(i + 1, d) for i, d in enumerate(documents)]
        monkeypatch.setattr("profiling.suggestion_sources.latest_profiles", lambda datasource, table: records)

    return serve


def listed(client, datasource, table=TABLE):
    response = client.get("/api/v1/suggestions/", {"datasource": datasource.pk, "table": table})
    assert response.status_code == 200, response.json()
    return response.json()


# --- the truth: each check's verdict over the rows, in plain Python --------------------------------
LENGTH_OPS = {
    "=": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "<>": operator.ne,
}


def statistic(template: str, params: dict, rows: list[dict]) -> int:
    values = [r[params["src_field"]] for r in rows]
    if template == "null_check":
        return sum(1 for v in values if v is None or v == "")
    if template == "uniqueness_check":
        present = [v for v in values if v is not None]
        return len({v for v in present if present.count(v) > 1})
    if template == "enumeration_check":
        allowed = {str(a) for a in params["enum_list"]}
        return sum(1 for v in values if v is None or str(v) not in allowed)
    if template == "value_range_check":
        low, high = params.get("min_value"), params.get("max_value")
        return sum(
            1 for v in values if v is not None and ((low is not None and v < low) or (high is not None and v > high))
        )
    if template == "regexp_check":
        return sum(1 for v in values if v is not None and not re.search(params["regexp_pattern"], v))
    if template == "field_length_check":
        compare = LENGTH_OPS[params["logic_operator"]]
        return sum(1 for v in values if v is not None and compare(len(str(v)), params["field_length"]))
    raise AssertionError(template)


def passes(template: str, params: dict, rows: list[dict]) -> bool:
    count = statistic(template, params, rows)
    if params["comparison_type"] == "fix_value":
        return count - params["comparison_value"] <= params["threshold"]
    return count / len(rows) * 100 <= params["threshold"]


def run_checks(client, check_ids, monkeypatch) -> tuple[dict[str, dict], set[str]]:
    from executions.models import Run
    from executions.tasks import execute_claimed_run

    monkeypatch.setattr("executions.starting.enqueue", lambda run: None)  # this process runs it
    started = client.post("/api/v1/runs/", {"checks": check_ids}, format="json")
    assert started.status_code == 202, started.json()
    run = Run.objects.get(pk=started.json()["id"])
    assert Run.claim(run.pk, run.attempt)
    run.refresh_from_db()
    execute_claimed_run(run)
    run.refresh_from_db()
    engines = {b.get("engine") for b in run.batches["definitions"].values()}
    results = {
        r.rule_check.name: {"status": r.status, "value": r.statistics_value, "message": r.message}
        for r in run.results.all()
    }
    return results, engines


def accept_all(client, datasource, table) -> dict[str, dict]:
    """Every suggestion offered, accepted: {check name: the suggestion}."""
    created = {}
    for s in listed(client, datasource, table)["suggestions"]:
        body = {"datasource": datasource.pk, "table": table, "fingerprint": s["fingerprint"]}
        response = client.post("/api/v1/suggestions/accept/", body, format="json")
        assert response.status_code == 201, (s["kind"], s["column"], response.json())
        check = response.json()
        assert check["template"] == s["template"] and check["params"] == s["params"] and check["current_version"] == 1
        created[check["name"]] = s
    return created


def kinds_of(created: dict, names) -> set[tuple[str, str]]:
    return {(created[n]["column"], created[n]["kind"]) for n in names}


# --- the tests ------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_accepted_suggestions_on_postgresql_pass_on_their_data_and_the_relevant_ones_fail_on_planted_bad_rows(
    cast, api_as, warehouse, orders, profiles, monkeypatch, settings, tmp_path
):
    settings.DQ_ERROR_DATA_ROOT = str(tmp_path)
    client = api_as(cast.author)
    profiles(profile_of(orders, TYPES, TABLE))
    created = accept_all(client, warehouse, TABLE)
    assert kinds_of(created, created) >= {
        ("order_id", "not_null"),
        ("order_id", "unique"),
        ("email", "null_share"),
        ("email", "email"),
        ("email", "max_length"),
        ("status", "enumeration"),
        ("amount", "non_negative"),
        ("amount", "range"),
        ("qty", "enumeration"),
        ("zip", "numeric_text"),
        ("zip", "exact_length"),
        ("day", "date_text"),
        ("created_at", "unique"),
    }

    first, engines = run_checks(client, [Check.objects.get(name=n).pk for n in created], monkeypatch)

    assert engines == {"pushdown"} and len(first) == len(created)
    assert {n: r for n, r in first.items() if r["status"] != "pass"} == {}

    bad = [
        {
            "order_id": 1,
            "email": "not-an-email-and-far-longer-than-any-address-seen",
            "status": "bogus",
            "amount": -5000,
            "qty": 9,
            "zip": "ABCDEF",
            "day": "yesterday",
            "created_at": START + timedelta(hours=1),
        },
        {c: None for c in COLUMNS},
    ]
    with psycopg.connect(**PG, autocommit=True) as conn:
        _insert(conn, bad)
    second, _ = run_checks(client, [Check.objects.get(name=n).pk for n in created], monkeypatch)

    truth = {n: ("pass" if passes(s["template"], s["params"], orders + bad) else "fail") for n, s in created.items()}
    assert {n: r["status"] for n, r in second.items()} == truth, second
    assert kinds_of(created, [n for n, r in second.items() if r["status"] == "fail"]) >= {
        ("order_id", "not_null"),
        ("order_id", "unique"),
        ("email", "email"),
        ("email", "max_length"),
        ("status", "enumeration"),
        ("amount", "non_negative"),
        ("amount", "range"),
        ("qty", "enumeration"),
        ("zip", "numeric_text"),
        ("zip", "exact_length"),
        ("day", "date_text"),
        ("created_at", "unique"),
    }


@pytest.mark.django_db
def test_every_kind_of_suggestion_validates_against_its_rule_template_with_and_without_a_tolerance(
    cast, warehouse, orders
):
    full = profile_of(orders, TYPES, TABLE)
    sampled = {
        **full,
        "row_count": 4000,
        "sample": {"rows": 40, "method": "sample", "fraction": 0.01, "row_guard": 1_000_000},
    }
    found = suggest(full, datasource_id=warehouse.pk, table=TABLE) + suggest(
        sampled, datasource_id=warehouse.pk, table=TABLE
    )
    assert {s["params"]["comparison_type"] for s in found} == {"fix_value", "src_table_total_rows"}

    for s in found:
        cleaned = validate_params(RuleTemplate.objects.get(key=s["template"]), s["params"], cast.author)
        assert cleaned == s["params"], (s["kind"], s["column"])


@pytest.mark.django_db
def test_a_rejected_suggestion_is_not_offered_again_until_new_figures_change_it(
    cast, api_as, warehouse, orders, profiles
):
    client = api_as(cast.author)
    document = profile_of(orders, TYPES, TABLE)
    profiles(document)
    amount_range = next(
        s for s in listed(client, warehouse)["suggestions"] if s["column"] == "amount" and s["kind"] == "range"
    )

    response = client.post(
        "/api/v1/suggestions/reject/",
        {
            "datasource": warehouse.pk,
            "table": TABLE,
            "fingerprint": amount_range["fingerprint"],
            "reason": "amounts grow",
        },
        format="json",
    )
    again = client.post(
        "/api/v1/suggestions/reject/",
        {"datasource": warehouse.pk, "table": TABLE, "fingerprint": amount_range["fingerprint"]},
        format="json",
    )

    assert response.status_code == 201 and again.status_code == 200 and again.json()["id"] == response.json()["id"]
    rejection = RejectedSuggestion.objects.get()
    assert (rejection.column, rejection.kind, rejection.reason, rejection.rejected_by) == (
        "amount",
        "range",
        "amounts grow",
        cast.author,
    )
    after = listed(client, warehouse)
    assert amount_range["fingerprint"] not in {s["fingerprint"] for s in after["suggestions"]}
    assert after["hidden"]["rejected"] == 1
    # Another user, same table: not offered to them either.
    assert amount_range["fingerprint"] not in {
        s["fingerprint"] for s in listed(api_as(cast.admin), warehouse)["suggestions"]
    }

    grown = [{**r, "amount": r["amount"] * 10} for r in orders]  # max 1000 instead of 100: another range
    profiles(profile_of(grown, TYPES, TABLE, at="2026-12-02T00:00:00Z"), document)
    offered = [s for s in listed(client, warehouse)["suggestions"] if s["column"] == "amount" and s["kind"] == "range"]
    assert len(offered) == 1 and offered[0]["params"]["max_value"] > amount_range["params"]["max_value"]
    # The earlier (smaller) profile passes the new, wider range: the backtest says so.
    assert [e["verdict"] for e in offered[0]["backtest"]["earlier"]] == ["pass"]


@pytest.mark.django_db
def test_an_accepted_suggestion_is_not_offered_again_and_a_second_accept_is_a_conflict(
    cast, api_as, warehouse, orders, profiles
):
    client = api_as(cast.author)
    profiles(profile_of(orders, TYPES, TABLE))
    first = listed(client, warehouse)["suggestions"][0]
    body = {"datasource": warehouse.pk, "table": TABLE, "fingerprint": first["fingerprint"]}

    created = client.post("/api/v1/suggestions/accept/", {**body, "name": "ids present"}, format="json")
    twice = client.post("/api/v1/suggestions/accept/", body, format="json")

    assert created.status_code == 201 and created.json()["name"] == "ids present"
    assert twice.status_code == 409 and "ids present" in twice.json()["message"]
    after = listed(client, warehouse)
    assert first["fingerprint"] not in {s["fingerprint"] for s in after["suggestions"]}
    assert after["hidden"]["already_checks"] == 1


@pytest.mark.django_db
def test_bad_requests_are_400s_naming_the_field(cast, api_as, warehouse, orders, profiles):
    client = api_as(cast.author)
    profiles(profile_of(orders, TYPES, TABLE))

    no_table = client.get("/api/v1/suggestions/", {"datasource": warehouse.pk})
    bad_id = client.get("/api/v1/suggestions/", {"datasource": "x", "table": TABLE})
    bad_print = client.post(
        "/api/v1/suggestions/accept/", {"datasource": warehouse.pk, "table": TABLE, "fingerprint": "abc"}, format="json"
    )
    gone = client.post(
        "/api/v1/suggestions/accept/",
        {"datasource": warehouse.pk, "table": TABLE, "fingerprint": "0" * 64},
        format="json",
    )

    only_email = client.get("/api/v1/suggestions/", {"datasource": warehouse.pk, "table": TABLE, "column": "email"})
    assert only_email.status_code == 200
    assert {s["column"] for s in only_email.json()["suggestions"]} == {"email"}
    assert no_table.status_code == 400 and "table" in no_table.json()["fields"]
    assert bad_id.status_code == 400 and "datasource" in bad_id.json()["fields"]
    assert bad_print.status_code == 400 and "fingerprint" in bad_print.json()["fields"]
    assert gone.status_code == 400 and "does not suggest this check" in gone.json()["fields"]["fingerprint"][0]
    assert Check.objects.count() == 0


@pytest.mark.django_db
def test_a_table_without_a_profile_has_no_suggestions_and_says_why(cast, api_as, warehouse, profiles):
    profiles()

    body = listed(api_as(cast.author), warehouse)

    assert body["profile"] is None and body["suggestions"] == [] and "no finished profile" in body["message"]


@pytest.mark.django_db
def test_a_datasource_the_user_may_not_read_is_a_404_for_listing_accepting_and_rejecting(
    cast, api_as, make_datasource, pg_server, orders, profiles
):
    restricted = make_datasource(name="restricted", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)
    profiles(profile_of(orders, TYPES, TABLE))
    fingerprint = listed(api_as(cast.author), restricted)["suggestions"][0]["fingerprint"]
    outsider = api_as(cast.outsider)
    body = {"datasource": restricted.pk, "table": TABLE, "fingerprint": fingerprint}

    answers = [
        outsider.get("/api/v1/suggestions/", {"datasource": restricted.pk, "table": TABLE}),
        outsider.post("/api/v1/suggestions/accept/", body, format="json"),
        outsider.post("/api/v1/suggestions/reject/", body, format="json"),
    ]

    assert [a.status_code for a in answers] == [404, 404, 404]
    assert Check.objects.count() == 0 and RejectedSuggestion.objects.count() == 0
    assert (
        api_as(cast.outsider).get("/api/v1/suggestions/", {"datasource": restricted.pk, "table": TABLE}).status_code
        == 404
    )


@pytest.mark.django_db
def test_a_rejection_is_listed_for_its_table_and_withdrawing_it_offers_the_suggestion_again(
    cast, api_as, make_datasource, pg_server, orders, profiles
):
    restricted = make_datasource(name="restricted", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)
    profiles(profile_of(orders, TYPES, TABLE))
    client = api_as(cast.author)
    status = next(s for s in listed(client, restricted)["suggestions"] if s["kind"] == "enumeration")
    body = {"datasource": restricted.pk, "table": TABLE, "fingerprint": status["fingerprint"], "reason": "codes change"}
    rejection = client.post("/api/v1/suggestions/reject/", body, format="json").json()

    rejected = client.get("/api/v1/suggestions/rejected/", {"datasource": restricted.pk, "table": TABLE})
    by_outsider = api_as(cast.outsider).delete(f"/api/v1/suggestions/rejected/{rejection['id']}/")
    withdrawn = client.delete(f"/api/v1/suggestions/rejected/{rejection['id']}/")

    assert rejected.status_code == 200
    assert [(r["column"], r["kind"], r["reason"], r["rejected_by"]) for r in rejected.json()] == [
        (status["column"], "enumeration", "codes change", "author")
    ]
    assert by_outsider.status_code == 404 and withdrawn.status_code == 204
    assert status["fingerprint"] in {s["fingerprint"] for s in listed(client, restricted)["suggestions"]}


# --- the same on a CSV file, read by DuckDB --------------------------------------------------------
# No e-mail column here: the e-mail shape (the profiler's) is one DuckDB cannot run exactly as Java
# does (its `$` after a class that takes line breaks), so it would send the batch to Spark; the
# PostgreSQL test above runs it pushed down.
CSV_COLUMNS = ["order_id", "status", "amount", "qty", "code", "created_at"]
CSV_TYPES = {
    "order_id": ("int64", "number"),
    "status": ("string", "string"),
    "amount": ("double", "number"),
    "qty": ("int64", "number"),
    "code": ("string", "string"),
    "created_at": ("timestamp[s]", "time"),
}


def csv_rows(n: int = 30) -> list[dict]:
    return [
        {
            "order_id": i,
            "status": ["new", "paid", "sent"][i % 3],
            "amount": round(i * 3.75, 2),
            "qty": i % 4,
            "code": f"AB-{i:03d}",
            "created_at": START + timedelta(minutes=17 * i),
        }
        for i in range(1, n + 1)
    ]


def write_csv(path, rows) -> None:
    def text(value):
        if value is None:
            return ""
        return value.strftime("%Y-%m-%d %H:%M:%S") if isinstance(value, datetime) else str(value)

    lines = [",".join(CSV_COLUMNS)] + [",".join(text(r[c]) for c in CSV_COLUMNS) for r in rows]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_accepted_suggestions_on_a_csv_file_pass_on_duckdb_and_the_relevant_ones_fail_on_planted_bad_rows(
    cast, api_as, make_datasource, file_roots, profiles, monkeypatch, settings, tmp_path
):
    settings.DQ_ERROR_DATA_ROOT = str(tmp_path / "error-rows")
    folder = file_roots / "shop"
    folder.mkdir()
    rows = csv_rows()
    write_csv(folder / "orders.csv", rows)
    shop = make_datasource(name="shop", type="file", format="csv", path=str(folder))
    client = api_as(cast.author)
    profiles(profile_of(rows, CSV_TYPES, "orders"))

    created = accept_all(client, shop, "orders")
    assert kinds_of(created, created) >= {
        ("order_id", "not_null"),
        ("order_id", "unique"),
        ("status", "enumeration"),
        ("amount", "range"),
        ("qty", "enumeration"),
        ("qty", "non_negative"),
        ("code", "exact_length"),
    }
    first, engines = run_checks(client, [Check.objects.get(name=n).pk for n in created], monkeypatch)

    assert engines == {"duckdb"} and len(first) == len(created)
    assert {n: r for n, r in first.items() if r["status"] != "pass"} == {}

    bad = [
        {
            "order_id": 7,
            "status": "lost",
            "amount": 999.5,
            "qty": 11,
            "code": "TOO-LONG-CODE",
            "created_at": START,
        },
        {**rows[0], "order_id": None, "amount": -1.25, "qty": -2},
    ]
    write_csv(folder / "orders.csv", rows + bad)
    second, _ = run_checks(client, [Check.objects.get(name=n).pk for n in created], monkeypatch)

    truth = {n: ("pass" if passes(s["template"], s["params"], rows + bad) else "fail") for n, s in created.items()}
    assert {n: r["status"] for n, r in second.items()} == truth, second
    assert kinds_of(created, [n for n, r in second.items() if r["status"] == "fail"]) >= {
        ("order_id", "not_null"),
        ("order_id", "unique"),
        ("status", "enumeration"),
        ("amount", "range"),
        ("qty", "enumeration"),
        ("qty", "non_negative"),
        ("code", "exact_length"),
    }


@pytest.mark.django_db
def test_a_superuser_sees_the_rejections_in_the_admin(cast, api_as, django_user_model, warehouse, orders, profiles):
    profiles(profile_of(orders, TYPES, TABLE))
    client = api_as(cast.author)
    first = listed(client, warehouse)["suggestions"][0]
    body = {"datasource": warehouse.pk, "table": TABLE, "fingerprint": first["fingerprint"], "reason": "not now"}
    assert client.post("/api/v1/suggestions/reject/", body, format="json").status_code == 201

    root = django_user_model.objects.create_superuser("root", password="root-pass-123")
    page = api_as(root).get("/admin/rules/rejectedsuggestion/")

    assert page.status_code == 200 and first["column"] in page.content.decode()


@pytest.mark.django_db
def test_latest_profiles_reads_the_tables_done_whole_table_profiles_newest_first(make_datasource, tmp_path, settings):
    from django.apps import apps

    if not apps.is_installed("profiling"):
        pytest.skip("the profile model (the profiling app) is not merged yet")
    from profiling.models import Profile
    from profiling.suggestion_sources import latest_profiles

    settings.DQ_FILE_ROOTS = [tmp_path.resolve()]
    lake = make_datasource(name="lake", type="file", format="csv", path=str(tmp_path))
    older = Profile.objects.create(datasource=lake, table="orders", status="done", document={"n": 1})
    Profile.objects.create(datasource=lake, table="orders", status="done", filter="day = 1", document={"n": 2})
    Profile.objects.create(datasource=lake, table="orders", status="error", document=None)
    Profile.objects.create(datasource=lake, table="other", status="done", document={"n": 3})
    newer = Profile.objects.create(datasource=lake, table="orders", status="done", document={"n": 4})

    assert [(r.id, r.document) for r in latest_profiles(lake, "orders")] == [(newer.pk, {"n": 4}), (older.pk, {"n": 1})]
