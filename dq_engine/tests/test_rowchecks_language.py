"""check.yaml parsed to its full form: every example of the language, and broken inputs whose problems
name the line, the entry and the field."""

from __future__ import annotations

import pytest

from dq_engine.rowchecks import RuleSetInvalid, parse_rule_set

SEED_SHORT = r"""checks:
- foobar ~= ^v\d{1,2}$
- foobar01 >= 10
- foobar02 in ('foo', 'bar')
"""

SEED_FULL = """checks:
  - name: foobar_check
    type: check  # default
    fn: maxLen
    fileds:
      - foobar
    args:
      - 255
  - fn: notNullIfSet
    fields:
      - foobar01
      - foobar02
  - type: chain
    clause: all
    checks:
      - fn: eq
        negate: false
        fields:
          - payment_type
        args:
          - CRD
      - type: chain
        clause: any
        checks:
          - fn: in
            fields:
              - status_id
            args:
              - 10
              - 30
          - fn: gt
            fields:
              - price
            args:
              - 0
"""


def _check(name, fn, fields, args, negate=False, critical=False):
    return {
        "type": "check",
        "name": name,
        "fn": fn,
        "negate": negate,
        "fields": fields,
        "args": args,
        "critical": critical,
    }


def _problems(text: str) -> list[str]:
    with pytest.raises(RuleSetInvalid) as caught:
        parse_rule_set(text)
    return [str(problem) for problem in caught.value.problems]


def test_the_seed_s_short_form_expands_with_generated_names():
    assert parse_rule_set(SEED_SHORT).checks == [
        _check("check-foobar-re", "re", ["foobar"], [r"^v\d{1,2}$"]),
        _check("check-foobar01-ge", "ge", ["foobar01"], [10]),
        _check("check-foobar02-in", "in", ["foobar02"], ["foo", "bar"]),
    ]


def test_the_seed_s_full_form_expands_its_nested_chains_and_tolerates_the_fileds_typo():
    rule_set = parse_rule_set(SEED_FULL)

    assert rule_set.checks == [
        _check("foobar_check", "maxLen", ["foobar"], [255]),
        _check("check-foobar01-foobar02-notNullIfSet", "notNullIfSet", ["foobar01", "foobar02"], []),
        {
            "type": "chain",
            "name": "chain-all-3",
            "clause": "all",
            "negate": False,
            "critical": False,
            "checks": [
                _check("check-payment_type-eq", "eq", ["payment_type"], ["CRD"]),
                {
                    "type": "chain",
                    "name": "chain-any-2",
                    "clause": "any",
                    "negate": False,
                    "critical": False,
                    "checks": [
                        _check("check-status_id-in", "in", ["status_id"], [10, 30]),
                        _check("check-price-gt", "gt", ["price"], [0]),
                    ],
                },
            ],
        },
    ]
    assert [str(w) for w in rule_set.warnings] == [
        "line 5: checks[0].fileds: `fileds` read as `fields`; please fix the spelling."
    ]


def test_short_forms_read_every_operator_and_literal():
    text = """checks:
  - code like '%wtf'
  - a == CRD
  - b != 'it''s'
  - c > 1.5
  - d < -2
  - e <= 3
  - "f in (1, 'two, three', true)"
  - "`odd name` ~= '^x$'"
"""
    checks = parse_rule_set(text).checks
    assert [(c["fields"], c["fn"], c["args"]) for c in checks] == [
        (["code"], "like", ["%wtf"]),
        (["a"], "eq", ["CRD"]),
        (["b"], "ne", ["it's"]),
        (["c"], "gt", [1.5]),
        (["d"], "lt", [-2]),
        (["e"], "le", [3]),
        (["f"], "in", [1, "two, three", True]),
        (["odd name"], "re", ["^x$"]),
    ]


def test_negate_critical_and_names_are_kept_in_the_full_form():
    text = """checks:
  - name: not_test_data
    fn: like
    negate: true
    critical: true
    fields: [email]
    args: ['%@test.%']
  - type: chain
    name: priced
    clause: any
    negate: true
    checks: [price > 0, price < -10]
"""
    first, chain = parse_rule_set(text).checks
    assert first == _check("not_test_data", "like", ["email"], ["%@test.%"], negate=True, critical=True)
    assert (chain["name"], chain["negate"], chain["clause"]) == ("priced", True, "any")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("checks:\n  - amount >= 0\n  - code =~ ^v\n", "line 3: checks[1]: unknown operator `=~`; did you mean `~=`?"),
        ("checks:\n  - amount ge 0\n", "line 2: checks[0]: unknown operator `ge`; did you mean `>=`?"),
        (
            "checks:\n  - fn: maxlen\n    fields: [a]\n    args: [3]\n",
            "line 2: checks[0].fn: unknown function `maxlen`; did you mean `maxLen`?",
        ),
        (
            "checks:\n  - fn: maxLen\n    fields: [a]\n    args: [-1]\n",
            "line 4: checks[0].args: `maxLen` takes one whole number ≥ 0 (the length); got [-1].",
        ),
        (
            "checks:\n  - fn: notNull\n",
            "line 2: checks[0].fields: `fields:` is missing; list the column(s) the check reads.",
        ),
        (
            "checks:\n  - fn: notNullIfSet\n    fields: [a]\n",
            "line 2: checks[0].fields: `notNullIfSet` needs at least two fields (when one is set, all must be).",
        ),
        (
            "checks:\n  - type: chain\n    clause: some\n    checks: [a > 1]\n",
            "line 3: checks[0].clause: `clause:` must be one of any, all; got 'some'.",
        ),
        (
            "checks:\n  - type: chain\n    clause: all\n    checks:\n      - a > 1\n      - b in 1, 2\n",
            "line 6: checks[0].checks[1]: `in` takes a list in parentheses, e.g. `b in (1, 2)`; got `1, 2`.",
        ),
        (
            "checks:\n  - a >= 1\n  - a >= 2\n",
            "line 3: checks[1].name: The name `check-a-ge` is already used by checks[0]; names must be unique "
            "(they are what _dq_failed_checks lists). Give one of them a `name:`.",
        ),
        (
            "checks:\n  - fn: re\n    fields: [a]\n    args: ['(unclosed']\n",
            "line 4: checks[0].args: not a valid regular expression: missing ), unterminated subpattern at position 0.",
        ),
        (
            "checks:\n  - fn: eq\n    fields: [a]\n    clause: any\n",
            "line 4: checks[0].clause: unknown key `clause` for a check; nested checks belong to a chain: add `type: chain`.",
        ),
        ("checks:\n  - a >= 1\n   bad: [\n", "line 3: Not valid YAML: mapping values are not allowed here."),
        ("rules:\n  - a >= 1\n", "line 1: Expected a mapping with a `checks:` list, e.g. `checks: [amount >= 0]`."),
    ],
)
def test_a_broken_rule_set_names_the_line_entry_and_field_of_each_problem(text, expected):
    assert expected in _problems(text)


def test_every_problem_of_a_rule_set_is_reported_at_once():
    text = "checks:\n  - a =~ x\n  - b >= 1\n  - fn: nope\n    fields: [c]\n"
    assert [p.split(":")[0] for p in _problems(text)] == ["line 2", "line 4"]
