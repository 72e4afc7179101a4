"""Who may do what: a member of the restricted datasource's group, an outsider (in no group) and an
admin, over every read and write endpoint, before and after the events that used to leak data: moving a check to an open datasource, restricting a datasource later,
and deleting one.

The world: datasource A is restricted to the group "analysts" (the member is in it), datasource B
is open; both show the same Parquet files. The member owns the check "orders statuses", which
reads A, and run_a ran it (one failed result, result_a, with error rows). Scenarios then change
the world through the API, as users would:

- as created:           nothing more;
- moved to open B:      the member points the check at B (version 2) and run_b runs it there;
- B restricted later:   as "moved", then an admin limits B to the analysts;
- A deleted:            an admin deletes A while the check still reads it;
- moved, A deleted:     as "moved", then an admin deletes A;
- A owned by analysts:  an admin makes the analysts (the member's group) A's owners;
- A monitored (…):      an admin switches a table monitor on for A's orders (then, as above,
                        the analysts own A, or an admin deletes A).

Each row of MATRIX is one request and what each role gets, in the order member, outsider, admin:
- "METHOD path": the cell is the HTTP status;
- "GET path lists thing": the cell says whether the 200 answer lists `thing` (Y or N);
- "GET path gives field": the cell is the value of `field` in the 200 answer.
A cell that expects Y, N or a value also fails on any other status than 200.
Writes are tried by each role in turn, each undone (a savepoint) before the next role's try.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
import yaml
from django.db import transaction
from django.utils import timezone

from executions.models import PreviewJob, Result
from executions.tests.factories import finished_run
from rules.models import Check

pytestmark = pytest.mark.django_db
Y, N = True, False
# What a check's `permissions` lists for its owner (and admins), and for anyone else who sees it.
OWNER_RIGHTS, READER_RIGHTS = ["change", "delete", "run", "clone"], ["run", "clone"]
ROLES = ("member", "outsider", "admin")
CREATED, MOVED, RESTRICTED, DELETED, MOVED_DELETED, OWNED = (
    "as created",
    "moved to open B",
    "B restricted later",
    "A deleted",
    "moved, A deleted",
    "A owned by analysts",
)
SUGGESTED = "A profiled, a suggestion rejected"
MONITORED, MONITORED_OWNED, MONITORED_DELETED = (
    "A monitored",
    "A monitored, owned by analysts",
    "A monitored, then deleted",
)

MATRIX = [
    # scenario, request,                                         member, outsider, admin
    # --- sign-in: each revokes only their own token (accounts/tests/test_tokens.py) ----------------
    (CREATED, "POST /auth/token/revoke/", 204, 204, 204),
    # --- each reads only their own name and language (accounts/tests/test_language.py) ---------
    (CREATED, "GET /me/", 200, 200, 200),
    # --- a DolphinScheduler import maps only to datasources its user sees (imports/tests) -------
    (CREATED, "POST /imports/dolphinscheduler/ +ds_import_on_A", 200, 400, 200),
    # --- datasources -------------------------------------------------------------------------
    (CREATED, "GET /datasources/ lists A", Y, N, Y),
    (CREATED, "GET /datasources/{A}/", 200, 404, 200),
    (CREATED, "GET /datasources/{A}/tables/", 200, 404, 200),
    (CREATED, "GET /datasources/{A}/columns/?table=orders", 200, 404, 200),
    (CREATED, "POST /datasources/{A}/test/", 200, 404, 200),
    (CREATED, "POST /datasources/test/ +new_datasource", 403, 403, 200),  # a configuration tried before saving
    (CREATED, "GET /form-options/tables/?datasource={A}", 200, 404, 200),
    (CREATED, "GET /form-options/columns/?datasource={A}&table=orders", 200, 404, 200),
    (CREATED, "POST /datasources/ +new_datasource", 403, 403, 201),
    (CREATED, "PATCH /datasources/{A}/ +describe", 403, 403, 200),
    (CREATED, "PATCH /datasources/{A}/ +own_A", 403, 403, 200),  # owners are set by admins
    (CREATED, "DELETE /datasources/{A}/", 403, 403, 204),
    (CREATED, "GET /datasources/ lists B", Y, Y, Y),
    (RESTRICTED, "GET /datasources/{B}/", 200, 404, 200),
    (DELETED, "GET /datasources/ lists A", N, N, N),
    (DELETED, "GET /datasources/{A}/", 404, 404, 404),
    (DELETED, "GET /form-options/tables/?datasource={A}", 404, 404, 404),
    (DELETED, "DELETE /datasources/{A}/", 403, 403, 404),
    (DELETED, "POST /datasources/ +new_datasource_named_A", 403, 403, 201),
    # --- checks ------------------------------------------------------------------------------
    (CREATED, "GET /checks/ lists check", Y, N, Y),
    (CREATED, "GET /formula/?check_type=statistics_minus_comparison&operator=le&threshold=0", 200, 200, 200),
    # --- the row checks' editor: the caller must be allowed to use the datasource --------------
    (CREATED, "POST /row-checks/validate/ +row_checks_on_A", 200, 400, 200),
    (RESTRICTED, "POST /row-checks/validate/ +row_checks_on_B", 200, 400, 200),
    (DELETED, "POST /row-checks/validate/ +row_checks_on_A", 400, 400, 400),
    # refused before any job is queued (a queued preview answers 202; its worker is tested end to end)
    (CREATED, "POST /row-checks/preview/ +row_checks_on_A", 202, 400, 202),
    (DELETED, "POST /row-checks/preview/ +row_checks_on_A", 400, 400, 400),
    # a preview job is its author's alone (the member's, here), administrators included
    (CREATED, "GET /row-checks/preview/{preview}/", 200, 404, 404),
    (CREATED, "GET /checks/{check}/", 200, 404, 200),
    (CREATED, "GET /checks/{check}/versions/ lists v1", Y, 404, Y),
    (CREATED, "GET /checks/{check}/history/ lists result_a", Y, 404, Y),
    (CREATED, "GET /checks/export/ lists check", Y, N, Y),
    (CREATED, "POST /checks/ +new_check_on_A", 201, 400, 201),
    (CREATED, "PATCH /checks/{check}/ +threshold", 200, 404, 200),
    (CREATED, "DELETE /checks/{check}/", 204, 404, 204),
    (CREATED, "POST /checks/import/ +import_on_A", 201, 400, 201),
    (CREATED, "POST /checks/import/ +import_on_B", 201, 403, 201),
    (CREATED, "GET /checks/{check}/upgrade/", 409, 404, 409),  # 409: already on the current template
    (CREATED, "POST /checks/{check}/upgrade/", 409, 404, 409),
    (CREATED, "POST /checks/{check}/clone/", 201, 404, 201),  # the clone is the caller's
    # 200 for all: each check's own answer says done or refused (rules/tests/test_check_team_api.py)
    (CREATED, "POST /checks/bulk/ +disable_check", 200, 200, 200),
    (MOVED, "GET /checks/ lists check", Y, Y, Y),
    (MOVED, "GET /checks/{check}/", 200, 200, 200),
    (MOVED, "GET /checks/{check}/versions/ lists v1", Y, N, Y),
    (MOVED, "GET /checks/{check}/versions/ lists v2", Y, Y, Y),
    (MOVED, "GET /checks/{check}/history/ lists result_a", Y, N, Y),
    (MOVED, "GET /checks/{check}/history/ lists result_b", Y, Y, Y),
    (MOVED, "GET /checks/export/ lists check", Y, Y, Y),
    (MOVED, "PATCH /checks/{check}/ +threshold", 200, 403, 200),
    (MOVED, "DELETE /checks/{check}/", 204, 403, 204),
    (MOVED, "POST /checks/import/ +import_on_B", 201, 403, 201),
    (MOVED, "GET /checks/{check}/upgrade/", 409, 409, 409),
    (MOVED, "POST /checks/{check}/upgrade/", 409, 403, 409),
    (MOVED, "POST /checks/{check}/clone/", 201, 201, 201),
    (MOVED, "GET /checks/{check}/ gives permissions", OWNER_RIGHTS, READER_RIGHTS, OWNER_RIGHTS),
    (RESTRICTED, "GET /checks/ lists check", Y, N, Y),
    (RESTRICTED, "GET /checks/{check}/", 200, 404, 200),
    (RESTRICTED, "GET /checks/{check}/versions/ lists v2", Y, 404, Y),
    (DELETED, "GET /checks/ lists check", Y, N, Y),
    (DELETED, "GET /checks/{check}/versions/ lists v1", Y, 404, Y),
    (DELETED, "GET /checks/{check}/history/ lists result_a", Y, 404, Y),
    (DELETED, "PATCH /checks/{check}/ +threshold", 400, 404, 400),  # it still names A: pick another
    (DELETED, "PATCH /checks/{check}/ +move_to_B", 200, 404, 200),
    (DELETED, "POST /checks/ +new_check_on_A", 400, 400, 400),
    (MOVED_DELETED, "GET /checks/{check}/versions/ lists v1", Y, N, Y),
    (MOVED_DELETED, "GET /checks/{check}/history/ lists result_a", Y, N, Y),
    # --- runs --------------------------------------------------------------------------------
    (CREATED, "GET /runs/ lists run_a", Y, N, Y),
    (CREATED, "GET /runs/?check={check} lists run_a", Y, N, Y),
    (CREATED, "GET /runs/{run_a}/", 200, 404, 200),
    (CREATED, "GET /runs/{run_a}/verdict/ gives marker", "DQ_VERDICT=PASSED", 404, "DQ_VERDICT=PASSED"),  # alert only
    (CREATED, "POST /runs/ +run_check", 202, 400, 202),
    (CREATED, "POST /runs/{run_a}/cancel/", 409, 404, 409),  # 409: it has ended
    (CREATED, "POST /runs/{run_a}/retry/", 202, 404, 202),
    (MOVED, "GET /runs/ lists run_a", Y, N, Y),
    (MOVED, "GET /runs/ lists run_b", Y, Y, Y),
    (MOVED, "GET /runs/{run_a}/", 200, 404, 200),
    (MOVED, "GET /runs/{run_b}/", 200, 200, 200),
    (MOVED, "POST /runs/ +run_check", 202, 202, 202),
    (MOVED, "POST /runs/{run_a}/retry/", 202, 404, 202),
    (MOVED, "POST /runs/{run_b}/retry/", 202, 403, 202),  # the outsider sees run_b but did not start it
    (RESTRICTED, "GET /runs/ lists run_b", Y, N, Y),
    (RESTRICTED, "GET /runs/{run_a}/", 200, 404, 200),
    (RESTRICTED, "GET /runs/{run_b}/", 200, 404, 200),
    (RESTRICTED, "POST /runs/ +run_check", 202, 400, 202),
    (DELETED, "GET /runs/ lists run_a", Y, N, Y),
    (DELETED, "GET /runs/{run_a}/", 200, 404, 200),
    (DELETED, "POST /runs/ +run_check", 400, 400, 400),  # a deleted datasource is not read any more
    (DELETED, "POST /runs/{run_a}/retry/", 400, 404, 400),
    (MOVED_DELETED, "GET /runs/{run_a}/", 200, 404, 200),
    (MOVED_DELETED, "GET /runs/{run_b}/", 200, 200, 200),
    (MOVED_DELETED, "POST /runs/ +run_check", 202, 202, 202),
    # --- results and their error rows --------------------------------------------------------
    (CREATED, "GET /results/ lists result_a", Y, N, Y),
    (CREATED, "GET /results/?check={check} lists result_a", Y, N, Y),
    (CREATED, "GET /results/?run={run_a} lists result_a", Y, N, Y),
    (CREATED, "GET /results/{result_a}/", 200, 404, 200),
    (CREATED, "GET /results/{result_a}/error-rows/", 200, 404, 200),
    (CREATED, "GET /results/{result_a}/error-rows.csv", 200, 404, 200),
    (MOVED, "GET /results/ lists result_a", Y, N, Y),
    (MOVED, "GET /results/ lists result_b", Y, Y, Y),
    (MOVED, "GET /results/?check={check} lists result_a", Y, N, Y),
    (MOVED, "GET /results/{result_a}/", 200, 404, 200),
    (MOVED, "GET /results/{result_a}/error-rows/", 200, 404, 200),
    (MOVED, "GET /results/{result_a}/error-rows.csv", 200, 404, 200),
    (MOVED, "GET /results/{result_b}/error-rows/", 200, 200, 200),
    (RESTRICTED, "GET /results/{result_b}/", 200, 404, 200),
    (RESTRICTED, "GET /results/{result_b}/error-rows/", 200, 404, 200),
    (RESTRICTED, "GET /results/{result_b}/error-rows.csv", 200, 404, 200),
    (DELETED, "GET /results/ lists result_a", Y, N, Y),
    (DELETED, "GET /results/{result_a}/error-rows/", 200, 404, 200),
    (DELETED, "GET /results/{result_a}/error-rows.csv", 200, 404, 200),
    (MOVED_DELETED, "GET /results/{result_a}/error-rows/", 200, 404, 200),
    (MOVED_DELETED, "GET /results/{result_a}/error-rows.csv", 200, 404, 200),
    (MOVED_DELETED, "GET /results/{result_b}/error-rows/", 200, 200, 200),
    # --- the dashboard -----------------------------------------------------------------------
    (CREATED, "GET /results/latest/ lists result_a", Y, N, Y),
    (CREATED, "GET /results/summary/ gives results", 1, 0, 1),
    (CREATED, "GET /results/summary/ gives runs", 1, 0, 1),
    (CREATED, "GET /results/summary/ gives checks", 1, 0, 1),
    (MOVED, "GET /results/latest/ lists result_b", Y, Y, Y),
    (MOVED, "GET /results/summary/ gives results", 2, 1, 2),
    (MOVED, "GET /results/summary/ gives runs", 2, 1, 2),
    (RESTRICTED, "GET /results/latest/ lists result_b", Y, N, Y),
    (RESTRICTED, "GET /results/summary/ gives results", 2, 0, 2),
    (DELETED, "GET /results/latest/ lists result_a", Y, N, Y),
    (DELETED, "GET /results/summary/ gives results", 1, 0, 1),
    (MOVED_DELETED, "GET /results/summary/ gives results", 2, 1, 2),
    # --- schedules, alert channels, incidents, notifications, mutes (watching/) ----------------
    (CREATED, "GET /schedules/ lists schedule", Y, N, Y),
    (CREATED, "GET /schedules/{schedule}/", 200, 404, 200),
    (CREATED, "GET /schedules/preview/?cron=0+2+*+*+*", 200, 200, 200),
    (CREATED, "POST /schedules/ +new_schedule", 201, 400, 201),
    (CREATED, "PATCH /schedules/{schedule}/ +pause", 200, 404, 200),
    (CREATED, "DELETE /schedules/{schedule}/", 204, 404, 204),
    (MOVED, "GET /schedules/{schedule}/", 200, 200, 200),  # a schedule is configuration, not data
    (MOVED, "PATCH /schedules/{schedule}/ +pause", 200, 403, 200),
    (RESTRICTED, "GET /schedules/ lists schedule", Y, N, Y),
    (CREATED, "GET /alert-channels/ lists channel", Y, Y, Y),  # without their targets
    (CREATED, "GET /alert-channels/{channel}/", 200, 200, 200),
    (CREATED, "POST /alert-channels/ +new_channel", 403, 403, 201),
    (CREATED, "PATCH /alert-channels/{channel}/ +rename", 403, 403, 200),
    (CREATED, "DELETE /alert-channels/{channel}/", 403, 403, 204),
    (CREATED, "POST /alert-channels/{channel}/test/", 403, 403, 200),
    (CREATED, "GET /incidents/ lists incident", Y, N, Y),
    (CREATED, "GET /incidents/{incident}/", 200, 404, 200),
    (CREATED, "POST /incidents/{incident}/acknowledge/", 200, 404, 200),
    (CREATED, "POST /incidents/{incident}/resolve/ +note", 200, 404, 200),
    (CREATED, "POST /incidents/{incident}/resolve/ +empty_note", 400, 404, 400),
    (CREATED, "PATCH /incidents/{incident}/ +assign_member", 200, 404, 200),
    (CREATED, "GET /incidents/{incident}/assignees/", 200, 404, 200),
    (CREATED, "POST /incidents/{incident}/comments/ +comment", 201, 404, 201),
    (CREATED, "GET /muted-checks/?run={run_a}", 200, 404, 200),
    (MOVED, "PATCH /incidents/{incident}/ +assign_member", 200, 404, 200),
    (MOVED, "POST /incidents/{incident}/comments/ +comment", 201, 404, 201),
    (MOVED, "GET /incidents/ lists incident", Y, N, Y),  # it shows result_a's numbers
    (MOVED, "GET /incidents/{incident}/", 200, 404, 200),
    (DELETED, "GET /incidents/{incident}/", 200, 404, 200),
    (CREATED, "GET /notifications/ lists notification", Y, N, Y),
    (CREATED, "GET /notifications/{notification}/", 200, 404, 200),
    (MOVED, "GET /notifications/ lists notification", Y, N, Y),  # it tells of run_a
    (MOVED_DELETED, "GET /notifications/{notification}/", 200, 404, 200),
    (CREATED, "GET /checks/{check}/mute/", 200, 404, 200),
    # --- integrations: an admin's, limited to A; its reports are read with the run -------------
    (CREATED, "GET /integrations/ lists integration", Y, N, Y),
    (CREATED, "GET /integrations/{integration}/", 200, 404, 200),
    (CREATED, "POST /integrations/ +new_integration", 403, 403, 201),
    (CREATED, "PATCH /integrations/{integration}/ +rename", 403, 403, 200),
    (CREATED, "DELETE /integrations/{integration}/", 403, 403, 204),
    (CREATED, "POST /integrations/{integration}/test/", 403, 403, 200),
    (CREATED, "GET /integration-deliveries/ lists delivery", Y, N, Y),
    (CREATED, "GET /integration-deliveries/{delivery}/", 200, 404, 200),
    (MOVED, "GET /integration-deliveries/ lists delivery", Y, N, Y),  # it tells of run_a
    (DELETED, "GET /integrations/{integration}/", 200, 404, 200),
    # --- anomaly detection's feedback: read with the result; given by those who handle incidents --
    (CREATED, "GET /checks/{check}/false-alarms/", 200, 404, 200),
    (CREATED, "GET /results/{result_a}/feedback/", 200, 404, 200),
    # result_a was judged by a fixed value, not by anomaly detection: a 400 for those who may give it
    (CREATED, "POST /results/{result_a}/feedback/ +feedback_expected", 400, 404, 400),
    (CREATED, "POST /checks/{check}/mute/ +mute", 200, 404, 200),
    (CREATED, "POST /checks/{check}/mute/ +long_mute", 400, 404, 400),  # beyond DQ_MUTE_MAX_DAYS
    (CREATED, "DELETE /checks/{check}/mute/", 204, 404, 204),
    (MOVED, "POST /checks/{check}/mute/ +mute", 200, 403, 200),
    # --- batches and the gate (gates/): who reads a batch follows its datasource ---------------
    (CREATED, "GET /batches/ lists batch", Y, N, Y),
    (CREATED, "GET /batches/{batch}/", 200, 404, 200),
    (CREATED, "POST /batches/ +new_batch_on_A", 201, 400, 201),
    # releases and re-validations: the datasource's owners and admins, not all who may read it
    (CREATED, "POST /batches/{batch}/release/ +release", 403, 404, 200),
    (CREATED, "POST /batches/{batch}/release/ +long_release", 403, 404, 400),  # beyond DQ_RELEASE_MAX_DAYS
    (CREATED, "POST /batches/{batch}/revalidate/", 403, 404, 202),
    (OWNED, "POST /batches/{batch}/release/ +release", 200, 404, 200),
    (OWNED, "POST /batches/{batch}/revalidate/", 202, 404, 202),
    (CREATED, "GET /gate/?datasource={A}&table=orders&partition=status:paid gives may_consume", N, 400, N),
    (CREATED, "GET /gated-table/?datasource={A}&table=orders gives fail_mode", "fail_closed", 404, "fail_closed"),
    (MOVED, "GET /batches/{batch}/", 200, 404, 200),  # the batch read A, wherever the check went
    (
        MOVED,
        "GET /gate/?datasource=restricted&table=orders&partition=status:paid gives state",
        "quarantined",
        400,
        "quarantined",
    ),
    (RESTRICTED, "GET /batches/ lists batch", Y, N, Y),
    (DELETED, "GET /batches/{batch}/", 200, 404, 200),
    (DELETED, "POST /batches/ +new_batch_on_A", 400, 400, 400),
    (DELETED, "POST /batches/{batch}/release/ +release", 403, 404, 200),  # only admins write on a deleted one
    (DELETED, "POST /batches/{batch}/revalidate/", 403, 404, 400),  # its checks read A: nothing to run
    # --- table monitors (monitors/): seen with the datasource, switched by its owners and admins ---
    (MONITORED, "GET /monitors/ lists monitor", Y, N, Y),
    (MONITORED, "GET /monitors/?datasource={A}&table=orders lists monitor", Y, N, Y),
    (MONITORED, "GET /monitors/{monitor}/", 200, 404, 200),
    (MONITORED, "POST /monitors/ +new_monitor_on_A", 403, 400, 201),
    (MONITORED, "PATCH /monitors/{monitor}/ +pause", 403, 404, 200),
    (MONITORED, "DELETE /monitors/{monitor}/", 403, 404, 204),
    (MONITORED_OWNED, "POST /monitors/ +new_monitor_on_A", 201, 400, 201),
    (MONITORED_OWNED, "PATCH /monitors/{monitor}/ +pause", 200, 404, 200),
    (MONITORED_OWNED, "DELETE /monitors/{monitor}/", 204, 404, 204),
    (MONITORED_DELETED, "GET /monitors/{monitor}/", 200, 404, 200),
    (MONITORED_DELETED, "POST /monitors/ +new_monitor_on_A", 400, 400, 400),
    # --- table profiles: as readable as their datasource's data --------------------------------
    (CREATED, "GET /profiles/ lists profile", Y, N, Y),
    (CREATED, "GET /profiles/?datasource={A} lists profile", Y, 404, Y),
    (CREATED, "GET /profiles/{profile}/", 200, 404, 200),
    (CREATED, "GET /profiles/{profile}/changes/", 200, 404, 200),
    (CREATED, "POST /profiles/ +profile_A", 202, 404, 202),
    (CREATED, "POST /profiles/ +profile_B", 202, 202, 202),
    (RESTRICTED, "GET /profiles/ lists profile", Y, N, Y),
    (DELETED, "GET /profiles/{profile}/", 200, 404, 200),  # the data stays as readable as it was
    (DELETED, "POST /profiles/ +profile_A", 404, 404, 404),  # a deleted datasource is not profiled
    # --- suggested checks: from the profile, by those who may use its datasource ----------------
    (SUGGESTED, "GET /suggestions/?datasource={A}&table=orders", 200, 404, 200),
    (SUGGESTED, "POST /suggestions/accept/ +accept_suggestion", 201, 404, 201),
    (SUGGESTED, "POST /suggestions/reject/ +reject_suggestion", 201, 404, 201),
    (SUGGESTED, "GET /suggestions/rejected/?datasource={A}&table=orders", 200, 404, 200),
    (SUGGESTED, "DELETE /suggestions/rejected/{rejected}/", 204, 404, 204),
    # --- health: scores of the checks and results each may see, on datasources each may use ----
    (CREATED, "GET /health/ gives tables_with_checks", 1, 0, 1),
    (CREATED, "GET /health/datasources/{A}/ gives tables_with_checks", 1, 404, 1),
    (CREATED, "GET /health/tables/?datasource={A}&table=orders gives tables_with_checks", 1, 404, 1),
    (CREATED, "POST /health/datasources/{A}/catalog/", 200, 404, 200),
    (MOVED, "GET /health/ gives tables_with_checks", 1, 1, 1),
    (RESTRICTED, "GET /health/datasources/{B}/ gives tables_with_checks", 1, 404, 1),
    (DELETED, "GET /health/datasources/{A}/", 404, 404, 404),
    (DELETED, "GET /health/ gives tables_with_checks", 0, 0, 0),
]


VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}
CHECK_NAME = "orders statuses"


def _import_yaml(datasource_name: str) -> str:
    params = {"src_datasource": datasource_name, "src_table": "orders", "src_field": "status", **VERDICT}
    return yaml.safe_dump({"version": 1, "checks": [{"name": CHECK_NAME, "template": "null_check", "params": params}]})


def _in_days(days: int) -> str:
    return (timezone.now() + timedelta(days=days)).isoformat()


# Request bodies, by the name a row gives after "+"; built from the world's ids.
BODIES = {
    "new_datasource": lambda w: {"name": "another", "type": "file", "format": "parquet", "path": w.files},
    "new_datasource_named_A": lambda w: {"name": "restricted", "type": "file", "format": "parquet", "path": w.files},
    "describe": lambda w: {"description": "orders, copied nightly"},
    "new_check_on_A": lambda w: {
        "name": "another check",
        "template": "null_check",
        "params": {"src_datasource_id": w.ids["A"], "src_table": "orders", "src_field": "status", **VERDICT},
    },
    "threshold": lambda w: {"params": {"threshold": 7}},
    "move_to_B": lambda w: {"params": {"src_datasource_id": w.ids["B"]}},
    "import_on_A": lambda w: _import_yaml("restricted"),
    "import_on_B": lambda w: _import_yaml("open"),
    "run_check": lambda w: {"checks": [w.ids["check"]]},
    "disable_check": lambda w: {"action": "disable", "checks": [w.ids["check"]]},
    "new_schedule": lambda w: {"name": "another schedule", "cron": "0 3 * * *", "checks": [w.ids["check"]]},
    "pause": lambda w: {"enabled": False},
    # .invalid never resolves: the target passes the inside-address check and nothing is sent.
    "new_channel": lambda w: {"name": "another channel", "kind": "webhook", "target": "http://hooks.invalid:9/hook"},
    "rename": lambda w: {"name": "renamed channel"},
    "new_integration": lambda w: {"name": "another integration", "kind": "dagster", "url": "https://dagster.invalid/"},
    "note": lambda w: {"note": "known; the loader is fixed"},
    "empty_note": lambda w: {"note": ""},
    "assign_member": lambda w: {"assignee": "author", "severity": "high"},
    "comment": lambda w: {"text": "the loader ran twice"},
    "mute": lambda w: {"until": _in_days(1), "reason": "maintenance"},
    "feedback_expected": lambda w: {"verdict": "expected"},
    "long_mute": lambda w: {"until": "2099-01-01T00:00:00Z", "reason": "maintenance"},
    "new_batch_on_A": lambda w: {"datasource": w.ids["A"], "table": "orders", "partition": {"status": "void"}},
    "release": lambda w: {"reason": "month end", "expires_at": _in_days(1)},
    "long_release": lambda w: {"reason": "month end", "expires_at": "9999-12-31T00:00:00Z"},
    "own_A": lambda w: {"owner_groups": ["analysts"]},
    "new_monitor_on_A": lambda w: {"datasource": w.ids["A"], "table": "orders", "kinds": ["volume", "schema"]},
    "row_checks_on_A": lambda w: {
        "checks_yaml": "checks: [status == paid]",
        "src_datasource_id": w.ids["A"],
        "src_table": "orders",
    },
    "profile_A": lambda w: {"datasource": w.ids["A"], "table": "orders"},
    "ds_import_on_A": lambda w: {"export": _ds_export(), "datasource_map": {"1": w.ids["A"]}, "dry_run": True},
    "accept_suggestion": lambda w: {"datasource": w.ids["A"], "table": "orders", "fingerprint": w.ids["suggested"]},
    "reject_suggestion": lambda w: {"datasource": w.ids["A"], "table": "orders", "fingerprint": w.ids["suggested"]},
    "profile_B": lambda w: {"datasource": w.ids["B"], "table": "orders"},
    "row_checks_on_B": lambda w: {
        "checks_yaml": "checks: [status == paid]",
        "src_datasource_id": w.ids["B"],
        "src_table": "orders",
    },
}


def _ds_export() -> list[dict]:
    """A DolphinScheduler workflow export holding one null check on its datasource 1."""
    params = {
        "src_connector_type": 0,
        "src_datasource_id": 1,
        "src_table": "orders",
        "src_field": "status",
        "check_type": "0",
        "operator": "4",
        "threshold": "0",
        "failure_strategy": "0",
        "comparison_type": 1,
        "comparison_name": "0",
    }
    task = {
        "code": 1,
        "name": "status present",
        "taskType": "DATA_QUALITY",
        "taskParams": {"ruleId": 1, "ruleInputParameter": params, "localParams": []},
    }
    return [{"processDefinition": {"code": 9, "name": "orders"}, "taskDefinitionList": [task], "schedule": None}]


@dataclass
class World:
    users: dict[str, Any]
    clients: dict[str, Any]
    files: str
    error_rows: Any
    ids: dict[str, int] = field(default_factory=dict)

    def call(self, role: str, method: str, path: str, body=None):
        client = self.clients[role]
        url = "/api/v1" + path.format(**self.ids)
        if isinstance(body, str):
            return client.generic(method, url, body, content_type="application/yaml")
        return getattr(client, method.lower())(url, body, format="json")

    def must(self, role: str, method: str, path: str, body, status: int) -> dict:
        response = self.call(role, method, path, body)
        assert response.status_code == status, (method, path, response.content[:500])
        return response.json() if response.content else {}

    def run_check(self, key: str) -> None:
        """A finished run of the check as it is now, with one failed result and error rows."""
        run = finished_run([Check.objects.get(pk=self.ids["check"])], self.users["member"], self.error_rows)
        self.ids[f"run_{key}"] = run.pk
        self.ids[f"result_{key}"] = Result.objects.get(run=run).pk


@pytest.fixture
def world(cast, api_as, parquet_dir, make_datasource, tmp_path, settings) -> World:
    settings.DQ_ERROR_DATA_ROOT = tmp_path / "error-data"
    settings.DQ_PREVIEW_TIMEOUT = 1  # no worker here: a queued preview's message expires at once
    users = {"member": cast.author, "outsider": cast.outsider, "admin": cast.admin}
    common = {"type": "file", "format": "parquet", "path": str(parquet_dir)}
    world = World(users, {role: api_as(user) for role, user in users.items()}, str(parquet_dir), tmp_path / "errors")
    world.ids["A"] = make_datasource(name="restricted", allowed_groups=[cast.analysts], **common).pk
    world.ids["B"] = make_datasource(name="open", **common).pk
    check = world.must("member", "POST", "/checks/", {**BODIES["new_check_on_A"](world), "name": CHECK_NAME}, 201)
    world.ids["check"] = check["id"]
    world.run_check("a")
    world.ids["preview"] = PreviewJob.objects.create(owner=users["member"]).pk
    _watch(world)
    _integrate(world)
    _gate(world)
    _profile(world)
    return world


def _profile(world: World) -> None:
    """A done profile of A's orders (made directly: profiling is tested in profiling/tests)."""
    from profiling.models import Profile

    profile = Profile.objects.create(
        datasource_id=world.ids["A"],
        table="orders",
        status=Profile.Status.DONE,
        document=PROFILE_OF_ORDERS,
        requested_by=world.users["member"],
    )
    world.ids["profile"] = profile.pk


# What a profile of the orders file says (order_id 1, 2, 3; status paid, NULL, void).
PROFILE_OF_ORDERS = {
    "version": 1,
    "engine": "duckdb",
    "profiled_at": "2026-12-01T00:00:00Z",
    "row_count": 3,
    "sample": {"rows": 3, "method": "full", "fraction": None, "row_guard": 1000000},
    "columns": [
        {
            "name": "order_id",
            "type": "BIGINT",
            "kind": "number",
            "rows": 3,
            "nulls": 0,
            "null_share": 0.0,
            "distinct": 3,
            "distinct_exact": True,
            "min": 1,
            "max": 3,
            "mean": 2.0,
            "stddev": 1.0,
            "sum": 6,
        }
    ],
}


def _suggest(world: World) -> None:
    """The admin reads the suggestions of A's orders and rejects the last one."""
    suggestions = world.must("admin", "GET", f"/suggestions/?datasource={world.ids['A']}&table=orders", None, 200)
    offered = suggestions["suggestions"]
    assert len(offered) >= 2, offered
    world.ids["suggested"] = offered[0]["fingerprint"]
    body = {"datasource": world.ids["A"], "table": "orders", "fingerprint": offered[-1]["fingerprint"]}
    world.ids["rejected"] = world.must("admin", "POST", "/suggestions/reject/", body, 201)["id"]


def _gate(world: World) -> None:
    """A quarantined batch of A's orders (made directly: validation is tested in gates/tests)."""
    from gates.models import Batch

    batch = Batch.objects.create(
        datasource_id=world.ids["A"],
        table="orders",
        partition={"status": "paid"},
        biz_date="2026-11-29",
        state=Batch.State.QUARANTINED,
        policy_state=Batch.State.QUARANTINED,
        reason="Quarantined: blocking check 'orders statuses' failed.",
    )
    world.ids["batch"] = batch.pk


def _watch(world: World) -> None:
    """A schedule of the member's, an admin's alert channel, the incident run_a's failure opened
    and the message it sent (made directly: the alerting itself is tested in watching/tests)."""
    from watching.models import AlertChannel, Incident, Notification

    schedule = world.must("member", "POST", "/schedules/", {**BODIES["new_schedule"](world), "name": "nightly"}, 201)
    world.ids["schedule"] = schedule["id"]
    channel = AlertChannel(name="team hook", kind="webhook", notify_on=["fail", "error"])
    channel.target = "http://127.0.0.1:9/hook"  # nothing listens: a test send answers ok=false
    channel.save()
    world.ids["channel"] = channel.pk
    result = Result.objects.get(pk=world.ids["result_a"])
    incident = Incident.objects.create(
        rule_check_id=world.ids["check"], outcome="fail", first_result=result, last_result=result
    )
    world.ids["incident"] = incident.pk
    notification = Notification.objects.create(
        channel=channel,
        channel_name=channel.name,
        channel_kind=channel.kind,
        run_id=world.ids["run_a"],
        subject="1 check failed",
        body="orders statuses failed",
    )
    notification.incidents.add(incident)
    world.ids["notification"] = notification.pk


def _integrate(world: World) -> None:
    """An admin's Dagster integration limited to A and its report of run_a (made directly: the
    reporting itself is tested in integrations/tests)."""
    from integrations.models import Delivery, Integration

    integration = Integration.objects.create(name="dagster", kind="dagster", url="http://127.0.0.1:9/prod")
    integration.datasources.set([world.ids["A"]])  # nothing listens (and loopback is refused): ok=false
    world.ids["integration"] = integration.pk
    world.ids["delivery"] = Delivery.objects.create(
        integration=integration,
        integration_name=integration.name,
        kind="dagster",
        event="result",
        run_id=world.ids["run_a"],
        result_id=world.ids["result_a"],
        status="sent",
    ).pk


def _move(world: World) -> None:
    world.must("member", "PATCH", "/checks/{check}/", BODIES["move_to_B"](world), 200)
    world.run_check("b")


def _restrict_b(world: World) -> None:
    world.must("admin", "PATCH", "/datasources/{B}/", {"allowed_groups": ["analysts"]}, 200)


def _delete_a(world: World) -> None:
    world.must("admin", "DELETE", "/datasources/{A}/", None, 204)


def _monitor_a(world: World) -> None:
    """An admin's monitor of A's orders."""
    world.ids["monitor"] = world.must("admin", "POST", "/monitors/", BODIES["new_monitor_on_A"](world), 201)["id"]


def _own_a(world: World) -> None:
    world.must("admin", "PATCH", "/datasources/{A}/", BODIES["own_A"](world), 200)


SCENARIOS = {
    CREATED: [],
    MOVED: [_move],
    RESTRICTED: [_move, _restrict_b],
    DELETED: [_delete_a],
    MOVED_DELETED: [_move, _delete_a],
    OWNED: [_own_a],
    SUGGESTED: [_suggest],
    MONITORED: [_monitor_a],
    MONITORED_OWNED: [_monitor_a, _own_a],
    MONITORED_DELETED: [_monitor_a, _delete_a],
}
REQUEST = re.compile(
    r"^(?P<method>[A-Z]+) (?P<path>\S+)(?: \+(?P<body>\w+)| lists (?P<shown>\w+)| gives (?P<field>\w+))?$"
)


def _shown(world: World, body: Any, thing: str, text: str) -> bool:
    """Does a list answer show `thing` (an object of the world, or a check version "v1")?"""
    if isinstance(body, dict) and "results" in body:
        body = body["results"]  # a paged list: this page (the world is smaller than one)
    if thing == "check" and text.startswith(("version:", "checks:")):
        return CHECK_NAME in text  # the YAML export
    if thing.startswith("v"):
        return int(thing[1:]) in [version["number"] for version in body]
    wanted = world.ids[thing]
    return any(wanted in (item.get("id"), item.get("result")) for item in body)


def _outcome(world: World, role: str, request: str):
    match = REQUEST.match(request)
    assert match, f"Unreadable matrix request {request!r}"
    body = BODIES[match["body"]](world) if match["body"] else None
    response = world.call(role, match["method"], match["path"], body)
    if not (match["shown"] or match["field"]):
        return response.status_code
    if response.status_code != 200:
        return response.status_code
    if response["Content-Type"].startswith("application/yaml"):
        return _shown(world, None, match["shown"], response.content.decode())
    if match["field"]:
        return response.json()[match["field"]]
    return _shown(world, response.json(), match["shown"], "")


@pytest.mark.parametrize(
    ("scenario", "request_text", "expected"),
    [pytest.param(s, r, dict(zip(ROLES, cells, strict=True)), id=f"{s} | {r}") for s, r, *cells in MATRIX],
)
def test_each_role_gets_what_the_matrix_says(world, scenario, request_text, expected):
    for step in SCENARIOS[scenario]:
        step(world)
    got = {}
    for role in ROLES:
        with transaction.atomic():  # a write by one role is undone before the next role tries
            got[role] = _outcome(world, role, request_text)
            transaction.set_rollback(True)
    assert got == expected, f"{scenario} | {request_text}: expected {expected}, got {got}"


def test_the_matrix_covers_every_endpoint_of_the_api():
    """A new endpoint must get its row: every API path of the router appears in the matrix."""
    from django.urls import get_resolver

    tried = {re.sub(r"\{\w+\}", "{id}", REQUEST.match(r)["path"].split("?")[0]).rstrip("/") for _, r, *_ in MATRIX}
    api = get_resolver().url_patterns
    paths = set()

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, route)
            else:
                paths.add(route)

    walk(api, "")
    endpoints = set()
    for route in paths:
        if not route.startswith("api/v1/") or "format" in route or route.endswith("auth/token/"):
            continue
        route = route.removeprefix("api/v1/").lstrip("^").rstrip("$")
        route = re.sub(r"\(\?P<\w+>[^)]*\)|<\w+:\w+>|<\w+>", "{id}", route)
        endpoints.add("/" + route.rstrip("/"))
    missing = sorted(endpoints - tried - {path.rstrip("/") for path in NOT_ABOUT_DATA})
    assert not missing, f"Endpoints with no row in MATRIX: {missing}"


# Endpoints that expose no datasource's data (the shared catalog of templates and comparison types).
NOT_ABOUT_DATA = {
    "/rule-templates/",
    "/rule-templates/{id}/",
    "/rule-templates/{id}/form/",
    "/comparison-types/",
    "/comparison-types/{id}/",
}


def test_the_restricted_rows_reach_the_member_and_never_the_outsider(world):
    """What the 200s and 404s above protect, after the check moved and A was deleted: the rows
    run_a found in the restricted datasource."""
    _move(world)
    _delete_a(world)
    member = world.call("member", "GET", "/results/{result_a}/error-rows/")
    assert "restricted row" in str(member.json()["rows"])
    csv_download = world.call("member", "GET", "/results/{result_a}/error-rows.csv")
    assert b"restricted row" in b"".join(csv_download.streaming_content)
    for path in ("/results/{result_a}/error-rows/", "/results/{result_a}/error-rows.csv"):
        response = world.call("outsider", "GET", path)
        assert response.status_code == 404 and b"restricted row" not in response.content
