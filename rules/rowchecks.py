"""check.yaml (and contract.yaml) validated for the platform: the engine's parser (dq_engine.rowchecks)
plus what only the platform knows, the live catalog's columns of the table.

Used by param validation (rules/params.py: the `check_yaml` value type), the validate/preview API
(executions/row_checks.py) and, through them, the browser's YAML editor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext as _

from dq_engine.rowchecks import Problem, RuleSetInvalid, parse_rule_set
from dq_engine.rowchecks.language import fields_by_entry
from executions.stored_words import reworded

CHECKS, CONTRACT = "checks", "contract"


def rule_set_problems(
    text: Any, columns: list[str] | None, language: str | None = CHECKS
) -> tuple[list[Problem], list[Problem], list[dict[str, Any]]]:
    """(problems, warnings, full form): the text's own problems, then the fields the table lacks
    (matched exactly or by a unique case-insensitive name, as the engines resolve them). `columns`
    None: the table is unknown, only the text is checked. Messages in the request's language."""
    if language == CONTRACT:
        from dq_engine.rowchecks.contract import ContractInvalid, parse_contract

        try:
            contract = parse_contract(text)
        except ContractInvalid as exc:
            return _localized(exc.problems), [], []
        return [], [], contract
    try:
        rule_set = parse_rule_set(text)
    except RuleSetInvalid as exc:
        return _localized(exc.problems), _localized(exc.warnings), []
    problems = [] if columns is None else _unknown_fields(rule_set, columns)
    return problems, _localized(rule_set.warnings), rule_set.checks


def problem_text(problem: Problem) -> str:
    """One problem as a field message ("line 3: checks[0].fn: …") in the request's language."""
    return reworded(str(problem))


def _localized(problems: list[Problem]) -> list[Problem]:
    """The engine words its problems in English (dq_engine/words.py); the reader reads theirs."""
    return [replace(problem, message=reworded(problem.message)) for problem in problems]


def _unknown_fields(rule_set, columns: list[str]) -> list[Problem]:
    exact, folded = set(columns), {}
    for column in columns:
        folded.setdefault(column.casefold(), []).append(column)
    problems = []
    for path, field in fields_by_entry(rule_set.checks):
        if field in exact or len(folded.get(field.casefold(), [])) == 1:
            continue
        shown = ", ".join(columns[:20]) + (" …" if len(columns) > 20 else "")
        problems.append(
            Problem(
                _("unknown column `%(column)s`; the table has: %(columns)s.") % {"column": field, "columns": shown},
                rule_set.lines.get(path),
                path,
                "fields",
            )
        )
    return problems
