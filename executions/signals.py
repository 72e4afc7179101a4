"""Signals other apps listen to, so executions never imports them (watching alerts on runs)."""

from django.dispatch import Signal

# Sent after the transaction that recorded a run's results commits; `run` is the finished Run.
run_finished = Signal()
