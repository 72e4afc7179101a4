"""The pushdown engine: a batch's checks computed by the PostgreSQL or MySQL/MariaDB database that
holds its table (README "Pushdown").

- engine.py: `PushdownEngine` (dq_engine/engines.py's interface): what selection asks, and a run
  (the one skeleton of dq_engine/passes/ over this package's backend);
- backend.py: the database as a backend: the combined aggregate query, uniqueness group-bys,
  accuracy by NOT EXISTS, custom SQL, error rows; what it refuses once it has the catalog;
- refusals.py: what it refuses from the spec alone (sampled batches, some like patterns, zoned times);
- render.py: the statements as SQLGlot trees from the shared vocabulary, rendered per dialect;
- dialects.py: the vocabulary's hooks for the databases (regular expressions, times);
- error_rows.py: fetched error rows → the Parquet error store.
Connections, catalogs and each database's own rules are dq_engine/databases/'s.

Importing it imports neither PySpark nor a database driver; the drivers are imported on connect.
"""
