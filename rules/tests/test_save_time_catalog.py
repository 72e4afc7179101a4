"""A check that would fail at run time is refused when saved, field by field, from the live
catalog: custom SQL naming a column the table lacks or returning several rows, an accuracy match of
text with numbers, a numeric range on a text column. A catalog that cannot be read now does not
refuse the check: it is saved, and the answer warns that it was not checked."""

from __future__ import annotations

import pytest

from conftest import MYSQL_TEST_DB
from rules.models import Check
from rules.tests.conftest import VERDICT

pytestmark = pytest.mark.django_db
URL = "/api/v1/checks/"


def _create(client, template, params, name="orders check"):
    return client.post(URL, {"name": name, "template": template, "params": params}, format="json")


def _sql_params(pg_datasource, sql: str) -> dict:
    return {
        "src_datasource_id": pg_datasource.pk,
        "src_table": "dq_test.orders",
        "statistics_name": "negative_amounts",
        "statistics_execute_sql": sql,
        **VERDICT,
    }


def test_custom_sql_naming_a_column_the_table_lacks_is_refused_naming_it(cast, api_as, pg_datasource):
    # dq_test.orders has order_id, customer_email, amount, created_at, "Ünïcode note": no "amout".
    sql = "SELECT count(*) AS negative FROM ${src_table} WHERE amout < 0"

    response = _create(api_as(cast.author), "custom_sql", _sql_params(pg_datasource, sql))

    assert response.status_code == 400
    message = response.json()["fields"]["params"]["statistics_execute_sql"][0]
    assert "'amout'" in message and "'dq_test.orders'" in message and "amount" in message
    assert not Check.objects.exists()


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("SELECT count(*) FROM ${src_table} GROUP BY customer_email", "groups by customer_email"),
        ("SELECT amount FROM ${src_table} WHERE amount < 0", "selects amount outside an aggregate"),
        ("SELECT count(*) FROM ${src_table} UNION ALL SELECT 1 FROM ${src_table}", "UNION"),
    ],
)
def test_custom_sql_returning_several_rows_is_refused_saying_why(cast, api_as, pg_datasource, sql, words):
    response = _create(api_as(cast.author), "custom_sql", _sql_params(pg_datasource, sql))

    assert response.status_code == 400
    message = response.json()["fields"]["params"]["statistics_execute_sql"][0]
    assert message.startswith("The query returns several rows") and words in message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*) AS negative FROM ${src_table} WHERE amount < 0",  # an aggregate, no GROUP BY: one row
        "SELECT sum(amount) / count(*) FROM ${src_table}",
        "SELECT amount FROM ${src_table} ORDER BY amount DESC LIMIT 1",
        "WITH neg AS (SELECT amount AS a FROM ${src_table} WHERE amount < 0) SELECT count(a) FROM neg",
        "SELECT count(DISTINCT o.customer_email) FROM ${src_table} o WHERE o.AMOUNT > 0",  # case-insensitive
    ],
)
def test_custom_sql_of_one_row_over_known_columns_is_saved(cast, api_as, pg_datasource, sql):
    response = _create(api_as(cast.author), "custom_sql", _sql_params(pg_datasource, sql))

    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == []


def test_an_accuracy_match_of_text_with_an_integer_column_is_refused(cast, api_as, valid_params):
    # Source customer_email is text; target order_id is an integer (MariaDB's int).
    params = {
        **valid_params["multi_table_accuracy"],
        "mapping_columns": [
            {"src_field": "order_id", "operator": "=", "target_field": "order_id"},
            {"src_field": "customer_email", "operator": "=", "target_field": "order_id"},
        ],
    }

    response = _create(api_as(cast.author), "multi_table_accuracy", params)

    assert response.status_code == 400
    message = response.json()["fields"]["params"]["mapping_columns"][0]
    assert message.startswith("Pair 2: source column 'customer_email' holds text")
    assert "'order_id' holds numbers" in message


def test_an_accuracy_match_of_like_columns_is_saved(cast, api_as, valid_params):
    params = {
        **valid_params["multi_table_accuracy"],
        "mapping_columns": [
            {"src_field": "order_id", "operator": "=", "target_field": "order_id"},
            {"src_field": "customer_email", "operator": "=", "target_field": "customer_email"},
            {"src_field": "created_at", "operator": "=", "target_field": "created_at"},
        ],
    }

    response = _create(api_as(cast.author), "multi_table_accuracy", params)

    assert response.status_code == 201, response.json()


def test_a_numeric_range_on_a_text_column_is_refused(cast, api_as, pg_datasource):
    params = {
        "src_datasource_id": pg_datasource.pk,
        "src_table": "dq_test.orders",
        "src_field": "customer_email",
        "min_value": 0,
        "max_value": 100,
        **VERDICT,
    }

    response = _create(api_as(cast.author), "value_range_check", params)

    assert response.status_code == 400
    fields = response.json()["fields"]["params"]
    assert "holds text values" in fields["min_value"][0]


def test_a_check_on_a_catalog_that_cannot_be_read_is_saved_with_a_warning(cast, api_as, make_datasource, closed_port):
    down = make_datasource(
        name="down", type="postgresql", host="127.0.0.1", port=closed_port, database="d", username="u"
    )
    params = {"src_datasource_id": down.pk, "src_table": "shop.orders", "src_field": "email", **VERDICT}

    response = _create(api_as(cast.author), "null_check", params)

    assert response.status_code == 201, response.json()
    warnings = response.json()["warnings"]
    assert len(warnings) == 1
    assert warnings[0].startswith("The tables of 'down' could not be read (Cannot connect to PostgreSQL")
    assert "saved without checking" in warnings[0]
    assert Check.objects.get().params["src_field"] == "email"
    listed = api_as(cast.author).get(f"{URL}{response.json()['id']}/").json()
    assert listed["warnings"] == []  # a warning of the save, not of the check


def test_mariadb_columns_are_checked_too(cast, api_as, mysql_datasource):
    params = {
        "src_datasource_id": mysql_datasource.pk,
        "src_table": f"{MYSQL_TEST_DB}.orders",
        "statistics_name": "n",
        "statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE emial IS NULL",
        **VERDICT,
    }

    response = _create(api_as(cast.author), "custom_sql", params)

    assert response.status_code == 400
    assert "'emial'" in response.json()["fields"]["params"]["statistics_execute_sql"][0]
