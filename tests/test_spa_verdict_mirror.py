"""The browser app says verdicts in words with its own module (frontend/src/lib/verdict.ts, for
previews before any run). Both sides check the same table of sentences made by the server's
evaluation, so the words on screen match `result.verdict` to the character."""

import json
from pathlib import Path

import pytest

from executions.evaluation import evaluate

CASES = json.loads((Path(__file__).resolve().parent.parent / "frontend/tests/fixtures/verdicts.json").read_text())[
    "cases"
]


@pytest.mark.parametrize("case", CASES, ids=[c["sentence"] for c in CASES])
def test_the_shared_verdict_table_still_matches_the_server(case):
    verdict = evaluate(case["statistic"], case["comparison"], case["check_type"], case["operator"], case["threshold"])
    assert (verdict.status, verdict.formula_value, verdict.sentence) == (
        case["status"],
        case["formula_value"],
        case["sentence"],
    ), "executions/evaluation.py changed: update frontend/src/lib/verdict.ts and the table in frontend/tests/fixtures"
