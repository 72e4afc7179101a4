"""contract.yaml → its full form, and
its violations on a batch as dialect-neutral SQLGlot.

    strict: true                 # optional: columns the contract does not list are violations
    columns:
      - name: order_id
        type: integer            # string integer decimal float number boolean date timestamp binary
        nullable: false          # default true: NULLs are a violation when false
        required: true           # default true: a missing column is a violation

Violations (the statistic counts them): a missing required column, a column of another type, a
non-nullable column holding NULLs (one violation per column; its NULL rows are counted in the
details), and with `strict` each extra column. The type and presence violations are known from the
batch's schema; the NULL counts join the batch's one aggregate pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from dq_engine.rowchecks.language import DID_YOU_MEAN, USE_ONE_OF, Problem, _close
from dq_engine.rowchecks.located import Located, YamlError, load
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, STRING, TIMESTAMP, ColumnRef, is_null
from dq_engine.words import gettext_noop, say

TYPES = ("string", "integer", "decimal", "float", "number", "boolean", "date", "timestamp", "binary")
COLUMN_KEYS = ("name", "type", "nullable", "required")

# The messages (dq_engine/words.py: the platform translates them).
NOT_YAML_TEXT = gettext_noop("The contract must be YAML text with a `columns:` list.")
EXPECTED_MAPPING = gettext_noop("Expected a mapping with a `columns:` list (and optionally `strict:`).")
UNKNOWN_TOP_KEY = gettext_noop("Unknown key `%(key)s`; a contract holds `columns:` and `strict:`.")
NOT_A_FLAG = gettext_noop("`%(key)s:` must be true or false.")
COLUMNS_NOT_LIST = gettext_noop("`columns:` must be a non-empty list of columns.")
LISTED_TWICE = gettext_noop("Column `%(name)s` is listed twice.")
NOT_A_COLUMN = gettext_noop("A column is a mapping with `name:` (and `type:`, `nullable:`, `required:`).")
UNKNOWN_COLUMN_KEY = gettext_noop("unknown key `%(key)s`%(hint)s")
NAME_MISSING = gettext_noop("`name:` is missing: the column's name.")
UNKNOWN_TYPE = gettext_noop("unknown type `%(kind)s`%(hint)s")
MISSING_COLUMN = gettext_noop("missing column %(name)s")
WRONG_TYPE = gettext_noop("column %(name)s is %(found)s, not %(wanted)s")
EXTRA_COLUMN = gettext_noop("extra column %(name)s")
NULLS_IN_COLUMN = gettext_noop("NULLs in non-nullable column %(name)s (%(count)s rows)")


class ContractInvalid(ValueError):
    def __init__(self, problems: list[Problem]):
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems


def parse_contract(text: Any) -> dict[str, Any]:
    """`{"strict": bool, "columns": [{"name", "type", "nullable", "required"}]}`; ContractInvalid."""
    if isinstance(text, dict):
        return text  # already the full form
    if not isinstance(text, str):
        raise ContractInvalid([Problem(say(NOT_YAML_TEXT))])
    try:
        document = load(text)
    except YamlError as exc:
        raise ContractInvalid([Problem(str(exc), exc.line)]) from None
    problems: list[Problem] = []
    if document is None or not isinstance(document.value, dict) or "columns" not in document.value:
        line = document.line if document is not None else 1
        raise ContractInvalid([Problem(say(EXPECTED_MAPPING), line)])
    for key, located in document.value.items():
        if key not in ("columns", "strict"):
            problems.append(Problem(say(UNKNOWN_TOP_KEY, key=key), located.line))
    strict = document.value.get("strict", Located(False, document.line))
    if not isinstance(strict.value, bool):
        problems.append(Problem(say(NOT_A_FLAG, key="strict"), strict.line, "", "strict"))
    items = document.value["columns"]
    if not isinstance(items.value, list) or not items.value:
        problems.append(Problem(say(COLUMNS_NOT_LIST), items.line, "columns"))
        raise ContractInvalid(problems)
    columns = [_column(item, f"columns[{i}]", problems) for i, item in enumerate(items.value)]
    seen: set[str] = set()
    for index, column in enumerate(columns):
        if column and column["name"] in seen:
            line = items.value[index].line
            problems.append(Problem(say(LISTED_TWICE, name=column["name"]), line, f"columns[{index}]", "name"))
        elif column:
            seen.add(column["name"])
    if problems:
        raise ContractInvalid(problems)
    return {"strict": bool(strict.value), "columns": columns}


def _column(item: Located, path: str, problems: list[Problem]) -> dict[str, Any] | None:
    if not isinstance(item.value, dict):
        problems.append(Problem(say(NOT_A_COLUMN), item.line, path))
        return None
    count = len(problems)
    for key, located in item.value.items():
        if key not in COLUMN_KEYS:
            hint = _close(key, COLUMN_KEYS)
            problems.append(
                Problem(
                    say(UNKNOWN_COLUMN_KEY, key=key, hint=say(DID_YOU_MEAN, name=hint) if hint else "."),
                    located.line,
                    path,
                    key,
                )
            )
    name = item.value.get("name")
    if name is None or not isinstance(name.value, str) or not name.value.strip():
        problems.append(Problem(say(NAME_MISSING), item.line, path, "name"))
    kind = item.value.get("type")
    if kind is not None and kind.value not in TYPES:
        hint = _close(str(kind.value), TYPES)
        problems.append(
            Problem(
                say(
                    UNKNOWN_TYPE,
                    kind=kind.value,
                    hint=say(DID_YOU_MEAN, name=hint) if hint else say(USE_ONE_OF, names=", ".join(TYPES)),
                ),
                kind.line,
                path,
                "type",
            )
        )
    flags = {}
    for key in ("nullable", "required"):
        located = item.value.get(key)
        if located is not None and not isinstance(located.value, bool):
            problems.append(Problem(say(NOT_A_FLAG, key=key), located.line, path, key))
        flags[key] = True if located is None else bool(located.value)
    if len(problems) > count:
        return None
    return {"name": name.value.strip(), "type": None if kind is None else kind.value, **flags}


# --- on a batch ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ContractCheck:
    violations: list[str]  # known from the schema: missing columns, wrong types, extras
    non_nullable: list[ColumnRef]  # present columns that must hold no NULL (counted in the pass)


def check_schema(contract: dict[str, Any], columns: Mapping[str, ColumnRef]) -> ContractCheck:
    found: list[str] = []
    non_nullable: list[ColumnRef] = []
    listed = set()
    for column in contract["columns"]:
        ref = _find(columns, column["name"])
        if ref is None:
            if column["required"]:
                found.append(say(MISSING_COLUMN, name=column["name"]))
            continue
        listed.add(ref.name)
        if column["type"] and not _has_type(ref, column["type"]):
            found.append(say(WRONG_TYPE, name=ref.name, found=ref.type_name or ref.category, wanted=column["type"]))
        if not column["nullable"]:
            non_nullable.append(ref)
    if contract.get("strict"):
        found += [say(EXTRA_COLUMN, name=name) for name in columns if name not in listed]
    return ContractCheck(found, non_nullable)


def violation_count(check: ContractCheck) -> exp.Expression:
    """The statistic: the schema's violations plus one per non-nullable column holding a NULL."""
    total: exp.Expression = exp.Literal.number(len(check.violations))
    for ref in check.non_nullable:
        holds_null = exp.GT(this=exp.CountIf(this=is_null(ref.sql)), expression=exp.Literal.number(0))
        term = exp.Case(ifs=[exp.If(this=holds_null, true=exp.Literal.number(1))], default=exp.Literal.number(0))
        total = exp.Add(this=total, expression=term)
    return total


def _find(columns: Mapping[str, ColumnRef], name: str) -> ColumnRef | None:
    if name in columns:
        return columns[name]
    matches = [ref for key, ref in columns.items() if key.casefold() == name.casefold()]
    return matches[0] if len(matches) == 1 else None


def _has_type(ref: ColumnRef, wanted: str) -> bool:
    simple = {"string": STRING, "boolean": BOOLEAN, "date": DATE, "timestamp": TIMESTAMP, "binary": BINARY}
    if wanted in simple:
        return ref.category == simple[wanted]
    if ref.category != NUMERIC:
        return False
    if wanted == "number":
        return True
    if ref.type is None:
        return False
    if wanted == "integer":
        return ref.type.is_type(*exp.DataType.INTEGER_TYPES)
    if wanted == "float":
        return ref.type.is_type(*exp.DataType.REAL_TYPES) and not ref.type.is_type(exp.DataType.Type.DECIMAL)
    return ref.type.is_type(exp.DataType.Type.DECIMAL, exp.DataType.Type.BIGDECIMAL)  # decimal
