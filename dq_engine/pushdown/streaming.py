"""A SELECT's rows streamed from the database in chunks, for row rules' cleansed output (every row
of the batch with its marks), which can be far larger than memory.

The same read-only transaction and statement timeout as `Database.fetch` (connection.py), with a
cursor that keeps the result on the server: a PostgreSQL named (server-side) cursor, a PyMySQL
unbuffered `SSCursor`. The connection's lock is held until the last chunk is read, so no other
statement of the run interleaves with the stream (the passes run one at a time anyway).
"""

from __future__ import annotations

from collections.abc import Iterator

from dq_engine.pushdown.connection import POSTGRES, Database

CHUNK_ROWS = 10_000


def stream(db: Database, sql: str, chunk_rows: int = CHUNK_ROWS) -> tuple[list[str], Iterator[list[tuple]]]:
    """(column names, chunks of at most `chunk_rows` rows). The statement runs at once (its
    errors raise here); the chunks are read as they are consumed, and the transaction ends after
    the last one (or when the iterator is closed)."""
    rows = _postgres(db, sql, chunk_rows) if db.where.dialect == POSTGRES else _mysql(db, sql, chunk_rows)
    names = next(rows)
    return names, rows  # type: ignore[return-value]


def _postgres(db: Database, sql: str, chunk_rows: int) -> Iterator:
    with db.lock, db.conn.transaction():
        with db.conn.cursor() as setup:
            setup.execute("SET TRANSACTION READ ONLY")
            setup.execute("SELECT set_config('statement_timeout', %s, true)", (f"{db.timeout}s",))
        with db.conn.cursor(name="dq_marked_rows") as cur:
            cur.itersize = chunk_rows
            cur.execute(sql.encode("utf-8"))
            yield [column.name for column in cur.description or []]
            while chunk := cur.fetchmany(chunk_rows):
                yield chunk


def _mysql(db: Database, sql: str, chunk_rows: int) -> Iterator:
    import pymysql.cursors

    with db.lock, db.conn.cursor(pymysql.cursors.SSCursor) as cur:
        cur.execute("START TRANSACTION READ ONLY")
        try:
            cur.execute(sql)  # no args: PyMySQL interpolates nothing into the text
            yield [column[0] for column in cur.description or []]
            while chunk := list(cur.fetchmany(chunk_rows)):
                yield chunk
        finally:
            try:
                cur.fetchall()  # an unbuffered result must be read to its end before the next statement
                cur.execute("COMMIT")
            except Exception:  # noqa: BLE001 - a dead connection: the statement's error says why
                pass
