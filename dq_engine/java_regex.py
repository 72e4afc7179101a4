"""Is this a valid Java regular expression? Answered in Python, with java.util.regex's own messages.

Spark matches `regexp_pattern`, RLIKE and the regexp_* functions with java.util.regex, so a pattern
is valid when Java's `Pattern.compile` accepts it: `\\p{Alpha}`, `\\p{Lu}`, `\\p{IsLatin}`,
lookarounds, possessive quantifiers, atomic groups, `\\Q...\\E`, class unions and intersections
(`[a-z&&[^aeiou]]`) are all Java. Python's `re` refuses some of these and accepts things Java
refuses, so the web app (which has no JVM) validates with this parser, a transcription of the
checks `java.util.regex.Pattern` makes while compiling. A refusal is `JavaPatternError`, whose
message is Java's: the description, ` near index N`, the pattern and a caret, as
`PatternSyntaxException.getMessage()` writes it.

What it cannot know without Java's Unicode tables: whether a block or script name (`\\p{InGreek}`,
`\\p{IsCyrillic}`, `\\p{script=Latn}`) exists. Such names are accepted here when they are
well-formed; the engine compiles every pattern with Java again before it runs, and a name Java
does not know ends that check `error` with Java's message (dq_engine/spark/jvm.py).

Pure Python, no imports beyond the standard library.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["JavaPatternError", "check_java_pattern"]

# POSIX classes (US-ASCII), java.lang.Character classes and binary properties, as Pattern names them.
_POSIX = {"Lower", "Upper", "ASCII", "Alpha", "Digit", "Alnum", "Punct", "Graph", "Print", "Blank", "Cntrl",
          "XDigit", "Space"}  # fmt: skip
_JAVA_CHARACTER = {"javaLowerCase", "javaUpperCase", "javaWhitespace", "javaMirrored", "javaAlphabetic",
                   "javaIdeographic", "javaTitleCase", "javaDigit", "javaDefined", "javaLetter",
                   "javaLetterOrDigit", "javaJavaIdentifierStart", "javaJavaIdentifierPart",
                   "javaUnicodeIdentifierStart", "javaUnicodeIdentifierPart", "javaIdentifierIgnorable",
                   "javaSpaceChar", "javaISOControl"}  # fmt: skip
_BINARY = {"ALPHABETIC", "ASSIGNED", "CONTROL", "EMOJI", "EMOJI_PRESENTATION", "EMOJI_MODIFIER",
           "EMOJI_MODIFIER_BASE", "EMOJI_COMPONENT", "EXTENDED_PICTOGRAPHIC", "HEXDIGIT", "HEX_DIGIT",
           "IDEOGRAPHIC", "JOINCONTROL", "JOIN_CONTROL", "LETTER", "LOWERCASE", "NONCHARACTERCODEPOINT",
           "NONCHARACTER_CODE_POINT", "TITLECASE", "PUNCTUATION", "UPPERCASE", "WHITESPACE", "WHITE_SPACE",
           "WORD", "ALNUM", "BLANK", "GRAPH", "PRINT", "DIGIT"}  # fmt: skip
_CATEGORIES = {"Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl", "Zp", "Cc",
               "Cf", "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi", "Pf", "L", "M",
               "N", "Z", "C", "P", "S", "LC", "LD", "L1", "all"}  # fmt: skip
_FLAGS = set("idmsuxUc")
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_ ]*\Z")


class JavaPatternError(ValueError):
    """A pattern Java's regex compiler refuses; str() is Java's PatternSyntaxException message."""

    def __init__(self, description: str, pattern: str, index: int):
        self.description, self.pattern, self.index = description, pattern, index
        text = description if index < 0 else f"{description} near index {index}"
        text += f"\n{pattern}"
        if index >= 0:
            text += "\n" + " " * index + "^"
        super().__init__(text)

    @property
    def short(self) -> str:
        """One line: the description and where."""
        return self.description if self.index < 0 else f"{self.description} near index {self.index}"


def check_java_pattern(pattern: str) -> None:
    """Raise JavaPatternError when java.util.regex.Pattern.compile(pattern) would refuse it."""
    if not isinstance(pattern, str):
        raise TypeError("a pattern is a string")
    _Parser(pattern).parse()


class _Parser:
    """Recursive descent over the pattern in Java's grammar; only validity matters, no tree is built."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.text = _strip_quotes(pattern)  # \Q...\E, as Pattern.RemoveQEQuoting does first
        self.at = 0
        self.comments = False  # the x flag: whitespace and #-comments are ignored
        self.groups = 0
        self.names: set[str] = set()

    def error(self, description: str, index: int | None = None) -> JavaPatternError:
        return JavaPatternError(description, self.pattern, self.at - 1 if index is None else index)

    # --- reading ----------------------------------------------------------------------------------
    def peek(self) -> str | None:
        self._skip_comments()
        return self.text[self.at] if self.at < len(self.text) else None

    def take(self) -> str | None:
        char = self.peek()
        if char is not None:
            self.at += 1
        return char

    def _skip_comments(self) -> None:
        if not self.comments:
            return
        while self.at < len(self.text):
            char = self.text[self.at]
            if char in " \t\n\x0b\f\r":
                self.at += 1
            elif char == "#":
                while self.at < len(self.text) and self.text[self.at] not in "\n\r\x85\u2028\u2029":
                    self.at += 1
            else:
                return

    # --- grammar ----------------------------------------------------------------------------------
    def parse(self) -> None:
        self.expression()
        if self.at < len(self.text):  # only a ')' stops expression() early
            self.at += 1
            raise self.error("Unmatched closing ')'", self.at - 2)  # Java's index is one before it

    def expression(self) -> None:
        while True:
            self.sequence()
            if self.peek() != "|":
                return
            self.at += 1

    def sequence(self) -> None:
        while True:
            char = self.peek()
            if char is None or char in "|)":
                return
            if char in "*+?":
                self.at += 1
                raise self.error(f"Dangling meta character '{char}'")
            if char == "{":  # Java reads '{' at the start of an atom as a repetition of nothing
                self.closure()
                continue
            self.atom_and_closure()

    def atom_and_closure(self) -> None:
        char = self.take()
        if char == "(" and not self.group():
            return  # (?i) only sets flags: there is nothing for a quantifier to repeat
        if char == "[":
            self.char_class()
        elif char == "\\":
            self._escape_value(in_class=False)
        self.closure()

    def closure(self) -> None:
        char = self.peek()
        if char is None:
            return
        if char in "*+?":
            self.at += 1
        elif char == "{":
            start = self.at
            self.at += 1
            low = self._digits()
            if low is None:
                raise self.error("Illegal repetition", start + 1)
            high = low
            if self.peek() == ",":
                self.at += 1
                high = self._digits()
            if self.take() != "}":
                raise self.error("Unclosed counted closure")
            if high is not None and high < low:
                raise self.error("Illegal repetition range", self.at - 1)
        else:
            return
        if self.peek() in ("?", "+"):  # lazy or possessive
            self.at += 1

    def _digits(self) -> int | None:
        start = self.at
        while self.at < len(self.text) and self.text[self.at].isascii() and self.text[self.at].isdigit():
            self.at += 1
        if self.at == start:
            return None
        value = int(self.text[start : self.at])
        if value >= 2**31:
            raise self.error("Illegal repetition range", start - 1)
        return value

    def group(self) -> bool:
        """After '(': the group's kind, its body and ')'. Returns whether a quantifier may follow."""
        open_at = self.at - 1
        if self.peek() == "?":
            self.at += 1
            kind = self.take()
            if kind == ":" or kind == ">" or kind == "=" or kind == "!":
                self._body(open_at)
            elif kind == "<":
                after = self.take()
                if after in ("=", "!"):
                    start = self.at
                    self._body(open_at)
                    self._require_bounded_lookbehind(start, self.at - 1)
                elif after is not None and after.isascii() and after.isalpha():
                    self.at -= 1
                    name = self._group_name()
                    if name in self.names:
                        raise self.error(f"Named capturing group <{name}> is already defined")
                    self.names.add(name)
                    self.groups += 1
                    self._body(open_at)
                elif after is None:
                    raise self.error("Unknown look-behind group", len(self.text))
                else:
                    raise self.error("capturing group name does not start with a Latin letter")
            elif kind is not None and (kind in _FLAGS or kind == "-"):
                self.at -= 1
                if self._flags():
                    self._body(open_at)
                    return True
                return False
            else:
                raise self.error("Unknown inline modifier", self.at - 1 if kind is not None else len(self.text))
            return True
        self.groups += 1
        self._body(open_at)
        return True

    def _body(self, open_at: int) -> None:
        self.expression()
        if self.peek() != ")":
            raise self.error("Unclosed group", len(self.text))
        self.at += 1

    def _flags(self) -> bool:
        """Flags after '(?': True for (?flags:...), False for (?flags)."""
        on = True
        while True:
            char = self.take()
            if char is None:
                raise self.error("Unknown inline modifier", len(self.text))
            if char == ")":
                return False
            if char == ":":
                return True
            if char == "-":
                on = False
                continue
            if char not in _FLAGS:
                raise self.error("Unknown inline modifier")
            if char == "x":
                self.comments = on

    def _group_name(self) -> str:
        start = self.at
        while self.at < len(self.text) and self.text[self.at].isascii() and self.text[self.at].isalnum():
            self.at += 1
        name = self.text[start : self.at]
        if self.at >= len(self.text) or self.text[self.at] != ">":
            self.at += 1
            raise self.error("named capturing group is missing trailing '>'")
        self.at += 1
        return name

    def _require_bounded_lookbehind(self, start: int, end: int) -> None:
        """Java needs a maximum length for a look-behind: no group repeated by *, + or {n,} in it."""
        body = self.text[start:end]
        scrubbed = re.sub(r"\\.", "x", body)
        scrubbed = re.sub(r"\[[^\]]*\]", "x", scrubbed)
        if re.search(r"\)(?:[*+]|\{\d+,\})", scrubbed):  # Java bounds a repeated character, not a repeated group
            raise self.error("Look-behind group does not have an obvious maximum length", end)

    # --- character classes ------------------------------------------------------------------------
    def char_class(self) -> None:
        """After '[': members, ranges, nested classes and && intersections up to the closing ']'."""
        if self.peek() == "^":
            self.at += 1
        first = True
        previous: int | None = None  # the last single character, for ranges
        while True:
            if self.at >= len(self.text):
                raise self.error("Unclosed character class", len(self.text) - 1)
            char = self.text[self.at]
            self.at += 1
            if char == "]" and not first:
                return
            first = False
            if char == "[":
                self.char_class()
                previous = None
                continue
            if char == "&" and self.at < len(self.text) and self.text[self.at] == "&":
                self.at += 1
                previous = None
                continue
            if char == "\\":
                code = self._class_escape()
            elif char == "-" and previous is not None and self.at < len(self.text) and self.text[self.at] != "]":
                end_char = self.text[self.at]
                self.at += 1
                if end_char == "[":
                    raise self.error("Illegal character range")
                end = self._class_escape() if end_char == "\\" else ord(end_char)
                if end is None:
                    raise self.error("Illegal character range")
                if end < previous:
                    raise self.error("Illegal character range")
                previous = None
                continue
            else:
                code = ord(char)
            previous = code

    def _class_escape(self) -> int | None:
        """An escape inside a class: its code point, or None for a class escape (\\d, \\p{..})."""
        return self._escape_value(in_class=True)

    # --- escapes ----------------------------------------------------------------------------------
    def _escape_value(self, in_class: bool) -> int | None:
        if self.at >= len(self.text):
            raise self.error("Unexpected internal error", len(self.text))
        char = self.text[self.at]
        self.at += 1
        if char in "dDhHsSvVwW":
            return None
        if char in "pP":
            self._property()
            return None
        if char.isascii() and char.isdigit():
            if char == "0":
                return self._octal()
            if in_class:
                raise self.error("Illegal/unsupported escape sequence")
            return None  # a back reference (Java reads as many digits as name existing groups)
        simple = {"t": 9, "n": 10, "r": 13, "f": 12, "a": 7, "e": 27}
        if char in simple:
            return simple[char]
        if char == "x":
            return self._hex()
        if char == "u":
            return self._unicode()
        if char == "c":
            if self.at >= len(self.text):
                raise self.error("Illegal control escape sequence")
            self.at += 1
            return ord(self.text[self.at - 1]) ^ 64
        if char == "N":
            return self._named_character()
        if char == "k":
            if in_class:
                raise self.error("Illegal/unsupported escape sequence")
            if self.take() != "<":
                raise self.error("\\k is not followed by '<' for named capturing group")
            name = self._group_name()
            if name not in self.names:
                raise self.error(f"named capturing group <{name}> does not exist")
            return None
        if char in "bBAGZzRX" and not in_class:
            if char == "b" and self.text[self.at : self.at + 3] == "{g}":
                self.at += 3
            return None
        if char == "b" and in_class:
            raise self.error("Illegal/unsupported escape sequence")
        if char.isascii() and char.isalpha():
            raise self.error("Illegal/unsupported escape sequence")
        return ord(char)  # escaped punctuation or a non-ASCII character stands for itself

    def _octal(self) -> int:
        digits = ""
        while len(digits) < 3 and self.at < len(self.text) and self.text[self.at] in "01234567":
            if len(digits) == 2 and digits[0] > "3":
                break
            digits += self.text[self.at]
            self.at += 1
        if not digits:
            raise self.error("Illegal octal escape sequence")
        return int(digits, 8)

    def _hex(self) -> int:
        if self.at < len(self.text) and self.text[self.at] == "{":
            end = self.text.find("}", self.at)
            digits = self.text[self.at + 1 : end] if end > 0 else ""
            if end < 0 or not digits or not all(c in "0123456789abcdefABCDEF" for c in digits):
                self.at = end + 1 if end > 0 else len(self.text)
                raise self.error(
                    "Unclosed hexadecimal escape sequence" if end < 0 else "Illegal hexadecimal escape sequence"
                )
            self.at = end + 1
            value = int(digits, 16)
            if value > 0x10FFFF:
                raise self.error("Hexadecimal codepoint is too big")
            return value
        digits = self.text[self.at : self.at + 2]
        if len(digits) < 2 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            self.at += 1
            raise self.error("Illegal hexadecimal escape sequence")
        self.at += 2
        return int(digits, 16)

    def _unicode(self) -> int:
        digits = self.text[self.at : self.at + 4]
        if len(digits) < 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            self.at += 1
            raise self.error("Illegal Unicode escape sequence")
        self.at += 4
        return int(digits, 16)

    def _named_character(self) -> int:
        if self.take() != "{":
            raise self.error("Illegal/unsupported escape sequence")
        end = self.text.find("}", self.at)
        if end < 0:
            raise self.error("Unclosed character name escape sequence")
        name = self.text[self.at : end]
        self.at = end + 1
        try:
            return ord(unicodedata.lookup(name))
        except KeyError:
            raise self.error(f"Unknown character name [{name}]") from None

    def _property(self) -> None:
        """After \\p or \\P: a one-letter category or {name}."""
        if self.at >= len(self.text):
            raise self.error("Unexpected internal error", len(self.text))
        char = self.text[self.at]
        self.at += 1
        if char != "{":
            if char not in _CATEGORIES:
                raise self.error(f"Unknown character property name {{{char}}}", self.at - 1)
            return
        end = self.text.find("}", self.at)
        if end < 0:
            raise self.error("Unclosed character family", len(self.text))
        name = self.text[self.at : end]
        self.at = end + 1
        if not name:
            raise self.error("Empty character family", self.at - 1)
        if not _known_property(name):
            raise self.error(_unknown_property(name), self.at - 1)


def _known_property(name: str) -> bool:
    if "=" in name:
        key, value = name.split("=", 1)
        if key in ("gc", "general_category"):
            return value in _CATEGORIES
        if key in ("sc", "script", "blk", "block"):
            return bool(_NAME_RE.match(value))  # Java's tables decide (see the module docstring)
        return False
    if name in _CATEGORIES or name in _POSIX or name in _JAVA_CHARACTER:
        return True
    if name.startswith("In"):
        return bool(_NAME_RE.match(name[2:]))  # a Unicode block
    if name.startswith("Is"):
        rest = name[2:]
        if rest in _CATEGORIES or rest.upper() in _BINARY or rest in _POSIX:
            return True
        return bool(_NAME_RE.match(rest))  # a script
    return False


def _unknown_property(name: str) -> str:
    if "=" in name:
        key = name.split("=", 1)[0]
        if key in ("gc", "general_category"):
            return f"Unknown Unicode property {{name=<{key}>, value=<{name.split('=', 1)[1]}>}}"
        return f"Unknown Unicode property {{name=<{key}>, value=<{name.split('=', 1)[1]}>}}"
    return f"Unknown character property name {{{name}}}"


def _strip_quotes(pattern: str) -> str:
    """Replace \\Q...\\E quoting by escaped characters, as Java does before parsing."""
    if "\\Q" not in pattern:
        return pattern
    out: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\" and at + 1 < len(pattern):
            if pattern[at + 1] == "Q":
                end = pattern.find("\\E", at + 2)
                quoted = pattern[at + 2 :] if end < 0 else pattern[at + 2 : end]
                out.extend("\\" + c if not c.isalnum() else c for c in quoted)
                at = len(pattern) if end < 0 else end + 2
                continue
            out.append(pattern[at : at + 2])
            at += 2
            continue
        out.append(char)
        at += 1
    return "".join(out)
