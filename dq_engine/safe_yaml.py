"""The one YAML reader for text a user sends (check.yaml, contract.yaml, the checks import): PyYAML's
safe loader with bounds, so a few hundred bytes cannot cost seconds of CPU or gigabytes of memory.

Refused, each with the line it is on:
- anchors and aliases (`&name`, `*name`, and so `<<: *name` merges): a nested alias ("billion
  laughs") makes 400 bytes expand to millions of nodes. They are refused when the parser meets
  them, before any node is built, so nothing is ever expanded;
- nesting deeper than `max_depth` (the composer recurses once per level: 1,000 levels would end
  in RecursionError); brackets are also counted before parsing, since the scanner's look-ahead
  makes thousands of `[` cost a second before the composer meets them;
- more than `max_nodes` values, and text longer than `max_bytes` (UTF-8);
- characters YAML does not allow (NUL and other control characters, lone surrogates), and
  scalars Python will not build (an integer of more than 4,300 digits, an impossible date).

Every refusal and every syntax error is a `YamlError` with a message and a 1-based line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from dq_engine.words import gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
AT_LINE = gettext_noop("line %(line)s: %(message)s")
NOT_VALID = gettext_noop("Not valid YAML: %(problem)s.")
CANNOT_READ = gettext_noop("Cannot read this value: %(error)s.")
NOT_TEXT = gettext_noop("Expected YAML text.")
LONE_SURROGATE = gettext_noop(
    "The text holds a lone surrogate (U+%(code)s), which is not valid Unicode text; remove it."
)
NUL = gettext_noop("The text holds a NUL character (U+0000), which YAML does not allow; remove it.")
CONTROL = gettext_noop("The text holds the control character U+%(code)s, which YAML does not allow; remove it.")
TOO_BIG = gettext_noop("The YAML is %(size)s bytes; at most %(limit)s are accepted.")
TOO_DEEP = gettext_noop("The YAML nests deeper than %(depth)s levels.")
TOO_MANY = gettext_noop("The YAML holds more than %(limit)s values.")
ALIAS = gettext_noop("YAML aliases (`*%(anchor)s`) are not accepted; write the value out in full.")
ANCHOR = gettext_noop("YAML anchors (`&%(anchor)s`) are not accepted; write the value out where it is used.")

# What YAML 1.1 (and PyYAML's reader) accepts: tab, LF, CR, printable ASCII, NEL, and the
# printable planes without the surrogates.
_NOT_ALLOWED = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 1_000_000
    max_depth: int = 64
    max_nodes: int = 100_000


DEFAULT_LIMITS = Limits()


class YamlError(ValueError):
    """Text that is not YAML, or YAML over a bound; `line` is 1-based (None when unknown)."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line

    def with_line(self) -> str:
        return say(AT_LINE, line=self.line, message=self) if self.line else str(self)


def compose(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[yaml.Node | None, _BoundedLoader]:
    """The single document's node tree (None for an empty text) and the loader that builds its
    scalars; the caller must `dispose()` the loader. YamlError for anything refused."""
    _check_text(text, limits)
    loader = _BoundedLoader(text, limits)
    try:
        return loader.get_single_node(), loader
    except YamlError:
        loader.dispose()
        raise
    except yaml.MarkedYAMLError as exc:
        loader.dispose()
        mark = exc.problem_mark or exc.context_mark
        raise YamlError(say(NOT_VALID, problem=exc.problem or exc.context), _line(mark)) from None
    except yaml.YAMLError as exc:
        loader.dispose()
        raise YamlError(say(NOT_VALID, problem=exc), None) from None


def construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """One node as Python (what yaml.safe_load would give); YamlError naming the node's line for a
    value Python refuses to build."""
    try:
        return loader.construct_object(node, deep=True)
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlError(
            say(NOT_VALID, problem=exc.problem or exc.context), _line(mark) or _line(node.start_mark)
        ) from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise YamlError(say(CANNOT_READ, error=exc), _line(node.start_mark)) from None


def safe_load(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """yaml.safe_load with the bounds above."""
    node, loader = compose(text, limits)
    try:
        return None if node is None else construct(loader, node)
    finally:
        loader.dispose()


def _check_text(text: str, limits: Limits) -> None:
    if not isinstance(text, str):
        raise YamlError(say(NOT_TEXT), None)
    bad = _NOT_ALLOWED.search(text)
    if bad is not None:
        char = bad.group()
        if "\ud800" <= char <= "\udfff":
            message = say(LONE_SURROGATE, code=f"{ord(char):04X}")
        elif char == "\x00":
            message = say(NUL)
        else:
            message = say(CONTROL, code=f"{ord(char):04X}")
        raise YamlError(message, text.count("\n", 0, bad.start()) + 1)
    size = len(text.encode("utf-8"))
    if size > limits.max_bytes:
        raise YamlError(say(TOO_BIG, size=f"{size:,}", limit=f"{limits.max_bytes:,}"), None)
    _check_flow_depth(text, limits.max_depth)


def _check_flow_depth(text: str, max_depth: int) -> None:
    """Brackets (`[`, `{`) nested past the limit, counted outside quotes and comments. PyYAML's
    scanner looks up to 1,024 characters ahead at every flow level it opens, so a few thousand
    `[` cost about a second before the composer could refuse them; counted here, they cost a
    pass over the text."""
    depth, quote, comment, line = 0, "", False, 1
    for char in text:
        if char == "\n":
            line, comment = line + 1, False
        elif comment:
            continue
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                raise YamlError(say(TOO_DEEP, depth=max_depth), line)
        elif char in "]}" and depth:
            depth -= 1


def _line(mark) -> int | None:
    return mark.line + 1 if mark is not None else None


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader whose composer refuses anchors, aliases, and too deep or too many nodes as each
    node's first event arrives, i.e. before the node (or anything an alias points at) is built."""

    def __init__(self, text: str, limits: Limits):
        super().__init__(text)
        self._limits = limits
        self._depth = 0
        self._nodes = 0

    def construct_object(self, node, deep=False):
        # The innermost node that fails names the line (int() of 5,000 digits, a 13th month).
        try:
            return super().construct_object(node, deep=deep)
        except YamlError:
            raise
        except (ValueError, OverflowError, TypeError) as exc:
            raise YamlError(say(CANNOT_READ, error=exc), _line(node.start_mark)) from None

    def compose_node(self, parent, index):
        event = self.peek_event()
        line = _line(event.start_mark)
        if isinstance(event, yaml.AliasEvent):
            raise YamlError(say(ALIAS, anchor=event.anchor), line)
        if getattr(event, "anchor", None) is not None:
            raise YamlError(say(ANCHOR, anchor=event.anchor), line)
        self._nodes += 1
        if self._nodes > self._limits.max_nodes:
            raise YamlError(say(TOO_MANY, limit=f"{self._limits.max_nodes:,}"), line)
        if not isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > self._limits.max_depth:
            raise YamlError(say(TOO_DEEP, depth=self._limits.max_depth), line)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
