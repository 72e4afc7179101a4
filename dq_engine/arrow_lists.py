"""pyarrow for building arrays from Python lists, without importing pandas (~45 MB resident, and
1-2 s to import) into a process that never uses it.

`pa.array(list)` asks pyarrow's pandas shim whether its argument is a pandas object, and the
shim's first question imports pandas when it is installed (it is, for PySpark). `pyarrow()` lets
that first, non-raising probe run with pandas out of reach: the shim then answers "not a pandas
object" from then on without importing anything. Whatever needs pandas through pyarrow later
(`Table.from_pandas`, `to_pandas`) still gets it: those calls make the shim import pandas again,
raising if it cannot. Only `pa.array(<pandas object>)` before such a call would take the object
as a plain sequence; nothing in the engine builds pandas objects.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

_probed = False
_lock = threading.Lock()


class _NoPandas:
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is kept out of this probe")


def pyarrow() -> Any:
    """The pyarrow module, its pandas probe done without importing pandas (unless already imported)."""
    global _probed
    import pyarrow as pa

    with _lock:
        if not _probed and "pandas" not in sys.modules:
            blocker = _NoPandas()
            sys.meta_path.insert(0, blocker)
            try:
                pa.array([0])
            finally:
                sys.meta_path.remove(blocker)
        _probed = True
    return pa
