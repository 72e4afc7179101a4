"""The policy's order: a failed block check quarantines before anything else; undecided results
follow the fail mode; alert failures alone publish with warnings."""

from gates.policy import CheckOutcome, decide

BLOCK_FAIL = CheckOutcome("keys unique", "fail", "block")
ALERT_FAIL = CheckOutcome("descriptions", "fail", "alert")
ERROR = CheckOutcome("row count", "error", "alert", "connection refused")


def test_a_failed_block_check_quarantines_even_beside_an_error():
    decision = decide([ERROR, BLOCK_FAIL], "fail_open", "the default policy")
    assert (decision.verdict, decision.outcome) == ("failed", "quarantined")
    assert decision.outcome_reason == "Quarantined: blocking check 'keys unique' failed."


def test_an_error_follows_the_fail_mode_and_keeps_the_alert_failures_as_warnings():
    closed = decide([ERROR, ALERT_FAIL], "fail_closed", "the datasource's policy")
    assert closed.outcome == "awaiting_approval"
    assert closed.outcome_reason.startswith("Awaiting approval (fail closed, the datasource's policy)")
    opened = decide([ERROR, ALERT_FAIL], "fail_open", "the policy of table t")
    assert opened.outcome == "published"
    assert opened.warnings == [
        "Check 'descriptions' failed (alert only).",
        "Published although 1 check(s) could not decide (fail open, the policy of table t).",
    ]


def test_alert_failures_alone_publish_and_passes_publish_without_warnings():
    assert decide([ALERT_FAIL], "fail_closed", "x").outcome == "published"
    passed = decide([CheckOutcome("ok", "pass", "block")], "fail_closed", "x")
    assert (passed.verdict, passed.outcome, passed.warnings) == ("passed", "published", [])
