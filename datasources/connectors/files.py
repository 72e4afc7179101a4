"""File datasources: every subdirectory or matching file directly under `path` is one dataset,
named by it without its extension (DESIGN.md). Schemas come from pyarrow, which reads only
footers (Parquet, ORC) or the first block (CSV, JSON)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.dataset as pa_ds
import pyarrow.fs as pa_fs

from .base import Column, ConnectorError, TableNotFound, reader_options

EXTENSIONS = {
    "parquet": (".parquet", ".parq"),
    "csv": (".csv",),
    "json": (".json", ".jsonl", ".ndjson"),
    "orc": (".orc",),
}


def _hidden(name: str) -> bool:
    # Spark and Hadoop leave _SUCCESS, _temporary and .crc files beside the data.
    return name.startswith((".", "_"))


class FileConnector:
    def __init__(self, datasource):
        self.ds = datasource
        self.extensions = EXTENSIONS.get(datasource.format, ())

    def _filesystem(self) -> tuple[pa_fs.FileSystem, str]:
        if self.ds.is_remote_path:
            uri = self.ds.path.replace("s3a://", "s3://", 1)
            try:
                return pa_fs.FileSystem.from_uri(uri)
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise ConnectorError(f"Cannot open {self.ds.path}: {exc}") from None
        return pa_fs.LocalFileSystem(), str(self.ds.local_path())

    def _entries(self) -> dict[str, pa_fs.FileInfo]:
        fs, root = self._filesystem()
        try:
            info = fs.get_file_info(root)
            if info.type != pa_fs.FileType.Directory:
                raise ConnectorError(f"{self.ds.path} is not a directory that can be read.")
            listing = fs.get_file_info(pa_fs.FileSelector(root, recursive=False))
        except (OSError, pa.ArrowException) as exc:
            raise ConnectorError(f"Cannot list {self.ds.path}: {exc}") from None
        datasets: dict[str, pa_fs.FileInfo] = {}
        for entry in listing:
            if _hidden(entry.base_name):
                continue
            if entry.type == pa_fs.FileType.Directory:
                datasets[entry.base_name] = entry
            elif entry.type == pa_fs.FileType.File and entry.base_name.lower().endswith(self.extensions):
                datasets[_strip_extension(entry.base_name, self.extensions)] = entry
        return datasets

    def test(self) -> str:
        count = len(self._entries())
        return f"Read {self.ds.path}: {count} {self.ds.format} dataset{'s' if count != 1 else ''} found."

    def tables(self) -> list[str]:
        return sorted(self._entries())

    def columns(self, table: str) -> list[Column]:
        entry = self._entries().get(table)
        if entry is None:
            raise TableNotFound(f"Dataset {table!r} does not exist under {self.ds.path}.")
        fs, _ = self._filesystem()
        try:
            dataset = pa_ds.dataset(
                entry.path,
                filesystem=fs,
                format=self._format(),
                exclude_invalid_files=False,
                ignore_prefixes=[".", "_"],
            )
            schema = dataset.schema
        except (OSError, pa.ArrowException, ValueError) as exc:
            raise ConnectorError(f"Cannot read the schema of {table!r}: {exc}") from None
        return [Column(field.name, str(field.type)) for field in schema]

    def dataset_path(self, table: str) -> str:
        """Where Spark reads dataset `table`: the file or directory (a URI for remote sources)."""
        entry = self._entries().get(table)
        if entry is None:
            raise TableNotFound(f"Dataset {table!r} does not exist under {self.ds.path}.")
        if self.ds.is_remote_path:
            return self.ds.path.rstrip("/") + "/" + entry.base_name
        return entry.path

    def engine_source(self, table: str, secrets: dict[str, str]) -> dict:
        return {
            "kind": "file",
            "format": self.ds.format,
            "path": self.dataset_path(table),
            "options": reader_options(self.ds),
        }

    def _format(self):
        if self.ds.format == "csv":
            delimiter = str(self.ds.options.get("delimiter", ","))
            return pa_ds.CsvFileFormat(parse_options=pa_csv.ParseOptions(delimiter=delimiter))
        return self.ds.format


def _strip_extension(name: str, extensions: tuple[str, ...]) -> str:
    lower = name.lower()
    for ext in extensions:
        if lower.endswith(ext):
            return name[: -len(ext)]
    return Path(name).stem
