"""The tables of the Python and SQL API: their columns (name, type, meaning) and how each is built.

``TABLES`` is the one list: ``timelineview query --tables``, ``docs/sql.md`` and the window's Query tab
read it. Another analysis adds its table with :func:`register` (a :class:`TableSpec` whose ``build``
takes a :class:`TableSource` and returns a ``pyarrow.Table`` of exactly its columns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from timelineview.model.store.trace_store import TraceStore

# column types, as ``--tables`` prints them; pyarrow types are made from these when a table is built
DICT = "dictionary<string>"  # interned text: an int32 code per row and each distinct value once
STRING, INT64, INT32, INT16 = "string", "int64", "int32", "int16"
DOUBLE, BOOL, STRINGS = "double", "bool", "list<string>"


@dataclass(frozen=True)
class Column:
    """One column of a table: its name, type (one of the constants above) and meaning."""

    name: str
    type: str
    doc: str


class TableSource(Protocol):
    """What a table is built from: the loaded cards (``stores`` in load order, ``order`` their positions by
    rank; none for a summary folder) and the ``stats --json`` document (computed when first asked for)."""

    stores: Sequence[TraceStore]
    order: Sequence[int]

    def document(self) -> dict: ...


@dataclass(frozen=True)
class TableSpec:
    """A table: name, what one row is, its columns, and ``build(source) -> pyarrow.Table``.
    ``needs_analysis``: building it computes the analysis (the stats document), not only the loaded columns."""

    name: str
    doc: str
    columns: tuple[Column, ...]
    build: Callable[[TableSource], Any]
    needs_analysis: bool = True

    def arrow_schema(self):
        import pyarrow as pa

        return pa.schema([pa.field(c.name, arrow_type(c.type)) for c in self.columns])


TABLES: dict[str, TableSpec] = {}


def register(spec: TableSpec) -> TableSpec:
    """Add (or replace) a table of the API and of ``timelineview query``."""
    TABLES[spec.name] = spec
    return spec


def arrow_type(text: str):
    """The pyarrow type of a column type constant."""
    import pyarrow as pa

    return {DICT: pa.dictionary(pa.int32(), pa.string()), STRING: pa.string(), INT64: pa.int64(),
            INT32: pa.int32(), INT16: pa.int16(), DOUBLE: pa.float64(), BOOL: pa.bool_(),
            STRINGS: pa.list_(pa.string())}[text]


def describe(spec: TableSpec) -> str:
    """A table's schema as text: its name and meaning, then one line per column."""
    width = max(len(c.name) for c in spec.columns)
    type_width = max(len(c.type) for c in spec.columns)
    lines = [f"{spec.name}: {spec.doc}"]
    lines += [f"  {c.name:<{width}}  {c.type:<{type_width}}  {c.doc}" for c in spec.columns]
    return "\n".join(lines)
