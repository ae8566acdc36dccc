"""The Python and SQL API: ``timelineview.open(paths)`` → a :class:`Session` of DataFrames, Arrow tables
and DuckDB SQL over a run (needs the ``[api]`` extra: pandas, pyarrow, duckdb)."""

from timelineview.api.extras import MissingExtra
from timelineview.api.schema import Column, TableSpec, register
from timelineview.api.session import CardInfo, NothingReadable, Session, open
from timelineview.api.sql import QueryCancelled, QueryError, SqlEngine
from timelineview.api.tables import TABLES

__all__ = ["TABLES", "CardInfo", "Column", "MissingExtra", "NothingReadable", "QueryCancelled", "QueryError",
           "Session", "SqlEngine", "TableSpec", "open", "register"]
