"""Signals other apps listen to, so executions never imports them (watching alerts on runs,
gates moves registered batches along)."""

from django.dispatch import Signal

# Sent after a worker claimed a run, before the engine starts; `run` is the running Run.
run_started = Signal()

# Sent after the transaction that recorded a run's results commits; `run` is the finished Run.
run_finished = Signal()
