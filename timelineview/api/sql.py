"""SQL over a session's tables with DuckDB: each table is registered as an Arrow table (DuckDB scans
Arrow's buffers in place), and only the tables a query names are built, so a query over ``slices`` does
not compute the analysis."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple, Protocol

from timelineview.api.extras import require
from timelineview.api.tables import TABLES

if TYPE_CHECKING:
    import pyarrow

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
BATCH_ROWS = 65_536  # rows of a query's result held at once when it is streamed
SOURCE_LINE = "LINE "  # where DuckDB's message turns to quoting the query


class QueryError(ValueError):
    """The query cannot run (syntax, an unknown table or column, a type error): one line that says why."""


class QueryCancelled(Exception):
    """The query was interrupted (``SqlEngine.interrupt``)."""


class QueryRows(NamedTuple):
    """A query's result: its column names and up to ``limit`` rows, with the number of rows it has."""

    columns: list[str]
    rows: list[tuple]
    total: int


def tables_named(query: str) -> list[str]:
    """The tables of ``TABLES`` whose names appear as words in ``query`` (in the registry's order)."""
    words = {w.lower() for w in WORD.findall(query)}
    return [name for name in TABLES if name in words]


def one_line(exc: BaseException) -> str:
    """DuckDB's message on one line: its text up to the quoted query, lines joined."""
    lines = []
    for line in str(exc).splitlines():
        if line.startswith(SOURCE_LINE):
            break
        if line.strip():
            lines.append(line.strip())
    return " ".join(lines) or type(exc).__name__


class TableSource(Protocol):
    """What the engine queries: anything that builds a table of ``TABLES`` by name (a ``Session``)."""

    def table(self, name: str) -> pyarrow.Table: ...


class SqlEngine:
    """A DuckDB connection over one session's tables. ``interrupt()`` (from any thread) cancels the
    query running; the connection stays usable."""

    def __init__(self, session: TableSource) -> None:
        self.duckdb = require("duckdb")
        self.session = session
        self.connection = self.duckdb.connect()
        self._registered: set[str] = set()
        self._cancelled = False

    def register(self, names: list[str]) -> None:
        """Build and register ``names`` (those not registered yet)."""
        for name in names:
            if name not in self._registered:
                self.connection.register(name, self.session.table(name))
                self._registered.add(name)

    def _run(self, query: str):
        """``query``'s rows as a pyarrow Table, or None for a statement without rows (e.g. SET)."""
        self._cancelled = False
        self.register(tables_named(query))
        if self._cancelled:  # while the tables were built: DuckDB had nothing to interrupt yet
            raise QueryCancelled()
        with self._said_as_query_errors():
            relation = self.connection.sql(query)
            return None if relation is None else relation.to_arrow_table()

    def arrow(self, query: str) -> pyarrow.Table:
        """All rows of ``query`` as a pyarrow Table. Raises :class:`QueryError` or :class:`QueryCancelled`."""
        table = self._run(query)
        return require("pyarrow").table({}) if table is None else table

    def rows(self, query: str, limit: int | None = None) -> QueryRows:
        """``query``'s column names and rows as Python values (the first ``limit`` rows, when given) and the
        number of rows it has."""
        table = self._run(query)
        if table is None:
            return QueryRows([], [], 0)
        shown = table if limit is None else table.slice(0, limit)
        columns = shown.column_names
        values = [shown.column(i).to_pylist() for i in range(len(columns))]
        return QueryRows(list(columns), list(zip(*values)), table.num_rows)

    def batches(self, query: str, rows_per_batch: int = BATCH_ROWS) -> tuple[list[str], Iterator[list[tuple]]]:
        """``query``'s column names and its rows, streamed ``rows_per_batch`` at a time (memory bounded by a batch,
        not by the result: a result larger than memory is never built whole). Raises :class:`QueryError` or
        :class:`QueryCancelled`, also while the batches are read."""
        self._cancelled = False
        self.register(tables_named(query))
        if self._cancelled:
            raise QueryCancelled()
        with self._said_as_query_errors():
            relation = self.connection.sql(query)
            if relation is None:
                return [], iter(())
            # to_arrow_reader where this DuckDB has it (fetch_record_batch is deprecated there)
            reader = getattr(relation, "to_arrow_reader", relation.fetch_record_batch)(rows_per_batch)
        columns = list(reader.schema.names)

        def rows() -> Iterator[list[tuple]]:
            while True:
                with self._said_as_query_errors():
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        return
                values = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
                yield list(zip(*values))

        return columns, rows()

    @contextmanager
    def _said_as_query_errors(self) -> Iterator[None]:
        try:
            yield
        except self.duckdb.InterruptException:
            raise QueryCancelled() from None
        except self.duckdb.Error as exc:
            if self._cancelled:
                raise QueryCancelled() from None
            raise QueryError(one_line(exc)) from None

    def close(self) -> None:
        """Close the connection (DuckDB's workers finish the tasks of an interrupted query first)."""
        self.connection.close()

    def interrupt(self) -> None:
        """Cancel the query running (from another thread or a signal handler)."""
        self._cancelled = True
        self.connection.interrupt()
