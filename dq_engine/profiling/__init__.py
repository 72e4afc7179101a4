"""Table profiles: per column of one table or batch (table + filter), what its values look like.

`dq_engine.profiling.profile(spec, secrets=None, *, spark=None, engine_options=None)` → the profile
document (PROFILE_CONTRACT: row count, the sample, and per column nulls, distinct values, min/max,
mean, stddev, sum, quantiles, histogram, lengths, empty strings, value shapes, top values).

Written once, for every engine, like the checks (docs/engines.md): the figures are SQLGlot
expressions built here dialect-neutrally (queries.py), the steps and their failure isolation are
run.py's, the document is document.py's; each engine contributes a small backend with only what
differs (dq_engine/duckdb/profile.py, dq_engine/pushdown/profile.py, dq_engine/spark/profile.py):
how it opens and samples the batch, runs an aggregate and counts groups, and its approximate
distinct count, quantiles and regular expressions. Pure Python, no Django.
"""

from __future__ import annotations

from typing import Any

__all__ = ["profile"]


def profile(*args: Any, **kwargs: Any) -> dict[str, Any]:
    from dq_engine.profiling.run import profile as run_profile

    return run_profile(*args, **kwargs)
