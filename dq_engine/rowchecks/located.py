"""YAML read with the line of every value, so an error can name where it is ("line 7").

The bounded composer (dq_engine.safe_yaml) keeps each node's position; the scalars are built by its safe constructor, so
`10` is an int, `true` a bool and `~` None exactly as `yaml.safe_load` would make them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from dq_engine.safe_yaml import YamlError, compose, construct

__all__ = ["Located", "YamlError", "load"]


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


def load(text: str) -> Located | None:
    """The document with positions, None for an empty one; YamlError for text that is not YAML or
    is over the bounds of dq_engine.safe_yaml (aliases, depth, size, characters)."""
    node, loader = compose(text)
    try:
        return None if node is None else _located(loader, node)
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
            key = str(construct(loader, key_node))
            mapping[key] = _located(loader, value_node)
            key_lines[key] = key_node.start_mark.line + 1
        return Located(mapping, line, key_lines)
    return Located(construct(loader, node), line)
