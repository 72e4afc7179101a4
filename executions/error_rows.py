"""Reads a result's error rows back from the Parquet store (pyarrow, no Spark) for paging and CSV."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass
class Page:
    count: int
    columns: list[str]
    rows: list[list[Any]]


def _parts(path: str) -> list[Path]:
    """The Parquet files of a result's error rows: the path itself, or the visible files under it
    (Spark leaves _SUCCESS and .crc files beside its part files)."""
    if not path or not Path(path).exists():
        return []
    root = Path(path)
    if root.is_file():
        return [root]
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not any(x.startswith((".", "_")) for x in p.relative_to(root).parts)
    )


def _table(path: str) -> pa.Table | None:
    # pyarrow.parquet file by file, imported here: pyarrow.dataset would bring pandas into the web
    # process (~140 MB) for what a few small files need.
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = _parts(path)
    if not parts:
        return None
    return pa.concat_tables([pq.ParquetFile(part).read() for part in parts], promote_options="default")


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)  # dates, timestamps, decimals: as text, exactly as stored


FAILED_CHECKS_COLUMN = "_dq_failed_checks"  # a row_level_check's error rows: the names, comma-joined


def read_page(path: str, page: int, page_size: int, check_name: str | None = None) -> Page:
    """One page of a result's error rows; `check_name`: only the rows of a row_level_check failing
    that check (an error-row store without `_dq_failed_checks` then has none)."""
    table = _table(path)
    if table is None:
        return Page(0, [], [])
    if check_name is not None:
        table = _failing(table, check_name)
    start = (page - 1) * page_size
    window = table.slice(start, page_size)
    rows = [[_json_value(v) for v in row.values()] for row in window.to_pylist()]
    return Page(table.num_rows, table.column_names, rows)


# A spreadsheet runs a cell starting with one of these as a formula (OWASP "CSV injection"); the
# values come from the checked tables and from check names anyone picks (`_dq_check`).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A text cell a spreadsheet would run, prefixed with `'` so it shows as text (OWASP's rule).
    Numbers stay numbers (-3 is no formula); only the CSV download does this, the JSON API keeps
    values exact."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _failing(table: pa.Table, check_name: str) -> pa.Table:
    import pyarrow as pa

    if FAILED_CHECKS_COLUMN not in table.column_names:
        return table.slice(0, 0)
    names = table.column(FAILED_CHECKS_COLUMN).to_pylist()
    keep = pa.array([bool(value) and check_name in value.split(",") for value in names])
    return table.filter(keep)


def csv_lines(path: str) -> Iterator[str]:
    """The error rows as CSV (RFC 4180, comma, CRLF) in PostgreSQL's COPY … CSV convention, so
    NULL and the empty string stay apart: NULL is an empty unquoted field, an empty string is
    `""`. Other fields are quoted only when they hold a comma, a quote or a line break. PostgreSQL
    (`COPY … FROM … (FORMAT csv)`), Python 3.12+ (`csv.reader(f, quoting=csv.QUOTE_NOTNULL)`),
    DuckDB (`read_csv(…, allow_quoted_nulls = false)`) and spreadsheets read them back apart."""
    table = _table(path)
    if table is None:
        return
    yield _csv_row([spreadsheet_safe(name) for name in table.schema.names])
    for batch in table.to_batches():
        yield "".join(_csv_row([_csv_cell(v) for v in row.values()]) for row in batch.to_pylist())


def _csv_row(cells: list[Any]) -> str:
    return ",".join(_csv_field(cell) for cell in cells) + "\r\n"


def _csv_field(value: Any) -> str:
    if value is None:
        return ""  # NULL: nothing between the commas
    text = str(value)
    if text == "" or any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_cell(value: Any) -> Any:
    if value is None:
        return None
    # Text as stored is neutralized; numbers, decimals and dates never start a formula (-3.00 stays).
    return spreadsheet_safe(value) if isinstance(value, str) else _json_value(value)
