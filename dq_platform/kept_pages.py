"""List pages kept, per web process, while the platform's database has not changed.

A crowd reading the platform mostly asks the same pages again: dashboards poll, a team opens the
same lists. Each such page is a few visibility-filtered queries and the JSON of fifty rows, the
same answer as long as nothing was written. So the rendered bytes of a list page are kept for its
user and URL and given again while the database's *data version* is the one they were made at,
and for at most `DQ_KEPT_PAGE_SECONDS` (a page can depend on the clock: the dashboard's last 24
hours, a mute that ends).

The data version changes with every committed write by anyone (a worker recording results, a
schedule, another web process):

- SQLite: `PRAGMA data_version` on a connection of this process that never writes. SQLite changes
  it whenever another connection commits, and since this one writes nothing, every commit counts.
- PostgreSQL: the WAL insert position (`pg_current_wal_insert_lsn()`). Every write moves it, and a
  commit writes a commit record, so a page made before a commit is never given after it.

Writes that change nothing a page shows (a worker's heartbeat, a login) only cost a page being
made again. Nothing else may feed a kept page: it is keyed by user, full path and media type, and
only a 200 in JSON is kept (the browsable API's HTML carries a CSRF token). `DQ_KEPT_PAGE_MB=0`
switches keeping off.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import OrderedDict
from urllib.parse import quote

from django.conf import settings
from django.db import connection
from django.http import HttpResponse
from rest_framework.response import Response

_lock = threading.Lock()
# Set afresh for each answer by the middleware, or about this answer only.
UNKEPT_HEADERS = ("content-length", "set-cookie", "date")


class _Pages:
    """An LRU of rendered pages bounded by their bytes."""

    def __init__(self):
        self.entries: OrderedDict[tuple, tuple] = OrderedDict()
        self.size = 0

    def get(self, key: tuple, version, now: float):
        with _lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            made_at, made_version, content, headers = entry
            if made_version != version or now - made_at > settings.DQ_KEPT_PAGE_SECONDS:
                self._drop(key)
                return None
            self.entries.move_to_end(key)
            return content, headers

    def put(self, key: tuple, version, now: float, content: bytes, headers: tuple) -> None:
        budget = settings.DQ_KEPT_PAGE_MB * 1024 * 1024
        if len(content) > budget // 8:  # one page never crowds out the rest
            return
        with _lock:
            self._drop(key)
            self.entries[key] = (now, version, content, headers)
            self.size += len(content)
            while self.size > budget:
                self._drop(next(iter(self.entries)))

    def _drop(self, key: tuple) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.size -= len(entry[2])

    def clear(self) -> None:
        with _lock:
            self.entries.clear()
            self.size = 0


pages = _Pages()


class _SqliteWatcher:
    """One read-only connection per process, asked for SQLite's data version."""

    def __init__(self):
        self.opened_for = None
        self.connection = None

    def version(self, path: str) -> int:
        with _lock:
            if self.opened_for != (os.getpid(), path):  # a forked web process opens its own
                if self.connection is not None and self.opened_for[0] == os.getpid():
                    self.connection.close()
                self.opened_for = (os.getpid(), path)
                self.connection = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, check_same_thread=False)
            return self.connection.execute("PRAGMA data_version").fetchone()[0]


_sqlite = _SqliteWatcher()


def data_version():
    """A value that differs after any committed write to the platform's database; None when this
    database cannot say, or inside a transaction (whose own writes are not committed yet): then
    nothing is kept."""
    if connection.in_atomic_block:
        return None
    vendor = connection.vendor
    if vendor == "sqlite":
        path = str(connection.settings_dict["NAME"])
        if path == ":memory:" or path.startswith("file:"):
            return None
        return (path, sqlite_version(path))
    if vendor == "postgresql":
        with connection.cursor() as cursor:
            return (connection.settings_dict["NAME"], postgres_version(cursor))
    return None


def sqlite_version(path: str) -> int:
    return _sqlite.version(path)


def postgres_version(cursor) -> str:
    cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
    return cursor.fetchone()[0]


def kept(request, make):
    """The page `make()` answers for this DRF request, made once per data version.

    Call it from a view after authentication and content negotiation (`list()`, an `api_view`).
    """
    if settings.DQ_KEPT_PAGE_MB <= 0 or request.method != "GET" or request.accepted_renderer.format != "json":
        return make()
    version = data_version()
    if version is None:
        return make()
    key = (request.user.pk, request.get_full_path(), request.accepted_media_type)
    hit = pages.get(key, version, time.monotonic())
    if hit is not None:
        content, headers = hit
        answer = HttpResponse(content)
        for name, value in headers:
            answer[name] = value
        return answer
    made_at = time.monotonic()
    response = make()
    if isinstance(response, Response) and response.status_code == 200:

        def keep(rendered):
            headers = tuple((k, v) for k, v in rendered.items() if k.lower() not in UNKEPT_HEADERS)
            pages.put(key, version, made_at, rendered.content, headers)
            return rendered

        response.add_post_render_callback(keep)
    return response
