"""Java regexes on DuckDB: the RE2 pattern java_to_re2 writes gives Java's `find()` answer for
every string, and anything it cannot vouch for is refused (its batch goes to Spark).

The oracle is the shared automaton (dq_engine/fast_regex.py), which
test_fast_regex.py holds to RLIKE's answers in a real SparkSession over the same patterns and
strings; here DuckDB's regexp_matches runs the translated patterns (no Spark needed)."""

from __future__ import annotations

import random

import duckdb
import pytest

from dq_engine import fast_regex
from dq_engine.duckdb.regex import java_to_re2
from dq_engine.tests.test_fast_regex import REFUSED, STRINGS, SUPPORTED, _random_pattern, _random_string


def _disagreements(patterns: list[str], strings: list[str]) -> list[tuple[str, str]]:
    con = duckdb.connect()
    con.execute("CREATE TABLE s (s VARCHAR)")
    con.executemany("INSERT INTO s VALUES (?)", [(text,) for text in strings])
    found = []
    for pattern in patterns:
        translated = java_to_re2(pattern)
        assert translated is not None, pattern
        automaton = fast_regex.compile_find(pattern)
        rows = con.execute("SELECT s, regexp_matches(s, ?) FROM s", [translated]).fetchall()
        found += [(pattern, text) for text, matched in rows if matched != automaton.find(text)]
    return found


def test_patterns_in_the_exact_subset_answer_like_java_on_hand_picked_strings():
    patterns = [p for p in SUPPORTED if fast_regex.compile_find(p) is not None]
    assert _disagreements(patterns, STRINGS) == []


def test_random_patterns_answer_like_java_on_random_strings():
    rng = random.Random(20261201)
    patterns = [p for p in dict.fromkeys(_random_pattern(rng) for _ in range(300)) if java_to_re2(p)]
    strings = list(dict.fromkeys([*STRINGS, *(_random_string(rng) for _ in range(300))]))
    assert len(patterns) > 200
    assert _disagreements(patterns, strings) == []


@pytest.mark.parametrize("pattern", list(REFUSED))
def test_what_re2_cannot_run_as_java_would_is_refused(pattern):
    # lookaround, backreferences, possessive and atomic groups, \b, \p{..}, flags, non-ASCII ...
    assert java_to_re2(pattern) is None, REFUSED[pattern]


def test_java_meanings_re2_would_change_are_spelled_out():
    # `.` excludes \r and Java's other line terminators; `$` allows one final line terminator;
    # \s includes \x0B: RE2 reads none of these the same way, so none is passed on as written.
    con = duckdb.connect()

    def matches(pattern: str, text: str) -> bool:
        return con.execute("SELECT regexp_matches(?, ?)", [text, java_to_re2(pattern)]).fetchone()[0]

    assert not matches("a.b", "a\rb") and not matches("a.b", "a\u2028b") and matches("a.b", "a😀b")
    assert matches("^ab$", "ab\n") and matches("^ab$", "ab\r\n") and not matches("^ab$", "ab\n\n")
    assert matches(r"^\sx", "\x0bx")
    assert not matches(r"^\d$", "١")  # Java's \d is ASCII without UNICODE_CHARACTER_CLASS
