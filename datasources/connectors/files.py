"""File datasources: every subdirectory or matching file directly under `path` is one dataset,
named by it without its extension. Schemas come from pyarrow, which reads only
footers (Parquet, ORC) or the first block (CSV, JSON).

pyarrow is imported only where it is needed (remote listings, schemas): listing a local directory
(every run start, every run in the worker) must not cost a process pyarrow and pandas (~140 MB),
which is most of what `make run` holds when no batch needs Spark."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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


@dataclass(frozen=True)
class Entry:
    """One dataset under the source's path: a directory or a file."""

    path: str
    base_name: str
    is_dir: bool


class FileConnector:
    def __init__(self, datasource):
        self.ds = datasource
        self.extensions = EXTENSIONS.get(datasource.format, ())

    def _filesystem(self):
        import pyarrow as pa
        import pyarrow.fs as pa_fs

        if self.ds.is_remote_path:
            uri = self.ds.path.replace("s3a://", "s3://", 1)
            try:
                return pa_fs.FileSystem.from_uri(uri)
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise ConnectorError(
                    _("Cannot open %(path)s: %(error)s") % {"path": self.ds.path, "error": exc}
                ) from None
        return pa_fs.LocalFileSystem(), str(self.ds.local_path())

    def _entries(self) -> dict[str, Entry]:
        listing = self._remote_listing() if self.ds.is_remote_path else self._local_listing()
        datasets: dict[str, Entry] = {}
        for entry in listing:
            if _hidden(entry.base_name):
                continue
            if entry.is_dir:
                datasets[entry.base_name] = entry
            elif entry.base_name.lower().endswith(self.extensions):
                datasets[_strip_extension(entry.base_name, self.extensions)] = entry
        return datasets

    def _local_listing(self) -> list[Entry]:
        root = self.ds.local_path()
        if not root.is_dir():
            raise ConnectorError(_("%(path)s is not a directory that can be read.") % {"path": self.ds.path})
        try:
            with os.scandir(root) as entries:
                return [
                    Entry(entry.path, entry.name, entry.is_dir())
                    for entry in entries
                    if entry.is_dir() or entry.is_file()
                ]
        except OSError as exc:
            raise ConnectorError(_("Cannot list %(path)s: %(error)s") % {"path": self.ds.path, "error": exc}) from None

    def _remote_listing(self) -> list[Entry]:
        import pyarrow as pa
        import pyarrow.fs as pa_fs

        fs, root = self._filesystem()
        try:
            info = fs.get_file_info(root)
            if info.type != pa_fs.FileType.Directory:
                raise ConnectorError(_("%(path)s is not a directory that can be read.") % {"path": self.ds.path})
            listing = fs.get_file_info(pa_fs.FileSelector(root, recursive=False))
        except (OSError, pa.ArrowException) as exc:
            raise ConnectorError(_("Cannot list %(path)s: %(error)s") % {"path": self.ds.path, "error": exc}) from None
        return [
            Entry(e.path, e.base_name, e.type == pa_fs.FileType.Directory)
            for e in listing
            if e.type in (pa_fs.FileType.Directory, pa_fs.FileType.File)
        ]

    def test(self) -> str:
        count = len(self._entries())
        return ngettext(
            "Read %(path)s: %(count)s %(format)s dataset found.",
            "Read %(path)s: %(count)s %(format)s datasets found.",
            count,
        ) % {"path": self.ds.path, "count": count, "format": self.ds.format}

    def tables(self) -> list[str]:
        return sorted(self._entries())

    def columns(self, table: str) -> list[Column]:
        """The dataset's columns as its first data file has them, which is the schema Spark and a
        pyarrow dataset infer without a merge. Read with the format's own pyarrow reader, not
        pyarrow.dataset: that one imports pandas, ~70 MB more in the web process for good."""
        entry = self._entries().get(table)
        if entry is None:
            raise TableNotFound(
                _("Dataset %(table)s does not exist under %(path)s.") % {"table": repr(table), "path": self.ds.path}
            )
        import pyarrow as pa

        fs, _root = self._filesystem()
        try:
            first = self._first_file(fs, entry)
            if first is None:
                raise ConnectorError(
                    _("Dataset %(table)s holds no data file to read a schema from.") % {"table": repr(table)}
                )
            schema = self._schema(fs, first)
        except (OSError, pa.ArrowException, ValueError) as exc:
            raise ConnectorError(
                _("Cannot read the schema of %(table)s: %(error)s") % {"table": repr(table), "error": exc}
            ) from None
        return [Column(field.name, str(field.type)) for field in schema]

    def _first_file(self, fs, entry: Entry) -> str | None:
        """The entry itself, or the first file of its directory tree in path order, leaving out
        hidden names at any depth (Spark's _SUCCESS, .crc files) as the readers do."""
        if not entry.is_dir:
            return entry.path
        import pyarrow.fs as pa_fs

        root = entry.path.rstrip("/")
        files = [
            info.path
            for info in fs.get_file_info(pa_fs.FileSelector(root, recursive=True))
            if info.type == pa_fs.FileType.File
            and not any(_hidden(part) for part in info.path[len(root) :].split("/") if part)
        ]
        return min(files) if files else None

    def modified_at(self, table: str) -> datetime:
        """When dataset `table` last changed: the newest modification time of its data files
        (hidden names left out, as the readers do), in UTC."""
        entry = self._entries().get(table)
        if entry is None:
            raise TableNotFound(
                _("Dataset %(table)s does not exist under %(path)s.") % {"table": repr(table), "path": self.ds.path}
            )
        import pyarrow as pa
        import pyarrow.fs as pa_fs

        fs, _root = self._filesystem()
        try:
            if entry.is_dir:
                root = entry.path.rstrip("/")
                infos = [
                    info
                    for info in fs.get_file_info(pa_fs.FileSelector(root, recursive=True))
                    if info.type == pa_fs.FileType.File
                    and not any(_hidden(part) for part in info.path[len(root) :].split("/") if part)
                ]
            else:
                infos = [fs.get_file_info(entry.path)]
        except (OSError, pa.ArrowException) as exc:
            raise ConnectorError(
                _("Cannot read the files of %(table)s: %(error)s") % {"table": repr(table), "error": exc}
            ) from None
        times = [info.mtime for info in infos if info.mtime is not None]
        if not times:
            raise ConnectorError(
                _("Dataset %(table)s holds no data file to read a modification time from.") % {"table": repr(table)}
            )
        newest = max(times)
        return newest if newest.tzinfo else newest.replace(tzinfo=UTC)

    def _schema(self, fs, path: str):
        if self.ds.format == "parquet":
            import pyarrow.parquet as pq

            with fs.open_input_file(path) as f:
                return pq.read_schema(f)
        if self.ds.format == "orc":
            import pyarrow.orc as orc

            with fs.open_input_file(path) as f:
                return orc.ORCFile(f).schema
        if self.ds.format == "csv":
            import pyarrow.csv as pa_csv

            delimiter = str(self.ds.options.get("delimiter", ","))
            with fs.open_input_stream(path) as f:
                return pa_csv.open_csv(f, parse_options=pa_csv.ParseOptions(delimiter=delimiter)).schema
        import pyarrow.json as pa_json

        with fs.open_input_stream(path) as f:
            return pa_json.open_json(f).schema

    def dataset_path(self, table: str) -> str:
        """Where Spark reads dataset `table`: the file or directory (a URI for remote sources)."""
        entry = self._entries().get(table)
        if entry is None:
            raise TableNotFound(
                _("Dataset %(table)s does not exist under %(path)s.") % {"table": repr(table), "path": self.ds.path}
            )
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


def _strip_extension(name: str, extensions: tuple[str, ...]) -> str:
    lower = name.lower()
    for ext in extensions:
        if lower.endswith(ext):
            return name[: -len(ext)]
    return Path(name).stem
