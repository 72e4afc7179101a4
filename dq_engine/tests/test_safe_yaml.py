"""The bounded YAML reader: what a few hundred hostile bytes would cost is refused before it is
spent, each refusal naming its line; ordinary YAML reads as yaml.safe_load reads it."""

from __future__ import annotations

import pytest
import yaml

from dq_engine import safe_yaml
from dq_engine.rowchecks import RuleSetInvalid, parse_rule_set
from dq_engine.safe_yaml import Limits, YamlError, safe_load

# Nine levels of nine aliases: 9**9 (387 million) strings once expanded, from about 400 bytes.
BILLION_LAUGHS = "checks:\n  - &a ha\n" + "".join(
    f"  - &{chr(ord('b') + level)} [{', '.join(['*' + chr(ord('a') + level)] * 9)}]\n" for level in range(8)
)


@pytest.fixture
def constructed(monkeypatch):
    """Every node the reader builds into a Python value, in order."""
    built = []
    original = safe_yaml._BoundedLoader.construct_object

    def spy(self, node, deep=False):
        built.append(node)
        return original(self, node, deep=deep)

    monkeypatch.setattr(safe_yaml._BoundedLoader, "construct_object", spy)
    return built


def test_ordinary_yaml_reads_as_safe_load_reads_it():
    text = "checks:\n  - amount >= 0\n  - name: n\n    args: [1, 2.5, true, ~, 'x']\n"
    assert safe_load(text) == yaml.safe_load(text)


def test_a_billion_laughs_is_refused_at_its_first_anchor_and_nothing_is_built(constructed):
    assert len(BILLION_LAUGHS.encode()) < 420
    with pytest.raises(YamlError) as refused:
        safe_load(BILLION_LAUGHS)
    assert refused.value.line == 2
    assert str(refused.value) == "YAML anchors (`&a`) are not accepted; write the value out where it is used."
    assert constructed == []


def test_an_alias_alone_is_refused_naming_its_line(constructed):
    with pytest.raises(YamlError) as refused:
        safe_load("a: 1\nb: *x\n")
    # PyYAML reports an undefined alias as a syntax error; either way, line 2 and nothing built.
    assert refused.value.line == 2 and constructed == []


@pytest.mark.parametrize("depth", [65, 500, 100_000])
def test_nesting_deeper_than_the_limit_is_refused_naming_the_line(depth, constructed):
    text = "checks:\n  - " + "[" * depth + "]" * depth + "\n"
    with pytest.raises(YamlError) as refused:
        safe_load(text)
    assert str(refused.value) == "The YAML nests deeper than 64 levels." and refused.value.line == 2
    assert constructed == []


def test_nesting_up_to_the_limit_reads():
    text = "[" * 64 + "]" * 64
    value = safe_load(text)
    for _ in range(63):
        (value,) = value
    assert value == []


def test_more_values_than_the_limit_are_refused():
    text = "[" + ", ".join(["1"] * 101) + "]"
    with pytest.raises(YamlError, match="more than 100 values"):
        safe_load(text, Limits(max_nodes=100))
    assert len(safe_load(text, Limits(max_nodes=102))) == 101


def test_text_longer_than_the_limit_is_refused_in_utf8_bytes():
    text = "a: " + "é" * 600  # 1,203 bytes in UTF-8, 603 characters
    with pytest.raises(YamlError, match="The YAML is 1,203 bytes; at most 1,000 are accepted."):
        safe_load(text, Limits(max_bytes=1000))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\nb: x\x00y\n", "The text holds a NUL character (U+0000), which YAML does not allow; remove it."),
        ("a: 1\nb: \ud800\n", "The text holds a lone surrogate (U+D800), which is not valid Unicode text; remove it."),
        ("a: 1\nb: \x1b[31m\n", "The text holds the control character U+001B, which YAML does not allow; remove it."),
    ],
)
def test_characters_yaml_does_not_allow_are_refused_naming_their_line(text, message):
    with pytest.raises(YamlError) as refused:
        safe_load(text)
    assert str(refused.value) == message and refused.value.line == 2


def test_a_scalar_python_will_not_build_is_refused_naming_its_line():
    with pytest.raises(YamlError) as refused:
        safe_load("a: 1\nb: " + "9" * 5000 + "\n")
    assert refused.value.line == 2 and str(refused.value).startswith("Cannot read this value:")


def test_a_syntax_error_names_its_line():
    with pytest.raises(YamlError) as refused:
        safe_load("a: 1\nb: [1, 2\nc: 3\n")
    assert refused.value.line is not None and str(refused.value).startswith("Not valid YAML:")


def test_check_yaml_problems_carry_the_refusal_and_its_line():
    with pytest.raises(RuleSetInvalid) as invalid:
        parse_rule_set(BILLION_LAUGHS)
    (problem,) = invalid.value.problems
    assert problem.line == 2 and "anchors" in problem.message
    assert str(problem) == "line 2: YAML anchors (`&a`) are not accepted; write the value out where it is used."


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("checks:\n  - amount >= 1e999\n", 2),
        ("checks:\n  - fn: gt\n    fields: [amount]\n    args: [1.0e+999]\n", 4),
        ("checks:\n  - fn: in\n    fields: [amount]\n    args: [1, .nan]\n", 4),
    ],
)
def test_an_infinite_or_nan_bound_is_a_problem_of_its_entry(text, line):
    with pytest.raises(RuleSetInvalid) as invalid:
        parse_rule_set(text)
    (problem,) = invalid.value.problems
    assert problem.line == line and problem.entry == "checks[0]"
    assert "infinit" in problem.message.lower()


def test_block_nesting_deeper_than_the_limit_is_refused_by_the_composer_before_building(constructed):
    text = "a: 1\nb:\n" + "".join("  " * level + "- \n" for level in range(70)) + "  " * 70 + "- x\n"
    with pytest.raises(YamlError) as refused:
        safe_load(text)
    assert (
        str(refused.value) == "The YAML nests deeper than 64 levels." and refused.value.line == 66
    )  # the mapping, then 64 lists
    assert constructed == []
