"""A YAML import is all or nothing, ownership included: a file that would replace someone else's
check is refused with 403 naming it, and changes nothing at all."""

import pytest
import yaml

from rules.models import Check, CheckVersion

pytestmark = pytest.mark.django_db
IMPORT = "/api/v1/checks/import/"


@pytest.fixture
def files(cast, make_datasource, parquet_dir):
    return make_datasource(name="files", type="file", format="parquet", path=str(parquet_dir))


def _params(**changes):
    return {
        "src_datasource": "files",
        "src_table": "orders",
        "src_field": "status",
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": "alert",
        "comparison_type": "fix_value",
        "comparison_value": 0,
        **changes,
    }


def _yaml(*checks) -> str:
    return yaml.safe_dump({"version": 1, "checks": [{"template": "null_check", **c} for c in checks]})


def _import(client, text):
    return client.post(IMPORT, text, content_type="application/yaml")


@pytest.fixture
def victim(cast, api_as, files):
    """The author's check, version 1 with threshold 0."""
    response = _import(api_as(cast.author), _yaml({"name": "victim", "params": _params()}))
    assert response.status_code == 201, response.json()
    return Check.objects.get(name="victim")


def _snapshot(check: Check) -> tuple:
    check.refresh_from_db()
    return check.params, check.current_version, check.versions.count(), check.owner_id


def test_replacing_someone_elses_check_is_403_naming_it_and_leaves_it_untouched(cast, api_as, victim):
    before = _snapshot(victim)
    response = _import(api_as(cast.outsider), _yaml({"name": "victim", "params": _params(threshold=999)}))
    assert response.status_code == 403
    body = response.json()
    assert body["fields"]["checks"] == ["victim"] and "owned by others" in body["message"]
    assert _snapshot(victim) == before
    assert victim.params["threshold"] == 0 and victim.versions.count() == 1
    assert not CheckVersion.objects.filter(parent_check=victim, params__threshold=999).exists()


def test_a_refused_import_writes_none_of_the_other_checks_in_the_file(cast, api_as, victim, django_user_model):
    intruder = django_user_model.objects.create_user("intruder", password="intruder-pass-123")
    client = api_as(intruder)
    own = _import(client, _yaml({"name": "mine", "params": _params()}))
    assert own.status_code == 201
    mine = Check.objects.get(name="mine")
    before_mine, before_victim = _snapshot(mine), _snapshot(victim)
    text = _yaml(
        {"name": "mine", "params": _params(threshold=5)},  # the intruder's own: allowed alone
        {"name": "brand new", "params": _params()},  # would be created
        {"name": "victim", "params": _params(threshold=999)},  # not theirs
    )
    response = _import(client, text)
    assert response.status_code == 403 and response.json()["fields"]["checks"] == ["victim"]
    assert _snapshot(mine) == before_mine and _snapshot(victim) == before_victim
    assert not Check.objects.filter(name="brand new").exists()
    assert CheckVersion.objects.count() == 2  # victim v1 and mine v1, nothing more


def test_the_owner_and_an_admin_may_replace_the_check(cast, api_as, victim):
    owner = _import(api_as(cast.author), _yaml({"name": "victim", "params": _params(threshold=1)}))
    assert owner.status_code == 201 and owner.json()[0]["current_version"] == 2
    admin = _import(api_as(cast.admin), _yaml({"name": "victim", "params": _params(threshold=2)}))
    assert admin.status_code == 201 and admin.json()[0]["current_version"] == 3
    victim.refresh_from_db()
    assert victim.params["threshold"] == 2 and victim.owner == cast.author  # the owner stays
    assert victim.params == victim.versions.get(number=victim.current_version).params


def test_an_import_may_not_change_a_checks_template(cast, api_as, victim):
    before = _snapshot(victim)
    count_params = {k: v for k, v in _params().items() if k != "src_field"}
    text = yaml.safe_dump(
        {"version": 1, "checks": [{"name": "victim", "template": "table_count_check", "params": count_params}]}
    )
    response = _import(api_as(cast.author), text)
    assert response.status_code == 400
    assert "keeps its template" in str(response.json()["fields"]["checks[0]"]["template"])
    assert _snapshot(victim) == before
