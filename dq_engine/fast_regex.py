"""Java regular expressions → a deterministic automaton over UTF-8, for the patterns it answers exactly.

A regexp check asks, for every row, whether Java's `Pattern.compile(p).matcher(value).find()`
succeeds (Spark's RLIKE). Java answers it by decoding the UTF-8 bytes into a String and
backtracking; on the benchmark's e-mail pattern that costs about as much as reading the table
(bench/README.md). For the common subset of patterns, the same question has a finite automaton
answer: this module compiles the pattern into a DFA table, and the JVM class
`org.dqplatform.engine.Utf8Dfa` (dq_engine/jvm/) runs it on the bytes.

Exactness is the rule: a pattern using anything outside the subset below gets None, and the check
uses RLIKE. The subset (Java syntax, default flags, as RLIKE compiles it):

- literals (ASCII only), `.`, escapes `\\t \\n \\r \\f \\a \\e \\xhh \\uhhhh`, escaped punctuation;
- character classes of ASCII members and ranges, negated or not; `\\d \\D \\s \\S \\w \\W` (ASCII
  definitions, as in Java without UNICODE_CHARACTER_CLASS);
- groups `( )` and `(?: )`, alternation, `* + ? {n} {n,} {n,m}` and their lazy forms (laziness
  changes which match is found, never whether one is);
- `^` / `\\A` only at the very start and `$` / `\\Z` / `\\z` only at the very end of the pattern.

Refused (RLIKE is used): non-ASCII literals, flags, lookaround, backreferences, possessive and
atomic groups, `\\b`, `\\p{..}`, `\\Q..\\E`, nested classes and intersections, anchors elsewhere.

The alphabet is the 128 ASCII characters, U+0085, U+2028, U+2029 (Java's non-ASCII line
terminators, which `.` and `$` treat specially) and OTHER for every other code point; a refused
pattern is exactly one whose answer could depend on which other code point it is.

`$` without MULTILINE matches at the end, or before a final line terminator (`\\n`, `\\r`, `\\r\\n`,
U+0085, U+2028, U+2029), except between `\\r` and `\\n`; the automaton models that, and refuses a
pattern whose match could end in `\\r` before a final `\\n` (the one case it would need more state
for).
"""

from __future__ import annotations

from dataclasses import dataclass

SYMBOLS = 132
NEL, LINE_SEPARATOR, PARAGRAPH_SEPARATOR, OTHER = 128, 129, 130, 131
ALL = (1 << SYMBOLS) - 1
MAX_REPEAT = 100  # a bounded repetition above this is refused (the automaton would grow with it)
MAX_NFA_STATES = 4000
MAX_DFA_STATES = 2000

PLAIN, ACCEPT, DEAD, ACCEPT_SINK = 0, 1, 2, 3


def _bit(*symbols: int) -> int:
    bits = 0
    for symbol in symbols:
        bits |= 1 << symbol
    return bits


def _range(low: int, high: int) -> int:
    return ((1 << (high + 1)) - 1) ^ ((1 << low) - 1)


LINE_TERMINATORS = _bit(ord("\n"), ord("\r"), NEL, LINE_SEPARATOR, PARAGRAPH_SEPARATOR)
DOT = ALL & ~LINE_TERMINATORS
DIGIT = _range(ord("0"), ord("9"))
WORD = DIGIT | _range(ord("a"), ord("z")) | _range(ord("A"), ord("Z")) | _bit(ord("_"))
SPACE = _bit(*(ord(c) for c in " \t\n\x0b\f\r"))
PREDEFINED = {"d": DIGIT, "D": ALL & ~DIGIT, "w": WORD, "W": ALL & ~WORD, "s": SPACE, "S": ALL & ~SPACE}
CONTROL_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\x07", "e": "\x1b"}
CR, LF = ord("\r"), ord("\n")


class Unsupported(Exception):
    """The pattern uses something the automaton cannot answer exactly; RLIKE answers it."""


# --- syntax tree ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Symbols:  # one symbol out of a set
    bits: int


@dataclass(frozen=True)
class Concat:
    items: tuple


@dataclass(frozen=True)
class Alternation:
    options: tuple


@dataclass(frozen=True)
class Repeat:
    item: object
    low: int
    high: int | None  # None: unbounded


@dataclass(frozen=True)
class Anchor:
    kind: str  # "start", "end" ($ and \Z), "end_of_input" (\z)


EMPTY = Concat(())


class _Parser:
    def __init__(self, pattern: str):
        self.text = pattern
        self.at = 0

    def parse(self):
        tree = self._alternation()
        if self.at != len(self.text):  # an unmatched ')': Java refuses it, so do we
            raise Unsupported("unbalanced parenthesis")
        return tree

    def _peek(self) -> str | None:
        return self.text[self.at] if self.at < len(self.text) else None

    def _take(self) -> str:
        if self.at >= len(self.text):
            raise Unsupported("unexpected end of pattern")
        char = self.text[self.at]
        self.at += 1
        return char

    def _alternation(self):
        options = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            options.append(self._sequence())
        return options[0] if len(options) == 1 else Alternation(tuple(options))

    def _sequence(self):
        items = []
        while self._peek() not in (None, "|", ")"):
            atom = self._atom()
            if isinstance(atom, Anchor):
                if self._peek() is not None and self._peek() in "*+?{":
                    raise Unsupported("quantified anchor")
                items.append(atom)
                continue
            items.append(self._quantified(atom))
        return items[0] if len(items) == 1 else Concat(tuple(items))

    def _quantified(self, atom):
        char = self._peek()
        if char is None or char not in "*+?{":
            return atom
        if char == "{":
            low, high = self._bounds()
        else:
            self.at += 1
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        if self._peek() == "?":  # lazy: a different match, the same answer to "is there one"
            self.at += 1
        elif self._peek() == "+":
            raise Unsupported("possessive quantifier")
        if self._peek() is not None and self._peek() in "*{":
            raise Unsupported("stacked quantifiers")
        return Repeat(atom, low, high)

    def _bounds(self) -> tuple[int, int | None]:
        end = self.text.find("}", self.at)
        if end < 0:
            raise Unsupported("unclosed repetition")
        body = self.text[self.at + 1 : end]
        low_text, comma, high_text = body.partition(",")
        if not low_text.isdigit() or (high_text and not high_text.isdigit()):
            raise Unsupported("malformed repetition")
        low = int(low_text)
        high = (int(high_text) if high_text else None) if comma else low
        if low > MAX_REPEAT or (high is not None and (high > MAX_REPEAT or high < low)):
            raise Unsupported("repetition too large")
        self.at = end + 1
        return low, high

    def _atom(self):
        char = self._take()
        if char == "(":
            if self._peek() == "?":
                if self.text[self.at : self.at + 2] != "?:":
                    raise Unsupported("group construct")
                self.at += 2
            inner = self._alternation()
            if self._take() != ")":
                raise Unsupported("unclosed group")
            return inner
        if char == "[":
            return Symbols(self._class())
        if char == ".":
            return Symbols(DOT)
        if char == "^":
            return Anchor("start")
        if char == "$":
            return Anchor("end")
        if char == "\\":
            return self._escape(in_class=False)
        if char in "*+?{":
            raise Unsupported("dangling quantifier")
        return Symbols(_bit(_ascii(char)))

    def _escape(self, in_class: bool):
        char = self._take()
        if char in PREDEFINED:
            return Symbols(PREDEFINED[char])
        if char in CONTROL_ESCAPES:
            return Symbols(_bit(ord(CONTROL_ESCAPES[char])))
        if char == "x":
            if self._peek() == "{":
                raise Unsupported("\\x{...}")
            return Symbols(_bit(_ascii(chr(self._hex(2)))))
        if char == "u":
            return Symbols(_bit(_ascii(chr(self._hex(4)))))
        if not in_class and char in "AZz":
            return Anchor({"A": "start", "Z": "end", "z": "end_of_input"}[char])
        if char.isascii() and not char.isalnum():  # escaped punctuation is the character itself
            return Symbols(_bit(ord(char)))
        raise Unsupported(f"escape \\{char}")

    def _hex(self, digits: int) -> int:
        text = self.text[self.at : self.at + digits]
        if len(text) != digits or any(c not in "0123456789abcdefABCDEF" for c in text):
            raise Unsupported("malformed hexadecimal escape")
        self.at += digits
        return int(text, 16)

    def _class(self) -> int:
        negated = self._peek() == "^"
        if negated:
            self.at += 1
        if self._peek() == "]":
            raise Unsupported("']' first in a class")
        bits = 0
        first = True
        while True:
            char = self._take()
            if char == "]":
                break
            if char == "[" or (char == "&" and self._peek() == "&"):
                raise Unsupported("nested class or intersection")
            if char == "-" and not first and self._peek() != "]":
                raise Unsupported("ambiguous '-' in a class")
            low = self._class_member(char)
            if self._peek() == "-" and self.text[self.at + 1 : self.at + 2] not in ("]", ""):
                self.at += 1
                high_char = self._take()
                if high_char in "[&":
                    raise Unsupported("nested class in a range")
                high = self._class_member(high_char)
                if not isinstance(low, int) or not isinstance(high, int) or high < low:
                    raise Unsupported("range between non-characters")
                bits |= _range(low, high)
            else:
                bits |= (1 << low) if isinstance(low, int) else low.bits
            first = False
        return (ALL & ~bits) if negated else bits

    def _class_member(self, char: str):
        """A class member: a symbol number, or Symbols for a predefined class like \\d."""
        if char != "\\":
            return _ascii(char)
        escaped = self._escape(in_class=True)
        if not isinstance(escaped, Symbols):
            raise Unsupported("anchor in a class")
        if escaped.bits & (escaped.bits - 1) == 0:  # exactly one symbol
            return escaped.bits.bit_length() - 1
        return escaped


def _ascii(char: str) -> int:
    code = ord(char)
    if code >= 128:
        raise Unsupported("non-ASCII character in the pattern")
    return code


def _strip_anchors(tree) -> tuple[bool, str | None, object]:
    """(anchored at the start, end anchor kind or None, the rest); anchors elsewhere are refused."""
    items = list(tree.items) if isinstance(tree, Concat) else [tree]
    start = bool(items) and items[0] == Anchor("start")
    if start:
        items = items[1:]
    end = items[-1].kind if items and isinstance(items[-1], Anchor) and items[-1].kind != "start" else None
    if end:
        items = items[:-1]
    rest = Concat(tuple(items))
    if _has_anchor(rest):
        raise Unsupported("anchor inside the pattern")
    return start, end, rest


def _children(node) -> tuple:
    if isinstance(node, Concat):
        return node.items
    if isinstance(node, Alternation):
        return node.options
    if isinstance(node, Repeat):
        return (node.item,)
    return ()


def _has_anchor(node) -> bool:
    return isinstance(node, Anchor) or any(_has_anchor(child) for child in _children(node))


def _nullable(node) -> bool:
    if isinstance(node, Symbols):
        return False
    if isinstance(node, Concat):
        return all(_nullable(item) for item in node.items)
    if isinstance(node, Alternation):
        return any(_nullable(option) for option in node.options)
    return node.low == 0 or _nullable(node.item)


def _last_symbols(node) -> int:
    """The symbols a non-empty match of node can end with."""
    if isinstance(node, Symbols):
        return node.bits
    if isinstance(node, Alternation):
        bits = 0
        for option in node.options:
            bits |= _last_symbols(option)
        return bits
    if isinstance(node, Repeat):
        return 0 if node.high == 0 else _last_symbols(node.item)
    bits = 0
    for item in reversed(node.items):
        bits |= _last_symbols(item)
        if not _nullable(item):
            break
    return bits


# --- automata -----------------------------------------------------------------------------------------
class _Nfa:
    """Thompson construction: edges[state] = [(bits, next)], empties[state] = [next]."""

    def __init__(self):
        self.edges: list[list[tuple[int, int]]] = []
        self.empties: list[list[int]] = []

    def state(self) -> int:
        if len(self.edges) >= MAX_NFA_STATES:
            raise Unsupported("pattern too large")
        self.edges.append([])
        self.empties.append([])
        return len(self.edges) - 1

    def build(self, node, start: int) -> int:
        """Add node's automaton from start; return its end state."""
        if isinstance(node, Symbols):
            end = self.state()
            self.edges[start].append((node.bits, end))
            return end
        if isinstance(node, Concat):
            for item in node.items:
                start = self.build(item, start)
            return start
        if isinstance(node, Alternation):
            end = self.state()
            for option in node.options:
                entry = self.state()
                self.empties[start].append(entry)
                self.empties[self.build(option, entry)].append(end)
            return end
        for _ in range(node.low):  # Repeat
            start = self.build(node.item, start)
        end = self.state()
        self.empties[start].append(end)
        if node.high is None:
            entry = self.state()
            self.empties[start].append(entry)
            exit_ = self.build(node.item, entry)
            self.empties[exit_].append(entry)
            self.empties[exit_].append(end)
        else:
            for _ in range(node.high - node.low):
                start = self.build(node.item, start)
                self.empties[start].append(end)
        return end

    def loop(self, state: int, bits: int) -> None:
        self.edges[state].append((bits, state))

    def closure(self, states) -> frozenset[int]:
        seen = set(states)
        stack = list(states)
        while stack:
            for nxt in self.empties[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return frozenset(seen)


def _symbol_classes(nfa: _Nfa) -> list[int]:
    """Partition the alphabet so that no edge tells two symbols of one class apart."""
    signature: dict[int, list[int]] = {symbol: [] for symbol in range(SYMBOLS)}
    for edges in nfa.edges:
        for bits, _ in edges:
            for symbol in range(SYMBOLS):
                signature[symbol].append((bits >> symbol) & 1)
    class_of: dict[tuple, int] = {}
    return [class_of.setdefault(tuple(signature[s]), len(class_of)) for s in range(SYMBOLS)]


@dataclass(frozen=True)
class Automaton:
    start: int
    class_of: list[int]  # symbol -> column
    kinds: list[int]  # per state
    table: list[list[int]]  # state -> column -> state

    def serialize(self) -> str:
        """The text Utf8Dfa's constructor reads (dq_engine/jvm/src/.../Utf8Dfa.java)."""
        return ";".join(
            [
                "dfa1",
                str(self.start),
                str(len(self.table[0])),
                ",".join(map(str, self.class_of)),
                "".join(map(str, self.kinds)),
                ",".join(str(n) for row in self.table for n in row),
            ]
        )

    def find(self, text: str) -> bool:
        """Run the table on a Python string (for tests; the JVM runs the same table)."""
        state = self.start
        for char in text:
            if self.kinds[state] in (DEAD, ACCEPT_SINK):
                break
            state = self.table[state][self.class_of[_symbol(char)]]
        return self.kinds[state] in (ACCEPT, ACCEPT_SINK)


def _symbol(char: str) -> int:
    code = ord(char)
    if code < 128:
        return code
    return {0x85: NEL, 0x2028: LINE_SEPARATOR, 0x2029: PARAGRAPH_SEPARATOR}.get(code, OTHER)


def compile_find(pattern: str) -> Automaton | None:
    """The automaton answering `find()` of a Java pattern, or None when only RLIKE can answer."""
    try:
        return _compile(pattern)
    except (Unsupported, RecursionError):
        return None


def _compile(pattern: str) -> Automaton:
    anchored, end, body = _strip_anchors(_Parser(pattern).parse())
    if end == "end" and _last_symbols(body) & (1 << CR):
        raise Unsupported("a match ending in \\r before a final \\n")
    nfa = _Nfa()
    begin = nfa.state()
    if not anchored:
        nfa.loop(begin, ALL)  # the match may start anywhere
    final = nfa.build(body, begin)
    if end == "end":  # the match may stop before one final line terminator
        accept = nfa.state()
        nfa.empties[final].append(accept)
        terminator = nfa.state()
        nfa.edges[final].append((_bit(LF, CR, NEL, LINE_SEPARATOR, PARAGRAPH_SEPARATOR), accept))
        nfa.edges[final].append((_bit(CR), terminator))
        nfa.edges[terminator].append((_bit(LF), accept))
        final = accept
    return _determinize(nfa, begin, final, sink_on_accept=end is None)


def _determinize(nfa: _Nfa, begin: int, final: int, sink_on_accept: bool) -> Automaton:
    class_of = _symbol_classes(nfa)
    columns = max(class_of) + 1
    representative = [class_of.index(c) for c in range(columns)]
    start = nfa.closure([begin])
    index = {start: 0}
    subsets = [start]
    table: list[list[int]] = []
    while len(table) < len(subsets):
        subset = subsets[len(table)]
        row = []
        for symbol in representative:
            moved = nfa.closure([nxt for state in subset for bits, nxt in nfa.edges[state] if (bits >> symbol) & 1])
            if moved not in index:
                if len(subsets) >= MAX_DFA_STATES:
                    raise Unsupported("automaton too large")
                index[moved] = len(subsets)
                subsets.append(moved)
            row.append(index[moved])
        table.append(row)
    accepting = [final in subset for subset in subsets]
    alive = _co_reachable(table, accepting)
    kinds = []
    for state in range(len(subsets)):
        if accepting[state]:
            sink = sink_on_accept or all(nxt == state for nxt in table[state])
            kinds.append(ACCEPT_SINK if sink else ACCEPT)
        else:
            kinds.append(PLAIN if alive[state] else DEAD)
    return Automaton(start=0, class_of=class_of, kinds=kinds, table=table)


def _co_reachable(table: list[list[int]], accepting: list[bool]) -> list[bool]:
    """Which states can still reach an accepting one."""
    incoming: list[set[int]] = [set() for _ in table]
    for state, row in enumerate(table):
        for nxt in row:
            incoming[nxt].add(state)
    alive = list(accepting)
    stack = [s for s, ok in enumerate(accepting) if ok]
    while stack:
        for previous in incoming[stack.pop()]:
            if not alive[previous]:
                alive[previous] = True
                stack.append(previous)
    return alive
