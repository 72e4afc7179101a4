"""check.yaml → its full form, every name expanded, or the problems with their lines.

The language (README, "Row-level rules: check.yaml"):

    checks:
      - amount >= 0                       # short form: field, operator, value
      - status in ('paid', 'void')
      - name: code_shape                  # full form
        fn: re
        fields: [code]
        args: ['^v\\d{1,2}$']
        negate: false                     # optional
        critical: true                    # optional: a failure on any row blocks
      - type: chain                       # a chain is ONE counted check of nested checks
        clause: any                       # any | all
        checks: [...]

Every entry comes out as the full form:
`{"type": "check", "name", "fn", "negate", "fields", "args", "critical"}` or
`{"type": "chain", "name", "clause", "negate", "critical", "checks": [...]}`. A check's default name
is `check-{field}-{fn}` (fields joined by `-`), a chain's `chain-{clause}-{position}` (1-based
position in its list). Top-level names must be unique: they are the names `_dq_failed_checks` lists.

Problems name the line, the entry (`checks[2].checks[0]`, 0-based as in JSON paths) and the field.
The seed's own `fileds` typo is read as `fields`, with a warning.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from dq_engine.rowchecks.located import Located, YamlError, load
from dq_engine.safe_yaml import AT_LINE
from dq_engine.words import fragment, gettext_noop, noun, say

# fn name → (short-form spelling or None, what its args are)
OPERATORS = {
    "re": "~=",
    "like": "like",
    "eq": "==",
    "ne": "!=",
    "gt": ">",
    "lt": "<",
    "ge": ">=",
    "le": "<=",
    "in": "in",
}
FUNCTIONS = ("maxLen", "minLen", "notNull", "notNullIfSet")
FNS = (*OPERATORS, *FUNCTIONS)
SHORT_OPERATORS = {spelling: fn for fn, spelling in OPERATORS.items()}
# Spellings people type for an operator this language spells otherwise: suggested, never accepted.
_LOOKALIKES = {
    "=~": "~=",
    "=": "==",
    "<>": "!=",
    "=>": ">=",
    "=<": "<=",
    "~": "~=",
    "rlike": "~=",
    "regexp": "~=",
    **OPERATORS,  # `amount ge 0`: the full form's name where the short form wants its symbol
}
CHECK_KEYS = ("type", "name", "fn", "negate", "fields", "args", "critical")
CHAIN_KEYS = ("type", "name", "clause", "negate", "critical", "checks")
CLAUSES = ("any", "all")
MAX_DEPTH = 16  # chains nest; this deep is a mistake, not a rule set

# The messages (dq_engine/words.py: the platform translates them).
A_CHECK = noun(gettext_noop("check"))
A_CHAIN = noun(gettext_noop("chain"))
AT_LINE_WHERE = gettext_noop("line %(line)s: %(where)s: %(message)s")
NOT_YAML_TEXT = gettext_noop("The checks must be YAML text with a `checks:` list.")
EXPECTED_MAPPING = gettext_noop("Expected a mapping with a `checks:` list, e.g. `checks: [amount >= 0]`.")
UNKNOWN_TOP_KEY = gettext_noop("Unknown key `%(key)s`; a check.yaml holds only `checks:`.")
CHECKS_NOT_LIST = gettext_noop("`checks:` must be a non-empty list of checks.")
NAME_USED = gettext_noop(
    "The name `%(name)s` is already used by %(other)s; names must be unique (they are what _dq_failed_checks "
    "lists). Give one of them a `name:`."
)
TOO_DEEP = gettext_noop("Chains nest at most %(depth)s deep.")
NOT_A_CHECK = gettext_noop("A check is a text like `amount >= 0` or a mapping with `fn:` and `fields:`.")
FILEDS = gettext_noop("`fileds` read as `fields`; please fix the spelling.")
FN_MISSING = gettext_noop("`fn:` is missing; use one of %(names)s.")
FN_IS_A_NAME = gettext_noop("`fn` is a name: write `%(name)s`, not `%(value)s`.")
UNKNOWN_FUNCTION = gettext_noop("unknown function `%(name)s`%(hint)s")
FIELDS_MISSING = gettext_noop("`fields:` is missing; list the column(s) the check reads.")
FIELDS_NOT_LIST = gettext_noop("`fields:` must be a list of column names.")
FIELDS_TWICE = gettext_noop("`fields:` lists a column twice.")
NOT_A_FLAG = gettext_noop("`%(key)s:` must be true or false; got %(value)s.")
BAD_NAME = gettext_noop("`name:` must be a non-empty text of at most 200 characters without commas.")
KEY_MISSING = gettext_noop("`%(key)s:` is missing; use one of %(names)s.")
NOT_ONE_OF = gettext_noop("`%(key)s:` must be one of %(names)s; got %(value)s%(hint)s")
DID_YOU_MEAN = fragment(gettext_noop("; did you mean `%(name)s`?"), "hint")
USE_ONE_OF = fragment(gettext_noop("; use one of %(names)s."), "hint")
NESTED_IN_CHAIN = fragment(gettext_noop("; nested checks belong to a chain: add `type: chain`."), "hint")
CHAIN_HOLDS_CHECKS = fragment(gettext_noop("; a chain holds `checks:`, each with its own fn and fields."), "hint")
UNKNOWN_KEY = gettext_noop("unknown key `%(key)s` for a %(what)s%(hint)s")
CHAIN_NEEDS_CHECKS = gettext_noop("A chain needs `checks:`, a non-empty list of checks.")
CRITICAL_TOP_LEVEL = gettext_noop("`critical:` counts only on a top-level entry; set it on the chain.")
NOT_SHORT_FORM = gettext_noop(
    "`%(text)s` is not `field operator value`, e.g. `amount >= 0` or `status in ('paid', 'void')`."
)
UNKNOWN_OPERATOR = gettext_noop("unknown operator `%(name)s`%(hint)s")
NO_VALUE = gettext_noop("`%(text)s` has no value after `%(operator)s`.")
IN_NEEDS_LIST = gettext_noop("`in` takes a list in parentheses, e.g. `%(field)s in (1, 2)`; got `%(value)s`.")
IN_EMPTY = gettext_noop("`in ()` lists no values.")
LIST_UNREADABLE = gettext_noop("Cannot read the list `(%(text)s)`; separate values with commas.")
LIST_EMPTY_VALUE = gettext_noop("The list `(%(text)s)` has an empty value.")
TOO_LARGE = gettext_noop("`%(token)s` is too large a number (it would be infinite); infinity is not a valid bound.")
TAKES_PATTERN = gettext_noop("`%(fn)s` takes one non-empty text argument (the pattern).")
TAKES_MASK = gettext_noop("`%(fn)s` takes one non-empty text argument (the mask).")
BAD_REGEX = gettext_noop("not a valid regular expression: %(error)s.")
TAKES_FINITE = gettext_noop("`%(fn)s` takes a finite number; infinity and NaN are not valid bounds.")
TAKES_ONE_VALUE = gettext_noop("`%(fn)s` takes exactly one value (a number, a text, true or false); got %(args)s.")
IN_FINITE = gettext_noop("`in` takes finite numbers; infinity and NaN are not valid values.")
IN_VALUES = gettext_noop("`in` takes a non-empty list of values (numbers, texts, true or false).")
TAKES_LENGTH = gettext_noop("`%(fn)s` takes one whole number ≥ 0 (the length); got %(args)s.")
TAKES_NO_ARGS = gettext_noop("`%(fn)s` takes no args; got %(args)s.")
NOT_NULL_IF_SET_FIELDS = gettext_noop("`notNullIfSet` needs at least two fields (when one is set, all must be).")


@dataclass(frozen=True)
class Problem:
    """One problem (or warning) of a check.yaml: where it is and what to do."""

    message: str
    line: int | None = None
    entry: str = ""  # checks[2].checks[0]; "" for the document itself
    field: str = ""  # fn, args, fields, ...

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "entry": self.entry, "field": self.field, "message": self.message}

    def __str__(self) -> str:
        where = ".".join(part for part in (self.entry, self.field) if part)
        if not self.line:
            return f"{where}: {self.message}" if where else self.message
        if where:
            return say(AT_LINE_WHERE, line=self.line, where=where, message=self.message)
        return say(AT_LINE, line=self.line, message=self.message)


class RuleSetInvalid(ValueError):
    def __init__(self, problems: list[Problem], warnings: list[Problem] | None = None):
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems
        self.warnings = warnings or []


@dataclass(frozen=True)
class RuleSet:
    checks: list[dict[str, Any]]  # the full form
    warnings: list[Problem]
    lines: dict[str, int] = field(default_factory=dict)  # entry path (checks[2].checks[0]) → its line

    @property
    def names(self) -> list[str]:
        return [check["name"] for check in self.checks]


def parse_rule_set(text: Any) -> RuleSet:
    """The full form of a check.yaml text; RuleSetInvalid listing every problem found."""
    if not isinstance(text, str):
        raise RuleSetInvalid([Problem(say(NOT_YAML_TEXT))])
    try:
        document = load(text)
    except YamlError as exc:
        raise RuleSetInvalid([Problem(str(exc), exc.line)]) from None
    reader = _Reader()
    checks = reader.document(document)
    if reader.problems:
        raise RuleSetInvalid(reader.problems, reader.warnings)
    return RuleSet(checks=checks, warnings=reader.warnings, lines=reader.lines)


def expand(text: Any) -> list[dict[str, Any]]:
    """check.yaml text → the full form (what a job spec's `row_rules` metric carries). Raises
    RuleSetInvalid. A list is taken as an already expanded full form and returned as it is."""
    if isinstance(text, list):
        return text
    return parse_rule_set(text).checks


def fields_used(checks: list[dict[str, Any]]) -> list[str]:
    """Every field the full form reads, in first-use order (checked against the catalog)."""
    seen: dict[str, None] = {}
    for check in checks:
        if check["type"] == "chain":
            seen.update(dict.fromkeys(fields_used(check["checks"])))
        else:
            seen.update(dict.fromkeys(check["fields"]))
    return list(seen)


def fields_by_entry(checks: list[dict[str, Any]], path: str = "checks") -> list[tuple[str, str]]:
    """(entry path, field) for every field the full form reads, nested entries included."""
    found = []
    for index, check in enumerate(checks):
        where = f"{path}[{index}]"
        if check["type"] == "chain":
            found += fields_by_entry(check["checks"], f"{where}.checks")
        else:
            found += [(where, name) for name in check["fields"]]
    return found


def default_name(fields: list[str], fn: str) -> str:
    return "check-" + "-".join([*fields, fn])


class _Reader:
    def __init__(self):
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.lines: dict[str, int] = {}

    def problem(self, message: str, line: int | None, entry: str = "", field: str = "") -> None:
        self.problems.append(Problem(message, line, entry, field))

    def document(self, document: Located | None) -> list[dict[str, Any]]:
        if document is None or not isinstance(document.value, dict) or "checks" not in document.value:
            line = document.line if document is not None else 1
            self.problem(say(EXPECTED_MAPPING), line)
            return []
        unknown = [key for key in document.value if key != "checks"]
        for key in unknown:
            self.problem(say(UNKNOWN_TOP_KEY, key=key), document.value[key].line)
        entries = document.value["checks"]
        if not isinstance(entries.value, list) or not entries.value:
            self.problem(say(CHECKS_NOT_LIST), entries.line, "checks")
            return []
        checks = self.entries(entries.value, "checks", depth=0)
        self.unique_names(checks, entries.value, "checks")
        return [check for check in checks if check is not None]

    def entries(self, items: list[Located], path: str, depth: int) -> list[dict[str, Any] | None]:
        """One full-form check per item, None where the item is broken (its problems are recorded)."""
        return [self.entry(item, f"{path}[{index}]", index + 1, depth) for index, item in enumerate(items)]

    def unique_names(self, checks: list[dict[str, Any] | None], items: list[Located], path: str) -> None:
        seen: dict[str, int] = {}
        for index, (check, item) in enumerate(zip(checks, items, strict=True)):
            if check is None:
                continue
            name = check["name"]
            if name in seen:
                self.problem(
                    say(NAME_USED, name=name, other=f"{path}[{seen[name]}]"),
                    item.line,
                    f"{path}[{index}]",
                    "name",
                )
            else:
                seen[name] = index

    def entry(self, item: Located, path: str, position: int, depth: int) -> dict[str, Any] | None:
        self.lines[path] = item.line
        if depth > MAX_DEPTH:
            self.problem(say(TOO_DEEP, depth=MAX_DEPTH), item.line, path)
            return None
        if isinstance(item.value, str):
            return self.short_form(item, path)
        if not isinstance(item.value, dict):
            self.problem(say(NOT_A_CHECK), item.line, path)
            return None
        mapping = dict(item.value)
        if "fileds" in mapping and "fields" not in mapping:
            mapping["fields"] = mapping.pop("fileds")
            line = (item.key_lines or {}).get("fileds", item.line)
            self.warnings.append(Problem(say(FILEDS), line, path, "fileds"))
        kind = self.choice(mapping, "type", ("check", "chain"), path, item.line, default="check")
        if kind == "chain":
            return self.chain(mapping, item, path, position, depth)
        if kind == "check":
            return self.check(mapping, item, path)
        return None

    # --- one check ------------------------------------------------------------------------------
    def check(self, mapping: dict[str, Located], item: Located, path: str) -> dict[str, Any] | None:
        count = len(self.problems)
        self.unknown_keys(mapping, CHECK_KEYS, path, A_CHECK)
        fn = self.fn(mapping.get("fn"), path, item.line)
        fields = self.fields(mapping.get("fields"), path, item.line)
        negate = self.flag(mapping, "negate", path)
        critical = self.flag(mapping, "critical", path)
        name = self.name(mapping, path)
        if len(self.problems) > count or fn is None or fields is None:
            return None
        args = self.args(fn, fields, mapping.get("args"), path, item.line)
        if args is None:
            return None
        return {
            "type": "check",
            "name": name or default_name(fields, fn),
            "fn": fn,
            "negate": negate,
            "fields": fields,
            "args": args,
            "critical": critical,
        }

    def fn(self, located: Located | None, path: str, line: int) -> str | None:
        if located is None:
            self.problem(say(FN_MISSING, names=", ".join(FNS)), line, path, "fn")
            return None
        value = located.value
        if value in FNS:
            return value
        if value in SHORT_OPERATORS:  # `fn: '>='`: the seed says fn is a name, not an expression
            self.problem(say(FN_IS_A_NAME, name=SHORT_OPERATORS[value], value=value), located.line, path, "fn")
            return None
        self.problem(say(UNKNOWN_FUNCTION, name=value, hint=_did_you_mean(value, FNS)), located.line, path, "fn")
        return None

    def fields(self, located: Located | None, path: str, line: int) -> list[str] | None:
        if located is None:
            self.problem(say(FIELDS_MISSING), line, path, "fields")
            return None
        items = located.value if isinstance(located.value, list) else [located]
        names = [item.value for item in items]
        if not names or not all(isinstance(n, str) and n.strip() for n in names):
            self.problem(say(FIELDS_NOT_LIST), located.line, path, "fields")
            return None
        if len(set(names)) != len(names):
            self.problem(say(FIELDS_TWICE), located.line, path, "fields")
            return None
        return [n.strip() for n in names]

    def args(self, fn: str, fields: list[str], located: Located | None, path: str, line: int) -> list[Any] | None:
        raw = [] if located is None else located.plain()
        where = located.line if located is not None else line
        if not isinstance(raw, list):
            raw = [raw]
        message = _args_problem(fn, fields, raw)
        if message:
            self.problem(message, where, path, "fields" if fn == "notNullIfSet" and not raw else "args")
            return None
        return raw

    def flag(self, mapping: dict[str, Located], key: str, path: str) -> bool:
        located = mapping.get(key)
        if located is None:
            return False
        if not isinstance(located.value, bool):
            self.problem(say(NOT_A_FLAG, key=key, value=repr(located.value)), located.line, path, key)
            return False
        return located.value

    def name(self, mapping: dict[str, Located], path: str) -> str | None:
        located = mapping.get("name")
        if located is None:
            return None
        value = located.value
        if not isinstance(value, str) or not value.strip() or "," in value or len(value) > 200:
            self.problem(
                say(BAD_NAME),
                located.line,
                path,
                "name",
            )
            return None
        return value.strip()

    def choice(
        self, mapping: dict[str, Located], key: str, allowed: tuple[str, ...], path: str, line: int, default=None
    ) -> str | None:
        located = mapping.get(key)
        if located is None:
            if default is None:
                self.problem(say(KEY_MISSING, key=key, names=", ".join(allowed)), line, path, key)
            return default
        if located.value not in allowed:
            self.problem(
                say(
                    NOT_ONE_OF,
                    key=key,
                    names=", ".join(allowed),
                    value=repr(located.value),
                    hint=say(DID_YOU_MEAN, name=_close(str(located.value), allowed))
                    if _close(str(located.value), allowed)
                    else ".",
                ),
                located.line,
                path,
                key,
            )
            return None
        return located.value

    def unknown_keys(self, mapping: dict[str, Located], allowed: tuple[str, ...], path: str, what: str) -> None:
        for key, located in mapping.items():
            if key not in allowed:
                hint = ""
                if what == A_CHECK and key in ("clause", "checks"):
                    hint = say(NESTED_IN_CHAIN)
                elif what == A_CHAIN and key in ("fn", "fields", "args"):
                    hint = say(CHAIN_HOLDS_CHECKS)
                else:
                    hint = _did_you_mean(key, allowed)
                self.problem(say(UNKNOWN_KEY, key=key, what=what, hint=hint), located.line, path, key)

    # --- a chain --------------------------------------------------------------------------------
    def chain(
        self, mapping: dict[str, Located], item: Located, path: str, position: int, depth: int
    ) -> dict[str, Any] | None:
        count = len(self.problems)
        self.unknown_keys(mapping, CHAIN_KEYS, path, A_CHAIN)
        clause = self.choice(mapping, "clause", CLAUSES, path, item.line)
        negate = self.flag(mapping, "negate", path)
        critical = self.flag(mapping, "critical", path)
        name = self.name(mapping, path)
        nested = mapping.get("checks")
        if nested is None or not isinstance(nested.value, list) or not nested.value:
            line = nested.line if nested is not None else item.line
            self.problem(say(CHAIN_NEEDS_CHECKS), line, path, "checks")
            return None
        checks = self.entries(nested.value, f"{path}.checks", depth + 1)
        for check, located in zip(checks, nested.value, strict=True):
            if check is not None and check.get("critical"):
                self.warnings.append(
                    Problem(
                        say(CRITICAL_TOP_LEVEL),
                        located.line,
                        path,
                        "checks",
                    )
                )
        if len(self.problems) > count or clause is None or None in checks:
            return None
        return {
            "type": "chain",
            "name": name or f"chain-{clause}-{position}",
            "clause": clause,
            "negate": negate,
            "critical": critical,
            "checks": checks,
        }

    # --- the short form -------------------------------------------------------------------------
    def short_form(self, item: Located, path: str) -> dict[str, Any] | None:
        try:
            field, fn, args = parse_short(item.value)
        except ValueError as exc:
            self.problem(str(exc), item.line, path)
            return None
        message = _args_problem(fn, [field], args)
        if message:
            self.problem(message, item.line, path)
            return None
        return {
            "type": "check",
            "name": default_name([field], fn),
            "fn": fn,
            "negate": False,
            "fields": [field],
            "args": args,
            "critical": False,
        }


# --- the short form's grammar: `field operator value` -------------------------------------------
_FIELD = r"(?P<field>`[^`]+`|\"[^\"]+\"|[^\s~=!<>]+)"
_SYMBOL = re.compile(_FIELD + r"\s*(?P<op>~=|==|!=|>=|<=|>|<)\s*(?P<value>.*)$", re.S)
_WORD = re.compile(_FIELD + r"\s+(?P<op>like|in)\s+(?P<value>.*)$", re.S | re.I)
_ANY_OPERATOR = re.compile(_FIELD + r"\s*(?P<op>[~=!<>]+|[A-Za-z]+)\s*(?P<value>.*)$", re.S)
_TOKEN = re.compile(r"\s*('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[^,]+?)\s*(?:,|$)")


def parse_short(text: str) -> tuple[str, str, list[Any]]:
    """`foobar02 in ('foo', 'bar')` → ("foobar02", "in", ["foo", "bar"]); ValueError saying what is wrong."""
    text = text.strip()
    match = _SYMBOL.match(text) or _WORD.match(text)
    if match is None:
        other = _ANY_OPERATOR.match(text)
        if other is None or not other.group("value").strip():
            raise ValueError(say(NOT_SHORT_FORM, text=text))
        spelling = other.group("op")
        suggestion = _LOOKALIKES.get(spelling.lower()) or _close(spelling, list(SHORT_OPERATORS))
        hint = say(DID_YOU_MEAN, name=suggestion) if suggestion else say(USE_ONE_OF, names=" ".join(SHORT_OPERATORS))
        raise ValueError(say(UNKNOWN_OPERATOR, name=spelling, hint=hint))
    field = _unquote_identifier(match.group("field"))
    fn = SHORT_OPERATORS[match.group("op").lower()]
    value = match.group("value").strip()
    if not value:
        raise ValueError(say(NO_VALUE, text=text, operator=match.group("op")))
    if fn == "re":
        return field, fn, [_unquote(value) if _quoted(value) else value]
    if fn == "in":
        if not (value.startswith("(") and value.endswith(")")) and not (value.startswith("[") and value.endswith("]")):
            raise ValueError(say(IN_NEEDS_LIST, field=field, value=value))
        return field, fn, _list_values(value[1:-1])
    return field, fn, [_literal(value)]


def _list_values(text: str) -> list[Any]:
    if not text.strip():
        raise ValueError(say(IN_EMPTY))
    values, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(say(LIST_UNREADABLE, text=text))
        token = match.group(1)
        if not token:
            raise ValueError(say(LIST_EMPTY_VALUE, text=text))
        values.append(_literal(token))
        position = match.end()
    return values


def _literal(token: str) -> Any:
    """A short-form value: 'quoted' or "quoted" text, a number, true/false, or a bare word as text."""
    token = token.strip()
    if _quoted(token):
        return _unquote(token)
    if token.lower() in ("true", "false"):
        return token.lower() == "true"
    try:
        number = Decimal(token)
    except InvalidOperation:
        return token
    if not number.is_finite():
        return token
    if number == number.to_integral_value() and "." not in token and "e" not in token.lower():
        return int(number)
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(say(TOO_LARGE, token=token))
    return value


def _quoted(token: str) -> bool:
    return len(token) >= 2 and token[0] == token[-1] and token[0] in "'\""


def _unquote(token: str) -> str:
    quote = token[0]
    return token[1:-1].replace(quote * 2, quote)


def _unquote_identifier(token: str) -> str:
    return token[1:-1] if len(token) >= 2 and token[0] == token[-1] and token[0] in '`"' else token


# --- args per function --------------------------------------------------------------------------
def _args_problem(fn: str, fields: list[str], args: list[Any]) -> str | None:
    if fn in ("re", "like"):
        if len(args) != 1 or not isinstance(args[0], str) or not args[0]:
            return say(TAKES_PATTERN if fn == "re" else TAKES_MASK, fn=fn)
        if fn == "re":
            try:
                re.compile(args[0])
            except re.error as exc:
                return say(BAD_REGEX, error=exc)
        return None
    if fn in ("eq", "ne", "gt", "lt", "ge", "le"):
        if len(args) == 1 and _not_finite(args[0]):
            return say(TAKES_FINITE, fn=fn)
        if len(args) != 1 or not _scalar(args[0]):
            return say(TAKES_ONE_VALUE, fn=fn, args=repr(args))
        return None
    if fn == "in":
        if any(_not_finite(a) for a in args):
            return say(IN_FINITE)
        if not args or not all(_scalar(a) for a in args):
            return say(IN_VALUES)
        return None
    if fn in ("maxLen", "minLen"):
        if len(args) != 1 or isinstance(args[0], bool) or not isinstance(args[0], int) or args[0] < 0:
            return say(TAKES_LENGTH, fn=fn, args=repr(args))
        return None
    if args:
        return say(TAKES_NO_ARGS, fn=fn, args=repr(args))
    if fn == "notNullIfSet" and len(fields) < 2:
        return say(NOT_NULL_IF_SET_FIELDS)
    return None


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) and not _not_finite(value)


def _not_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _close(word: str, candidates: list[str] | tuple[str, ...]) -> str | None:
    folded = {c.lower(): c for c in candidates}
    if word.lower() in folded:
        return folded[word.lower()]
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.5)
    return found[0] if found else None


def _did_you_mean(word: str, candidates) -> str:
    suggestion = _close(word, candidates)
    return say(DID_YOU_MEAN, name=suggestion) if suggestion else say(USE_ONE_OF, names=", ".join(candidates))
