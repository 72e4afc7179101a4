"""YAML read with the line of every value, so an error can name where it is ("line 7").

PyYAML's `compose` keeps each node's position; the scalars are built by its safe constructor, so
`10` is an int, `true` a bool and `~` None exactly as `yaml.safe_load` would make them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class Located:
    """A YAML value and its 1-based line: `value` is a scalar, a list of Located, or a dict of
    key → Located (keys as text)."""

    value: Any
    line: int
    key_lines: dict[str, int] | None = None  # a mapping's keys and the lines they are on

    def plain(self) -> Any:
        """The value without positions (what yaml.safe_load gives)."""
        if isinstance(self.value, list):
            return [item.plain() for item in self.value]
        if isinstance(self.value, dict):
            return {key: item.plain() for key, item in self.value.items()}
        return self.value


class YamlError(ValueError):
    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


def load(text: str) -> Located | None:
    """The document with positions, None for an empty one; YamlError for text that is not YAML."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        return None if node is None else _located(loader, node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise YamlError(f"Not valid YAML: {exc.problem or exc.context}.", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"Not valid YAML: {exc}.", None) from None
    finally:
        loader.dispose()


def _located(loader: yaml.SafeLoader, node: yaml.Node) -> Located:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.SequenceNode):
        return Located([_located(loader, item) for item in node.value], line)
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, Located] = {}
        key_lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(loader.construct_object(key_node, deep=True))
            mapping[key] = _located(loader, value_node)
            key_lines[key] = key_node.start_mark.line + 1
        return Located(mapping, line, key_lines)
    return Located(loader.construct_object(node, deep=True), line)
