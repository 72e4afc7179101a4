"""dq_engine.java_regex answers like java.util.regex.Pattern.compile, asked through the real JVM.

The web app validates regexes with the Python transcription (it has no JVM); these patterns pin that
it accepts what Java accepts and refuses what Java refuses, with Java's description of the problem.
"""

from __future__ import annotations

import re

import pytest

from dq_engine.java_regex import JavaPatternError, check_java_pattern

PATTERNS = [
    "^[^@\\s]+@[^@\\s]+$",
    "\\p{Alpha}+",
    "\\p{Lu}\\p{Ll}*",
    "(?=x)(x+)+y",
    "(?<=a)b",
    "(?<!a)b",
    "(?<=a+)b",
    "(?<=a{1,3})b",
    "a{2}",
    "a{2,}",
    "a{2,5}?",
    "a{5,2}",
    "a{",
    "a{x}",
    "{2}",
    "*a",
    "a**",
    "a*+",
    "a++b",
    "(?>a+)b",
    "(?i)abc",
    "(?i:abc)",
    "(?-i)a",
    "(?q)a",
    "(?",
    "(",
    ")",
    "a)",
    "(a",
    "[a-z",
    "[z-a]",
    "[a-z&&[^aeiou]]",
    "[[a-c][x-z]]",
    "\\Qa.b\\E",
    "\\Qa.b",
    "\\d\\D\\s\\S\\w\\W\\h\\H\\v\\V\\R\\X",
    "\\b\\B\\A\\G\\Z\\z",
    "\\p{IsLatin}",
    "\\p{InGreek}",
    "\\p{IsAlphabetic}",
    "\\p{javaLowerCase}",
    "\\p{Foo}",
    "\\pL",
    "\\pQ",
    "\\p{L",
    "\\p{}",
    "\\x41",
    "\\x4",
    "\\x{1F600}",
    "\\x{110000}",
    "\\u0041",
    "\\u004",
    "\\0101",
    "\\08",
    "\\cA",
    "\\i",
    "\\y",
    "\\e\\a\\t\\n\\r\\f",
    "(?<name>a)\\k<name>",
    "\\k<nope>",
    "(?<n>a)(?<n>b)",
    "(?<1a>x)",
    "(?<a",
    "(a)\\1",
    "\\1",
    "[\\1]",
    "a|b|",
    "|",
    "",
    "a\\\\",
    "a\\",
    "[]a]",
    "[^]a]",
    "[a-]",
    "[-a]",
    "[a-\\d]",
    "[\\d-z]",
    "^*",
    "$+",
    "(?i)*",
    "a?+?",
    "\\N{LATIN SMALL LETTER A}",
    "\\N{NOPE}",
    "(?x) a b # c",
    "\\p{gc=Lu}",
    "\\p{gc=Xx}",
    "\\p{script=Latin}",
    "\\p{IsLu}",
    "\\p{Is_Lu}",
    "[\\p{Lu}&&[^A]]",
    "[a&&b]",
    "a{2147483648}",
    "\\b{g}",
    "x{1}{2}",
    "(?:)",
    "()",
    "(?=)",
    "[\\w-]",
    "[\\]]",
    "[\\\\]",
    "\\-",
    "\\.",
    "é+",
    "\\é",
    "[é-ü]",
    "(?u)\\w",
    "(?U)\\w",
    "(?c)a",
    "(?d)^a",
    "(?m)^a$",
    "(?s).",
    "a{,3}",
    "(?<=a",
    "\\p{Alphabet}",
    "(?P<n>x)",
    "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
    "(?<=@)[\\w.]+(?=\\.com$)",
    "(?>a+)b*+",
    "(x+)+\\1y",
    "(.*a){20}",
]


def _java(spark, pattern: str) -> str | None:
    """Java's description of why it refuses the pattern, or None when it compiles."""
    try:
        spark.sparkContext._jvm.java.util.regex.Pattern.compile(pattern)
    except Exception as error:  # noqa: BLE001 - PySpark's wrapping of PatternSyntaxException
        first_line = (str(error).splitlines() or [""])[0]
        return re.sub(r" near index -?\d+$", "", first_line)
    return None


def _python(pattern: str) -> str | None:
    try:
        check_java_pattern(pattern)
    except JavaPatternError as error:
        return error.description
    return None


def test_the_python_check_agrees_with_java_on_every_pattern(spark):
    disagreements = [(p, _java(spark, p), _python(p)) for p in PATTERNS if _java(spark, p) != _python(p)]

    assert disagreements == []


def test_it_accepts_java_only_syntax_and_refuses_python_only_syntax():
    for pattern in [r"\p{Alpha}", r"\p{Lu}", r"(?<=a)b", r"(?<!a)b", r"\Qa.b\E", r"[a-z&&[^e]]", r"a*+", r"(?>a)"]:
        check_java_pattern(pattern)
    with pytest.raises(JavaPatternError, match="Unknown inline modifier"):
        check_java_pattern("(?P<name>x)")


def test_its_message_is_javas_with_the_index_and_a_caret():
    with pytest.raises(JavaPatternError) as refused:
        check_java_pattern("ab(c")

    assert str(refused.value) == "Unclosed group near index 4\nab(c\n    ^"
