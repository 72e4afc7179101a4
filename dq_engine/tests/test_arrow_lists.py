"""Pushdown's error rows are written without importing pandas into the worker (~45 MB resident),
and pandas still works through pyarrow afterwards for whatever needs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
from datetime import datetime
from decimal import Decimal
import pyarrow.parquet as pq
from dq_engine.pushdown.error_rows import write_error_rows

target = sys.argv[1]
write_error_rows(target, ["id", "amount", "at"], [(1, Decimal("1.50"), datetime(2024, 1, 2, 3, 4, 5)), (2, None, None)], "dup", {})
without = "pandas" not in sys.modules
table = pq.read_table(target + "/part-00000.parquet")
import pandas as pd
import pyarrow as pa
frame = pa.Table.from_pandas(pd.DataFrame({"x": [1.0, None]}))
print(json.dumps({
    "pandas_imported_by_the_write": not without,
    "rows": [[str(v) for v in row.values()] for row in table.to_pylist()],
    "types": [str(t) for t in table.schema.types],
    "from_pandas_nulls": frame.column("x").null_count,
    "series_nulls": pa.array(pd.Series([1.0, None, 3.0])).null_count,
}))
"""


def test_error_rows_are_written_without_pandas_and_pandas_still_converts_afterwards(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "dup")], capture_output=True, text=True, cwd=ROOT, check=True
    )
    seen = json.loads(done.stdout)

    assert seen["pandas_imported_by_the_write"] is False
    assert seen["rows"] == [["1", "1.50", "2024-01-02 03:04:05", "dup"], ["2", "None", "None", "dup"]]
    assert seen["types"] == ["int64", "decimal128(3, 2)", "timestamp[us]", "string"]
    assert seen["from_pandas_nulls"] == 1 and seen["series_nulls"] == 1
