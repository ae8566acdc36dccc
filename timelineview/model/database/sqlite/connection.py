"""Open a profiler database read-only, and say what is wrong with it before reading.

The database is opened through a ``file:…?mode=ro&immutable=1`` URI: SQLite then takes no lock,
never creates a ``-journal``, ``-wal`` or ``-shm`` file and never rolls anything back, so nothing
is ever written beside the user's data. The price of ``immutable`` is that SQLite no longer
notices a writer: the checks here say so instead (a lock held by another process, a journal or
write-ahead log beside the file, a file shorter than its header says).
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from timelineview.model.load.file_access import file_problem, read_head
from timelineview.model.store.regular_file import NotARegularFile, is_regular

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100  # the database header (sqlite.org/fileformat.html §1.3)
_PAGE_SIZE_AT = 16  # 2 bytes, big-endian; the value 1 means 65536
_PAGE_COUNT_AT = 28  # 4 bytes, big-endian: pages in the database ("in-header database size")
_CHANGE_COUNTER_AT = 24  # the page count above is valid only when this equals the value at 92
_VALID_FOR_AT = 92
_WRITE_VERSION_AT = 18
WAL_VERSION = 2
SIDECARS = ("-journal", "-wal")  # a writer that has not finished (or crashed) leaves these


@dataclass
class DatabaseHealth:
    """What the checks found: ``error`` when nothing can be read, ``warnings`` otherwise."""

    error: str = ""
    warnings: list[str] = field(default_factory=list)
    size: int = 0
    expected: int = 0  # bytes the header announces when the file is shorter (0: not truncated)
    page_size: int = 0


def is_database(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a readable regular file that starts like an SQLite database."""
    head, _ = read_head(path, len(SQLITE_MAGIC))
    return head is not None and head.startswith(SQLITE_MAGIC)


def _uri(path: str | os.PathLike, immutable: bool = True) -> str:
    return "file:" + urllib.parse.quote(str(Path(path).absolute())) + "?mode=ro" + ("&immutable=1" if immutable else "")


def connect(path: str | os.PathLike) -> sqlite3.Connection:
    """A read-only, immutable connection (raises ``sqlite3.Error`` / ``OSError`` as SQLite does).
    Usable from any thread, one at a time."""
    if not is_regular(path):  # SQLite's own open of a FIFO waits for a writer forever
        raise NotARegularFile(f"{path}: not a regular file")
    conn = sqlite3.connect(_uri(path), uri=True, check_same_thread=False)
    conn.execute("pragma query_only = 1")
    return conn


def check(path: str | os.PathLike) -> DatabaseHealth:
    """Check ``path`` before reading it: the file, its header, files beside it, locks."""
    health = DatabaseHealth()
    problem = file_problem(path)
    if problem:
        health.error = f"{path}: {problem}"
        return health
    head, problem = read_head(path, HEADER_BYTES)
    if head is None:
        health.error = f"{path}: {problem}"
        return health
    if not head.startswith(SQLITE_MAGIC):
        health.error = f"{path}: not an SQLite database (its first bytes are not the SQLite header)"
        return health
    health.size = os.stat(path).st_size
    if len(head) == HEADER_BYTES:
        _check_length(path, head, health)
    sidecars = [beside for beside in (Path(str(path) + suffix) for suffix in SIDECARS) if beside.exists()]
    for beside in sidecars:
        health.warnings.append(
            f"{path}: half written: {beside.name} beside it holds changes not in the database (the "
            f"profiler is still writing, or stopped before it finished); what the file itself holds is read")
    wal_mode = len(head) == HEADER_BYTES and head[_WRITE_VERSION_AT] == WAL_VERSION
    # a plain connection to a WAL database (or beside a journal) might create or replay files
    # next to it: the lock is asked only of a rollback-journal database with nothing beside it
    if not wal_mode and not sidecars and _locked(path):
        health.warnings.append(f"{path}: locked by another process (still being written?); read as it is now")
    return health


def _check_length(path: str | os.PathLike, head: bytes, health: DatabaseHealth) -> None:
    page_size = int.from_bytes(head[_PAGE_SIZE_AT:_PAGE_SIZE_AT + 2], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[_PAGE_COUNT_AT:_PAGE_COUNT_AT + 4], "big")
    valid = head[_CHANGE_COUNTER_AT:_CHANGE_COUNTER_AT + 4] == head[_VALID_FOR_AT:_VALID_FOR_AT + 4]
    expected = page_size * pages
    if valid and pages and health.size < expected:
        health.expected, health.page_size = expected, page_size
        health.warnings.append(f"{path}: truncated: {health.size:,} of the {expected:,} bytes its header "
                               f"announces; the tables that can still be read are read")


def _locked(path: str | os.PathLike) -> bool:
    """Whether another process holds a write lock. Asked through a plain read-only connection (no
    ``immutable``): it takes a shared lock for one statement and writes nothing."""
    if not is_regular(path):
        return False
    try:
        conn = sqlite3.connect(_uri(path, immutable=False), uri=True, timeout=0)
    except sqlite3.Error:
        return False
    try:
        conn.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.OperationalError as exc:
        return "locked" in str(exc) or "busy" in str(exc)
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return False
