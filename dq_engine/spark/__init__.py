"""The Spark engine: the spec's batches read and checked by Spark (local or on a cluster).

- engine.py: `SparkEngine` (dq_engine/engines.py's interface): session, job group, cancellation,
  the result document;
- execution.py: one run's flow; batches.py: reading, filtering, sampling, caching, temp views;
- the passes: aggregate_pass.py (the fused pass), key_groups.py (uniqueness, shared with
  accuracy on the same column), accuracy.py (anti-joins), queries.py (custom SQL);
- outcomes.py: each check's outcome, the plan's counters, error-row writes (error_rows.py);
  scheduling.py: passes run a few at a time, cancellation, session settings around a pass;
- columns.py: the vocabulary's metrics on Spark (SQLGlot → Column, Spark's regex and datetime
  hooks); jvm.py: the regexp automaton (compiled by dq_engine/fast_regex.py); readers.py,
  session.py, messages.py.

Importing this package imports no PySpark; its modules import PySpark inside the functions that
need it.
"""
