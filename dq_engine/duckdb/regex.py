"""Java regular expressions as RE2 patterns (DuckDB's regex engine) with the same answers, or None.

A regexp check asks whether Java's `Pattern.compile(p).matcher(value).find()` succeeds (Spark's
RLIKE). RE2 differs from Java in more than syntax: `.` excludes only `\\n` (Java also
excludes `\\r`, U+0085, U+2028, U+2029), `$` is the very end (Java's also matches before a final
line terminator), `\\s` lacks `\\x0B`, and RE2 has no lookaround, backreferences, possessive or
atomic groups. So the pattern is never passed on as written: it is parsed by the parser the Spark
engine's automaton uses (dq_engine/fast_regex.py, which accepts only patterns whose meaning
it knows exactly, and refuses everything else) and written out again in RE2 syntax with every
character class spelled out as explicit code-point ranges, and each anchor as what Java means by
it. A pattern that parser refuses gets None: its batch goes to Spark (dq_engine/selection.py).
"""

from __future__ import annotations

from dq_engine import fast_regex as fr

# The code points the automaton's OTHER symbol stands for: everything but ASCII and Java's three
# non-ASCII line terminators.
_OTHER_RANGES = ((0x80, 0x84), (0x86, 0x2027), (0x202A, 0x10FFFF))
_SPECIAL = {fr.NEL: 0x85, fr.LINE_SEPARATOR: 0x2028, fr.PARAGRAPH_SEPARATOR: 0x2029}
# Java's `$` (and `\Z`) without MULTILINE: the end, or before one final line terminator.
_JAVA_END = r"(?:\r\n|[\n\r\x{85}\x{2028}\x{2029}])?\z"


def java_to_re2(pattern: str) -> str | None:
    """An RE2 pattern with Java's `find()` answer for every string, or None when there is none we
    can vouch for (the pattern uses something outside fast_regex's exact subset)."""
    if not isinstance(pattern, str) or not pattern or fr.compile_find(pattern) is None:
        return None  # compile_find also refuses the `\r` before a final `\n` case _JAVA_END cannot tell
    try:
        anchored, end, body = fr._strip_anchors(fr._Parser(pattern).parse())
    except (fr.Unsupported, RecursionError):
        return None
    text = ("\\A" if anchored else "") + _node(body)
    if end == "end":
        text += _JAVA_END
    elif end == "end_of_input":
        text += r"\z"
    return "(?s)" + text  # (?s): `.` never appears unescaped, but say so anyway


def _node(node: object) -> str:
    if isinstance(node, fr.Symbols):
        return _symbols(node.bits)
    if isinstance(node, fr.Concat):
        return "".join(_atom(item) for item in node.items)
    if isinstance(node, fr.Alternation):
        return "(?:" + "|".join(_node(option) for option in node.options) + ")"
    if isinstance(node, fr.Repeat):
        return _atom(node.item) + _quantifier(node.low, node.high)
    raise fr.Unsupported(f"unexpected node {node!r}")


def _atom(node: object) -> str:
    """A node as one quantifiable unit."""
    text = _node(node)
    if isinstance(node, fr.Symbols | fr.Alternation):
        return text
    return "(?:" + text + ")"


def _quantifier(low: int, high: int | None) -> str:
    if high is None:
        return "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
    if low == 0 and high == 1:
        return "?"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def _symbols(bits: int) -> str:
    """One symbol set as an RE2 class of explicit code-point ranges (an empty set matches nothing)."""
    points: list[tuple[int, int]] = []
    for symbol in range(128):
        if bits >> symbol & 1:
            if points and points[-1][1] == symbol - 1:
                points[-1] = (points[-1][0], symbol)
            else:
                points.append((symbol, symbol))
    points += [(code, code) for symbol, code in _SPECIAL.items() if bits >> symbol & 1]
    if bits >> fr.OTHER & 1:
        points += list(_OTHER_RANGES)
    if not points:
        return "[^\\x{0}-\\x{10FFFF}]"
    return "[" + "".join(_point(low) if low == high else f"{_point(low)}-{_point(high)}" for low, high in points) + "]"


def _point(code: int) -> str:
    return f"\\x{{{code:X}}}"
