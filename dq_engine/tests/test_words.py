"""Every message the engine writes for a person is made from a registered template, so the
platform can translate it: `say(...)` is only ever given a module constant made with
`gettext_noop("...")` (the name makemessages extracts), every module defining one is listed in
dq_engine/words.py, and the templates use named placeholders only."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from dq_engine import words

ENGINE = Path(words.__file__).resolve().parent


def _sources() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(ENGINE.rglob("*.py")):
        if "tests" in path.relative_to(ENGINE).parts:
            continue
        module = "dq_engine." + ".".join(path.relative_to(ENGINE).with_suffix("").parts)
        found[module.removesuffix(".__init__")] = ast.parse(path.read_text(encoding="utf-8"))
    return found


def _is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == name)
        or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
    )


def _constants(tree: ast.Module) -> set[str]:
    """Module-level names whose value holds a gettext_noop("...") call."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(_is_call_to(n, "gettext_noop") for n in ast.walk(node.value)):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def _template_names(arg: ast.AST) -> list[str] | None:
    """The constants a say() call's template comes from; None when it is anything else (a literal, an f-string)."""
    if isinstance(arg, ast.Name):
        return [arg.id]
    if isinstance(arg, ast.IfExp):
        body, orelse = _template_names(arg.body), _template_names(arg.orelse)
        return None if body is None or orelse is None else body + orelse
    if isinstance(arg, ast.Subscript):
        return _template_names(arg.value)
    return None


def test_every_say_call_in_the_engine_passes_a_registered_template_constant():
    sources = _sources()
    constants = {module: _constants(tree) for module, tree in sources.items()}
    problems = []
    calls = 0
    for module, tree in sources.items():
        imported = {
            alias.asname or alias.name: (node.module, alias.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dq_engine")
            for alias in node.names
        }
        if imported.get("say") != ("dq_engine.words", "say"):
            continue  # another `say` (a profiler's method), not the messages'
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "say"):
                continue
            calls += 1
            names = _template_names(node.args[0]) if node.args else None
            if names is None:
                problems.append(f"{module}:{node.lineno}: say() is given {ast.unparse(node.args[0])}, not a constant")
                continue
            for name in names:
                source, original = imported.get(name, (module, name))
                if original not in constants.get(source, set()):
                    problems.append(f"{module}:{node.lineno}: {name} is not a gettext_noop constant of {source}")
    assert problems == []
    assert calls > 150  # the converted messages are there: sql_safety, check.yaml, contracts, anomaly, …


def test_the_registry_holds_exactly_the_templates_written_in_the_engine():
    sources = _sources()
    written = {
        node.args[0].value
        for tree in sources.values()
        for node in ast.walk(tree)
        if _is_call_to(node, "gettext_noop") and isinstance(node.args[0], ast.Constant)
    }
    defining = {module for module, tree in sources.items() if _constants(tree)}
    assert defining <= set(words.MODULES), "list these modules in dq_engine/words.py MODULES"
    assert set(words.templates()) == written
    assert set(words.places()) <= written


def test_every_fragment_fills_a_placeholder_some_template_has():
    """A fragment is worded again only as the value of the placeholders it names (executions/stored_words.py):
    a misspelt place would leave it English forever."""
    placeholders = {name for template in words.templates() for name in re.findall(r"%\((\w+)\)s", template)}
    assert {(fragment, place) for fragment, places in words.places().items() for place in places} <= {
        (fragment, place) for fragment, places in words.places().items() for place in places if place in placeholders
    }
    assert all(words.places().values())


def test_templates_use_named_placeholders_only():
    positional = [t for t in words.templates() if re.search(r"%(?!\(\w+\)s)", t)]
    assert positional == []


def test_say_fills_the_named_placeholders_and_keeps_a_template_without_values_as_written():
    from dq_engine.sql_safety import FILTER, NOT_READ, SEVERAL_STATEMENTS

    assert words.say(SEVERAL_STATEMENTS, must="The filter must be one thing", count=2) == (
        "The filter must be one thing; found 2 statements."
    )
    assert words.say(NOT_READ, what=FILTER, why="a quote is not closed.") == (
        "The filter could not be read: a quote is not closed."
    )
    assert words.say(FILTER) == "filter"
