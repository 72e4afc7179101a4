"""Where every engine stores a check's error rows: Parquet under `<root>/<check id>/`.

The web app pages through these files with pyarrow (executions/error_rows.py), whichever engine
wrote them: every column of the batch plus `_dq_check` (the check's name), at most the sink's
`limit` rows; the exact count is reported separately in the result document.
"""

from __future__ import annotations

import re

CHECK_COLUMN = "_dq_check"


def error_rows_path(root: str, check_id: str) -> str:
    """`<root>/<check id>`; the id is made filesystem-safe (ids are usually numbers)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", check_id).strip(".") or "check"
    return root.rstrip("/") + "/" + safe
