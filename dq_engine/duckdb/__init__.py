"""The DuckDB engine: local Parquet, CSV and JSON files read and checked by DuckDB embedded in
the worker (no JVM to start), with the Spark engine's answers.

- engine.py: `DuckDBEngine` (dq_engine/engines.py's interface) and the run's flow;
- batches.py: the batches as temp views; readers.py: which files, read how, and what DuckDB
  cannot read as Spark does;
- the passes: aggregate_pass.py (the fused aggregate query), key_groups.py (GROUP BY ... HAVING),
  accuracy.py (NOT EXISTS), queries.py (custom SQL);
- outcomes.py + error_rows.py: each check's outcome, error rows by COPY ... TO Parquet;
- sql.py: the vocabulary's and the user's SQL rendered for DuckDB, and what is not portable;
  regex.py: Java regexes as RE2 with Java's answers; capability.py: what `auto` sends elsewhere.

Importing this package imports no duckdb (engine.run does) and no PySpark.
"""
