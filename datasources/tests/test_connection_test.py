"""POST /api/v1/datasources/{id}/test/ against the real PostgreSQL and MariaDB test servers."""

import pytest

from conftest import PROBE_PASSWORD

pytestmark = pytest.mark.django_db


def _test(api_as, user, datasource):
    response = api_as(user).post(f"/api/v1/datasources/{datasource.pk}/test/")
    assert response.status_code == 200
    return response.json()


def test_a_reachable_postgresql_source_reports_ok_with_its_version(cast, api_as, pg_datasource):
    result = _test(api_as, cast.author, pg_datasource)
    assert result["ok"] is True and "PostgreSQL 15" in result["message"]


def test_a_reachable_mariadb_source_reports_ok_with_its_version(cast, api_as, mysql_datasource):
    result = _test(api_as, cast.author, mysql_datasource)
    assert result["ok"] is True and "MariaDB" in result["message"]


@pytest.mark.parametrize("kind", ["pg_datasource", "mysql_datasource"])
def test_a_wrong_password_answers_ok_false_with_a_clear_message(cast, api_as, request, kind):
    datasource = request.getfixturevalue(kind)
    datasource.password = PROBE_PASSWORD + "-wrong"
    datasource.save()
    result = _test(api_as, cast.admin, datasource)
    assert result["ok"] is False, (
        "The server accepted a wrong password: PostgreSQL needs scripts/services.sh's pg_hba line for "
        "dq_password_probe."
    )
    message = result["message"].lower()
    assert "password authentication failed" in message or "access denied" in message
    assert PROBE_PASSWORD not in result["message"]


@pytest.mark.parametrize("kind", ["pg_datasource", "mysql_datasource"])
def test_a_closed_port_answers_ok_false_naming_the_address(cast, api_as, request, kind, closed_port):
    datasource = request.getfixturevalue(kind)
    datasource.port = closed_port
    datasource.save()
    result = _test(api_as, cast.admin, datasource)
    assert result["ok"] is False
    assert f"127.0.0.1:{closed_port}" in result["message"]
    assert "refused" in result["message"].lower() or "can't connect" in result["message"].lower()


def test_a_file_source_reports_how_many_datasets_it_holds(cast, api_as, make_datasource, parquet_dir):
    datasource = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    assert _test(api_as, cast.author, datasource) == {
        "ok": True,
        "message": f"Read {parquet_dir}: 2 parquet datasets found.",
    }


def test_a_missing_directory_answers_ok_false(cast, api_as, make_datasource, file_roots):
    datasource = make_datasource(name="lake", type="file", format="parquet", path=str(file_roots / "gone"))
    result = _test(api_as, cast.author, datasource)
    assert result["ok"] is False and "gone" in result["message"]
