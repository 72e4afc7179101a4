"""The pushdown engine: a batch's checks computed by the PostgreSQL or MySQL/MariaDB database that
holds its table (README "Pushdown").

- engine.py: `PushdownEngine` (dq_engine/engines.py's interface) and one run's passes: the fused
  aggregate query, uniqueness group-bys, accuracy by NOT EXISTS, custom SQL; what it refuses;
- render.py: the statements as SQLGlot trees from the shared vocabulary, rendered per dialect;
- dialects.py: the vocabulary's hooks for PostgreSQL and MariaDB (regular expressions, times);
- connection.py: the database behind a JDBC URL, read-only transactions, statement timeouts;
- catalog.py: the table's columns and numeric key (also used by Spark's partitioned JDBC reads);
- error_rows.py: fetched error rows → the Parquet error store.

Importing it imports neither PySpark nor a database driver; the drivers are imported on connect.
"""
