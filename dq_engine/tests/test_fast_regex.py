"""The regexp automaton gives exactly RLIKE's answer (Java's regex engine, in the real SparkSession).

dq_rlike must never change a statistic, only its cost: every comparison below runs both RLIKE and
dq_rlike over the same strings in one Spark job and expects no row where they differ.
"""

from __future__ import annotations

import random

import pytest

from dq_engine import fast_regex
from dq_engine.spark.jvm import FUNCTIONS_JAR, ensure_functions

EMAIL = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"

SUPPORTED = [
    EMAIL,
    r"^\d{4}-\d{2}-\d{2}$",
    r"^[A-Z]{2}$",
    r"@",
    r"(?:a|b)$",
    r"^(?:ab|a)c",
    r"x*",
    r"^$",
    r"$",
    r"^",
    r"\s",
    r"^\S+$",
    r"^\w+(\.\w+)*$",
    r"[^@]@[^@]",
    r"^.{2,3}$",
    r"a.b",
    r"colou?r",
    r"^[\x41-\x5a]+\z",
    r"\u0041\t",
    r"^[-+]?\d+(\.\d*)?$",
    r"^[a-c-]+$",
    r"(a+?)b",
    r"\.\*\?",
    r"\Aabc\Z",
    r"^\D\W",
    r"é?",  # non-ASCII: refused, checked below
]

REFUSED = {
    r"(?i)abc": "flags",
    r"a(?=b)": "lookahead",
    r"(a)\1": "backreference",
    r"a++": "possessive",
    r"(?>a)": "atomic group",
    r"\bword\b": "word boundary",
    r"\p{L}+": "unicode property",
    r"é": "non-ASCII literal",
    r"[a[b]]": "nested class",
    r"[a-z&&[^x]]": "intersection",
    r"a^b": "anchor inside",
    r"(^a|b)": "anchor inside a group",
    r"a|b$": "anchor in one branch of an alternation",
    r"\Qa.b\E": "quoting",
    r"a{1000}": "huge repetition",
    r"[^x]$": "a match that may end in \\r before a final \\n",
    r"\r?$": "a match that may end in \\r before a final \\n",
}

STRINGS = [
    "",
    "a",
    "ab",
    "abc",
    "ac",
    "b",
    "x@y",
    "a@b.co",
    "a@b.c",
    "user.name+tag@example.co.uk",
    "bad@@example.com",
    "no at sign",
    "trailing@dot.",
    "a@b.co\n",
    "a@b.co\r\n",
    "a@b.co\r",
    "a@b.co\n\n",
    "a@b.co\u0085",
    "a@b.co\u2028",
    "a@b.co\u2029",
    "\n",
    "\r\n",
    "\r",
    "ü@x.de",
    "a@ü.de",
    "😀@x.de",
    "a@b.😀",
    "2026-11-30",
    "2026-11-3",
    "١٢٣٤-11-30",  # Arabic-Indic digits: \d is ASCII in Java
    "DE",
    "DEU",
    "d e",
    "x\ty",
    "A\t",
    "AZ",
    "colour",
    "color",
    "colr",
    "aab",
    "a\nb",
    "a\u0085b",
    "axb",
    "a😀b",
    "-12.5",
    "+7",
    "1.",
    ".*?",
    "abc\n",
    "abc\r\n",
    "x y",
    "a-b-c",
    "    ",
]


def _disagreements(spark, patterns: list[str], strings: list[str], binary: bool = False) -> list[tuple[str, str]]:
    """(pattern, string) pairs where RLIKE and dq_rlike differ, from one Spark job per 40 patterns."""
    from pyspark.sql import functions as F

    if binary:  # invalid UTF-8 reaches the strings through a cast from binary
        frame = spark.createDataFrame([(bytearray(s),) for s in strings], "b binary").select(
            F.col("b").cast("string").alias("s")
        )
    else:
        frame = spark.createDataFrame([(s,) for s in [*strings, None]], "s string")
    text = F.col("s")
    found = []
    for start in range(0, len(patterns), 40):
        chunk = patterns[start : start + 40]
        columns = []
        for i, pattern in enumerate(chunk):
            automaton = fast_regex.compile_find(pattern)
            assert automaton is not None, pattern
            fast = F.call_function("dq_rlike", text, F.lit(pattern), F.lit(automaton.serialize()))
            columns.append((~F.coalesce(fast == text.rlike(pattern), fast.isNull() & text.isNull())).alias(f"p{i}"))
        rows = frame.select(text, *columns).collect()
        for row in rows:
            for i, pattern in enumerate(chunk):
                if row[f"p{i}"]:
                    found.append((pattern, row["s"]))
    return found


@pytest.fixture(scope="module")
def functions(spark):
    assert FUNCTIONS_JAR.is_file(), f"{FUNCTIONS_JAR} is missing: run scripts/build-jvm.sh (make test does)"
    assert ensure_functions(spark), "the engine's JVM functions did not register in the test session"
    return spark


def test_the_supported_patterns_compile_and_the_refused_ones_fall_back_to_rlike():
    for pattern in SUPPORTED[:-1]:
        assert fast_regex.compile_find(pattern) is not None, pattern
    for pattern, why in REFUSED.items():
        assert fast_regex.compile_find(pattern) is None, f"{pattern} ({why}) must be left to RLIKE"


def test_the_automaton_answers_like_java_on_hand_picked_patterns_and_strings(functions):
    patterns = [p for p in SUPPORTED if fast_regex.compile_find(p) is not None]
    assert _disagreements(functions, patterns, STRINGS) == []


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    atoms = ["a", "b", "@", r"\.", ".", "[ab]", "[^a]", "[a-c]", r"\d", r"\w", r"\s", r"\S", "-", " ", r"\n"]
    parts = []
    for _ in range(rng.randint(1, 4)):
        if depth < 2 and rng.random() < 0.25:
            inner = "|".join(_random_pattern(rng, depth + 1) for _ in range(rng.randint(1, 3)))
            atom = f"({inner})" if rng.random() < 0.5 else f"(?:{inner})"
            # Groups take bounded quantifiers only: (a*)* makes Java's backtracking exponential, and
            # RLIKE would then take minutes to give the reference answer.
            quantifier = rng.choice(["", "", "?", "{2}", "{1,2}", "??"])
        else:
            atom = rng.choice(atoms)
            quantifier = rng.choice(["", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "+?"])
        parts.append(atom + quantifier)
    body = "".join(parts)
    if depth == 0:
        body = ("^" if rng.random() < 0.4 else "") + body + ("$" if rng.random() < 0.4 else "")
    return body


def _random_string(rng: random.Random) -> str:
    alphabet = ["a", "b", "c", "@", ".", "1", " ", "-", "\n", "\r", "é", "\u0085", "\u2028", "😀", "_"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7)))


def test_the_automaton_answers_like_java_on_random_patterns_and_strings(functions):
    rng = random.Random(20261130)
    patterns = list(dict.fromkeys(_random_pattern(rng) for _ in range(400)))
    compiled = [p for p in patterns if fast_regex.compile_find(p) is not None]
    assert len(compiled) >= 0.8 * len(patterns), "most generated patterns are in the supported subset"
    strings = list(dict.fromkeys([*STRINGS, *(_random_string(rng) for _ in range(250))]))
    assert _disagreements(functions, compiled, strings) == []


def test_strings_that_are_not_valid_utf8_get_rlikes_answer(functions):
    raw = [
        b"\xff@x.de",  # not a lead byte
        b"a@b.c\xc3",  # truncated sequence
        b"a@b.co\xed\xa0\x80",  # an encoded surrogate
        b"\xe0\x80\xafa@b.co",  # overlong form
        b"\xf4\x90\x80\x80",  # above U+10FFFF
        b"ok@example.com",
    ]
    patterns = [EMAIL, r"^.{1,20}$", r"[^@]", r"x"]
    assert _disagreements(functions, patterns, raw, binary=True) == []


def test_a_regexp_check_runs_through_the_automaton_when_the_jar_is_loaded(functions):
    from pyspark.sql import functions as F

    from dq_engine.spark.columns import build_predicate
    from dq_engine.spec import Metric

    frame = functions.createDataFrame([("a@b.co",), ("nope",), (None,)], "email string")
    metric = Metric("conditional_count", {"predicate": "regexp_mismatch", "column": "email", "pattern": EMAIL})
    query = frame.agg(F.count_if(build_predicate(frame, metric, functions)))
    assert "dq_rlike(" in query._jdf.queryExecution().optimizedPlan().toString()
    assert query.collect()[0][0] == 1

    refused = Metric("conditional_count", {"predicate": "regexp_mismatch", "column": "email", "pattern": "(?i)NOPE"})
    query = frame.agg(F.count_if(build_predicate(frame, refused, functions)))
    assert "dq_rlike(" not in query._jdf.queryExecution().optimizedPlan().toString()
    assert query.collect()[0][0] == 1  # RLIKE, case-insensitive: only a@b.co mismatches
