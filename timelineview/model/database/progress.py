"""Rows read so far of a database card, as the load's progress (and the place a cancel is heard).

The total is the rows of the tables the card reads, estimated before reading from each table's
largest ``rowid`` (one B-tree descent each, not a count).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from timelineview.model.database.sqlite.table_names import rowid_span
from timelineview.model.database.sqlite.tables import Schema

RowProgress = Callable[[int, int], None]  # (rows read, rows to read)


class ReadCancelled(Exception):
    """The load was cancelled while a table was being read."""


@dataclass
class RowMeter:
    """Rows read over the card's tables: ``report(done, total)`` after each part of a table."""

    report: RowProgress | None = None
    cancel: threading.Event | None = None
    expected: dict[str, int] = field(default_factory=dict)  # table -> its estimated rows
    finished: int = 0  # the estimated rows of the tables read so far
    done: int = 0

    @property
    def total(self) -> int:
        return max(sum(self.expected.values()), 1)

    def plan(self, conn: sqlite3.Connection, schema: Schema, tables: list[str]) -> None:
        """Estimate the rows of ``tables`` (those present) and report none read yet."""
        for table in tables:
            if table in schema.columns and table not in self.expected:
                self.expected[table] = rowid_span(conn, table)
        self._say()

    def step(self, table: str) -> Callable[[int], None]:
        """The callback one table's read calls with its rows read so far (it raises
        ``ReadCancelled`` once the load is cancelled)."""
        expected = self.expected.get(table, 0)

        def rows_read(rows: int) -> None:
            self.check()
            self.done = self.finished + min(rows, expected)
            self._say()

        return rows_read

    def table_done(self, table: str) -> None:
        """``table`` is read (or left out): its estimate counts as read."""
        self.check()
        self.finished += self.expected.get(table, 0)
        self.done = self.finished
        self._say()

    def finish(self) -> None:
        """Everything is read."""
        self.finished = self.done = self.total
        self._say()

    def check(self) -> None:
        """Raise ``ReadCancelled`` once the load is cancelled."""
        if self.cancel is not None and self.cancel.is_set():
            raise ReadCancelled()

    def _say(self) -> None:
        if self.report is not None:
            self.report(min(self.done, self.total), self.total)
