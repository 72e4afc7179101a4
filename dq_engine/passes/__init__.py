"""How checks run, written once for every engine: the run loop, the combined aggregate pass, the
key-group and join passes, the query checks, and the cancel watcher (run.py, aggregate.py,
keys.py, queries.py), over an engine's `Backend` (backend.py), recording into one Recorder
(dq_engine/recorder.py). docs/engines.md walks through it."""
