"""Hooks into executions' run lifecycle (connected in GatesConfig.ready). They run in the worker
that ran the run; a failure here is logged and never fails the run (send_robust), and the next
read of the batch catches up (gates/lifecycle.catch_up)."""

from __future__ import annotations

from . import lifecycle


def validating_on_run_start(sender, run, **kwargs) -> None:
    lifecycle.run_started(run)


def verdict_on_run_finish(sender, run, **kwargs) -> None:
    lifecycle.run_ended(run)
