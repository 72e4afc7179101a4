"""A row_level_check in the job spec: its own check (the invalid rows, with marked error rows) plus
one spec check per top-level rule (that rule's failed rows), all on the same batch.

Every one of them is a row-level metric, so the engines fuse them into the batch's ONE aggregate
pass like any conditional count, with no engine knowing about rule sets; the platform reads the
per-rule counts back into the result's `details.checks` (executions/recording.py, the preview).
"""

from __future__ import annotations

from typing import Any

from dq_engine.rowchecks.contract import NULLS_IN_COLUMN
from dq_engine.words import say

DETAIL_SEPARATOR = "#"  # spec check id of a rule: "<check id>#<rule position>"


def with_rule_checks(check: dict[str, Any]) -> list[dict[str, Any]]:
    """The spec check of a row_rules metric followed by one spec check per top-level rule; a check of
    any other kind (or whose rules are not a parsed full form) alone."""
    metric = check.get("metric") or {}
    if metric.get("kind") == "schema_contract":
        return [check] + _null_checks(check)
    rules = metric.get("rules")
    if metric.get("kind") != "row_rules" or not isinstance(rules, list):
        return [check]
    return [check] + [
        {
            **check,
            "id": f"{check['id']}{DETAIL_SEPARATOR}{position}",
            "name": f"{check['name']} / {rule['name']}",
            "metric": {**metric, "rule": rule["name"]},
            "error_rows": False,
        }
        for position, rule in enumerate(rules)
    ]


def rule_details(check_id: str, rules: Any, outcomes: dict[str, Any]) -> list[dict[str, Any]]:
    """`[{"name", "failed_rows", "critical"}]` of a row_rules check from the result document's
    checks (failed_rows None, with the engine's message, for a rule that could not be counted)."""
    if not isinstance(rules, list):
        return []
    details = []
    for position, rule in enumerate(rules):
        outcome = outcomes.get(f"{check_id}{DETAIL_SEPARATOR}{position}") or {}
        counted = outcome.get("status") == "ok" and outcome.get("statistic") is not None
        detail = {
            "name": rule["name"],
            "failed_rows": int(outcome["statistic"]) if counted else None,
            "critical": bool(rule.get("critical")),
        }
        if not counted:
            detail["message"] = outcome.get("message") or "The engine did not count this check."
        details.append(detail)
    return details


def critical_failures(details: list[dict[str, Any]]) -> list[str]:
    """The critical checks that failed on at least one row: any makes the result block."""
    return [d["name"] for d in details if d["critical"] and (d["failed_rows"] or 0) > 0]


def _null_checks(check: dict[str, Any]) -> list[dict[str, Any]]:
    """A schema contract's NULL counts, one spec check per non-nullable column."""
    contract = check["metric"].get("contract")
    if not isinstance(contract, dict):
        return []
    return [
        {
            **check,
            "id": f"{check['id']}{DETAIL_SEPARATOR}{position}",
            "name": f"{check['name']} / NULLs in {column['name']}",
            "metric": {**check["metric"], "nulls_of": column["name"]},
            "error_rows": False,
        }
        for position, column in enumerate(contract["columns"])
        if not column["nullable"]
    ]


def contract_details(check_id: str, contract: Any, outcomes: dict[str, Any]) -> dict[str, Any]:
    """`{"violations": [...]}` of a schema contract: the schema's findings, then each non-nullable
    column holding NULLs with its NULL rows."""
    main = outcomes.get(check_id) or {}
    violations = list(main.get("findings") or [])
    if not isinstance(contract, dict):
        return {"violations": violations}
    for position, column in enumerate(contract["columns"]):
        if column["nullable"]:
            continue
        outcome = outcomes.get(f"{check_id}{DETAIL_SEPARATOR}{position}") or {}
        count = outcome.get("statistic")
        if outcome.get("status") == "ok" and count:
            violations.append(say(NULLS_IN_COLUMN, name=column["name"], count=int(count)))
    return {"violations": violations}
