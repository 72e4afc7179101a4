"""Edits of one check are applied one after the other: ten clients PATCHing the
same check at once against a live server never get a 500, and afterwards the check's params are
its current version's, the version numbers run 1, 2, 3… without a gap, and no edit undid
another's (half the clients change the threshold, half the expected value: each version differs
from the one before in exactly the field its PATCH named, so every PATCH merged into the params
the previous one left).

Runs on the configured metadata database: SQLite in `make test` (its IMMEDIATE transactions
serialize writers) and PostgreSQL with DATABASE_URL=postgres://… (the row lock does).
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from rules.models import Check

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
CLIENTS, EDITS_EACH = 10, 5


@pytest.fixture
def check(cast, make_datasource, parquet_dir) -> Check:
    from rules.models import RuleTemplate
    from rules.params import validate_params

    files = make_datasource(name="files", type="file", format="parquet", path=str(parquet_dir))
    template = RuleTemplate.objects.get(key="null_check")
    params = validate_params(
        template,
        {"src_datasource_id": files.pk, "src_table": "orders", "src_field": "status", "comparison_value": 0},
        cast.author,
    )
    check = Check.objects.create(name="orders statuses", template=template, params=params, owner=cast.author)
    check.record_version(cast.author)
    return check


def _token(base: str, username: str, password: str) -> str:
    response = requests.post(
        f"{base}/api/v1/auth/token/", json={"username": username, "password": password}, timeout=30
    )
    assert response.status_code == 200, response.text
    return response.json()["token"]


def test_ten_clients_editing_one_check_at_once_get_no_500_and_leave_it_consistent(live_server, cast, check):
    url = f"{live_server.url}/api/v1/checks/{check.pk}/"
    token = _token(live_server.url, "author", "author-pass-123")

    def edit(client: int) -> list[int]:
        field = "threshold" if client % 2 else "comparison_value"
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {token}"
            return [
                session.patch(url, json={"params": {field: client * 100 + n}}, timeout=120).status_code
                for n in range(1, EDITS_EACH + 1)
            ]

    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = [status for statuses in pool.map(edit, range(1, CLIENTS + 1)) for status in statuses]

    assert set(statuses) <= {200, 409}, statuses  # 409 would be a conflict answered cleanly; never a 500
    check.refresh_from_db()
    numbers = list(check.versions.order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) == 1 + statuses.count(200)  # every edit set a threshold of its own
    assert check.current_version == numbers[-1]
    assert check.params == check.versions.get(number=check.current_version).params
    params = list(check.versions.order_by("number").values_list("params", flat=True))
    changed = [{k for k in after if after[k] != before.get(k)} for before, after in itertools.pairwise(params)]
    assert all(len(fields) == 1 for fields in changed), changed
