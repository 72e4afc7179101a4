"""The error-rows CSV download neutralizes cells a spreadsheet would run as formulas
(OWASP's rule: a leading `'` for cells starting with =, +, -, @, tab or carriage return);
the JSON API keeps every value exact."""

from __future__ import annotations

import csv
import io

import pytest

from executions.models import Result
from executions.tests.factories import finished_run
from rules.models import Check

pytestmark = pytest.mark.django_db
PLANTED = ['=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)", "\tlead tab", "\rlead cr", "plain", "a=b"]


@pytest.fixture
def result_with_formulas(cast, api_as, make_datasource, parquet_dir, tmp_path) -> Result:
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    params = {
        "src_datasource_id": lake.pk,
        "src_table": "orders",
        "src_field": "status",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    response = api_as(cast.author).post(
        "/api/v1/checks/", {"name": "=cmd|' /C calc'!A0", "template": "null_check", "params": params}, format="json"
    )
    assert response.status_code == 201, response.json()
    rows = {
        "note": PLANTED,
        "amount": [-3.5, 1.0, -1.0, 2.0, 0.0, 0.0, 5.0, 6.0],
        "_dq_check": ["=cmd|' /C calc'!A0"] * len(PLANTED),
    }
    run = finished_run([Check.objects.get(pk=response.json()["id"])], cast.author, tmp_path / "errors", rows=rows)
    return Result.objects.get(run=run)


def test_the_csv_prefixes_every_formula_like_cell_with_a_quote(cast, api_as, result_with_formulas):
    response = api_as(cast.author).get(f"/api/v1/results/{result_with_formulas.pk}/error-rows.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()
    header, *rows = list(csv.reader(io.StringIO(text, newline="")))
    assert header == ["note", "amount", "_dq_check"]
    notes = [row[0] for row in rows]
    assert notes == [
        '\'=HYPERLINK("http://x")',
        "'+1+2",
        "'-2+3",
        "'@SUM(A1)",
        "'\tlead tab",
        "'\rlead cr",
        "plain",
        "a=b",
    ]
    assert {row[2] for row in rows} == {"'=cmd|' /C calc'!A0"}  # a check name anyone may pick


def test_numbers_stay_numbers_in_the_csv(cast, api_as, result_with_formulas):
    response = api_as(cast.author).get(f"/api/v1/results/{result_with_formulas.pk}/error-rows.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))[1:]
    assert [row[1] for row in rows][:3] == ["-3.5", "1.0", "-1.0"]


def test_the_json_error_rows_keep_values_exact(cast, api_as, result_with_formulas):
    body = api_as(cast.author).get(f"/api/v1/results/{result_with_formulas.pk}/error-rows/").json()
    assert [row[0] for row in body["rows"]] == PLANTED
    assert body["rows"][0][2] == "=cmd|' /C calc'!A0"


@pytest.fixture
def null_check(cast, api_as, make_datasource, parquet_dir) -> Check:
    lake = make_datasource(name="lake-nulls", type="file", format="parquet", path=str(parquet_dir))
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status"}
    response = api_as(cast.author).post(
        "/api/v1/checks/", {"name": "status-nulls", "template": "null_check", "params": params}, format="json"
    )
    assert response.status_code == 201, response.json()
    return Check.objects.get(pk=response.json()["id"])


def _csv_of(api, check, tmp_path, rows, user) -> str:
    run = finished_run([check], user, tmp_path / "errors", rows=rows)
    response = api.get(f"/api/v1/results/{Result.objects.get(run=run).pk}/error-rows.csv")
    return b"".join(response.streaming_content).decode()


def test_the_csv_writes_null_as_an_empty_field_and_the_empty_string_quoted(cast, api_as, null_check, tmp_path):
    # Hand-made error rows: row 1 holds NULL text and a NULL number, row 2 the empty string.
    rows = {"note": [None, "", 'say "hi", then go'], "amount": [None, 0.0, 2.5]}

    text = _csv_of(api_as(cast.author), null_check, tmp_path, rows, cast.author)

    assert text == 'note,amount\r\n,\r\n"",0.0\r\n"say ""hi"", then go",2.5\r\n'


def test_postgresql_reads_the_csv_back_with_null_and_empty_string_apart(cast, api_as, null_check, tmp_path, pg_server):
    import psycopg

    text = _csv_of(api_as(cast.author), null_check, tmp_path, {"id": [1, 2], "note": [None, ""]}, cast.author)

    with psycopg.connect(**pg_server, autocommit=True) as conn, conn.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE read_back (id int, note text)")
        with cursor.copy("COPY read_back FROM STDIN (FORMAT csv, HEADER true)") as copy:
            copy.write(text)
        cursor.execute("SELECT id, note IS NULL, note FROM read_back ORDER BY id")
        assert cursor.fetchall() == [(1, True, None), (2, False, "")]
