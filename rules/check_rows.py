"""The checks list's rows, built from column values: the JSON `CheckSerializer` gives for each
check, without a model instance, its template and owner instances and a walk over the
serializer's fields per row. The list is the page the browser app opens first and polls, and
those per-row costs were most of its time."""

from __future__ import annotations

from django.db.models import F, FilteredRelation, Q, QuerySet

from accounts.rights import check_permissions
from dq_platform import api_times
from executions.evaluation import formula_in_words

from .check_tags import tags_of
from .models import effective_dimension

# The order of the values each row is read as (see `rows`).
COLUMNS = (
    "id",
    "name",
    "template__key",
    "params",
    "current_version",
    "template__version",
    "owner__username",
    "owner_id",
    "enabled",
    "created_at",
    "updated_at",
    "template_version_in_use",
    "dimension",
    "template__dimension",
)


def with_template_version_in_use(checks: QuerySet) -> QuerySet:
    """`checks` with `template_version_in_use`: the template version the check's current version
    computes with (CheckSerializer's `template_version`). A join on the current version (one at
    most: a check's version numbers are unique) rather than a subquery: as fast to run, and half
    the work to build for every page."""
    return checks.annotate(
        version_in_use=FilteredRelation("versions", condition=Q(versions__number=F("current_version"))),
        template_version_in_use=F("version_in_use__definition__number"),
    )


def listed(checks: QuerySet) -> QuerySet:
    """`checks` (already filtered and ordered) as the tuples `rows` reads."""
    return with_template_version_in_use(checks).values_list(*COLUMNS)


def rows(page, user) -> list[dict]:
    """The page's checks as CheckSerializer represents them for `user`, key for key and in its
    order: the tags in one query for the page, the permissions from the owner column."""
    page = list(page)
    moment = api_times.formatter()  # DRF's DateTimeField output
    formulas: dict = {}
    tags = tags_of(row[0] for row in page)
    answer = []
    for (
        pk,
        name,
        template_key,
        params,
        current_version,
        template_version,
        owner,
        owner_id,
        enabled,
        created_at,
        updated_at,
        in_use,
        dimension,
        template_dimension,
    ) in page:
        answer.append(
            {
                "id": pk,
                "name": name,
                "template": template_key,
                "params": params,
                "formula": _formula(params, formulas),
                "current_version": current_version,
                "template_version": in_use,
                "upgrade_available": in_use is not None and in_use < template_version,
                "warnings": [],  # a save's answer only says any
                "owner": owner,
                "enabled": enabled,
                "tags": tags[pk],
                "permissions": check_permissions(user, owner_id),
                "created_at": moment(created_at),
                "updated_at": moment(updated_at),
                "dimension": dimension,
                "effective_dimension": effective_dimension(dimension, template_dimension),
            }
        )
    return answer


def _formula(params, known: dict) -> str:
    """CheckSerializer.get_formula, worked out once per rule on a page (most checks of a page
    share a few rules)."""
    params = params if isinstance(params, dict) else {}
    rule = (params.get("check_type"), params.get("operator"), params.get("threshold"))
    key = (*rule, type(rule[2]))  # 0, 0.0 and False are one dict key but may read differently
    try:
        return known[key]
    except KeyError:
        known[key] = formula_in_words(*rule)
    except TypeError:  # an unhashable threshold (a list): worked out every time, like the serializer does
        return formula_in_words(*rule)
    return known[key]
