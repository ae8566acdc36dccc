"""The declaration of one per-card result: its name, how it is computed from the card, its columns (each a key
of the vocabulary or a described text, with its kind) and where it lies in the card object.

Everything else a result needs is derived from this record: the analysis stage that computes it, its kept
encoding (:mod:`.kept_columns`), its place in the §5 card object and so in a card's summary (:mod:`.section`),
its JSON-schema fragment (:mod:`.schema_fragment`) and its SQL table (``api/result_tables``). No Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from timelineview.analysis.vocabulary import declared

# the kinds of a column's values, as the card object holds them
TEXT = "text"  # a str
INTEGER = "integer"  # an int (never a bool)
NUMBER = "number"  # a float (a NaN stays one; None only where the column is ``nullable``)
KINDS = (TEXT, INTEGER, NUMBER)


@dataclass(frozen=True)
class ResultColumn:
    """One column of a result: ``key`` (a quantity of the vocabulary unless ``doc`` describes it), its
    ``kind`` and whether a row may hold None (``nullable``)."""

    key: str
    kind: str = NUMBER
    nullable: bool = False
    doc: str = ""  # what a column that is not a quantity of the vocabulary holds

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is one of this column's values, of exactly its kind's type."""
        if value is None:
            return self.nullable
        return type(value) is {TEXT: str, INTEGER: int, NUMBER: float}[self.kind]


@dataclass(frozen=True)
class SharedInput:
    """A computation several results draw on (``inputs`` of each), made by ``compute(store, analysis)`` once the
    fields ``needs`` are there: once per card analysis, by the first of those results computed. It is never kept
    and never made for a result read back from what an earlier open kept. A result reads it as
    ``analysis.inputs[name]``."""

    name: str
    compute: Callable[[Any, Any], Any]
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class CardResult:
    """A per-card result: rows (dicts of its ``columns``, in their order) computed by ``compute(store,
    analysis)`` once the fields ``needs`` of the card's analysis are there.

    ``section``: its keys from the card object down (the rows are the last key's value), or None for a result
    that is not part of the card object (then neither summarised nor a table). ``table``: the name of its SQL
    table (None: none), ``table_doc`` what one row is, ``table_order`` its columns' order in the table when
    not the declared one. ``kept``: kept with the card's cache entry (read back on a re-open). ``inputs``: the
    shared computations ``compute`` reads (made before it, once per card analysis however many results read them).
    """

    name: str
    compute: Callable[[Any, Any], list[dict]]
    needs: tuple[str, ...]
    columns: tuple[ResultColumn, ...]
    section: tuple[str, ...] | None = None
    table: str | None = None
    table_doc: str = ""
    table_order: tuple[str, ...] | None = None
    kept: bool = True
    inputs: tuple[SharedInput, ...] = ()

    def __post_init__(self) -> None:
        keys = [c.key for c in self.columns]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.name}: a column is declared twice")
        for c in self.columns:
            if c.kind not in KINDS:
                raise ValueError(f"{self.name}.{c.key}: kind {c.kind!r} is none of {KINDS}")
            if not c.doc and not declared(c.key):
                raise ValueError(f"{self.name}.{c.key}: neither a quantity of the vocabulary nor described")
        if self.table_order is not None and sorted(self.table_order) != sorted(keys):
            raise ValueError(f"{self.name}: its table's columns are not its columns")
        if self.table is not None and self.section is None:
            raise ValueError(f"{self.name}: a table is read from the card object, and it has no section there")

    @property
    def stage_needs(self) -> tuple[str, ...]:
        """The fields of the card's analysis computed before this result: its own needs and its inputs'."""
        return tuple(dict.fromkeys([*self.needs, *(n for i in self.inputs for n in i.needs)]))

    @property
    def summarised(self) -> bool:
        """Whether the result is part of the card object (and so of ``stats --json`` and of a card's summary)."""
        return self.section is not None

    def column(self, key: str) -> ResultColumn:
        return next(c for c in self.columns if c.key == key)

    def rows_problem(self, rows: Any, printed: bool = False) -> str:
        """Why ``rows`` are not rows of this result ("" when they are): a list of dicts holding exactly the
        declared columns, in their order, each value of its column's kind. ``printed``: rows read back from
        JSON, where a number that is not finite was written as null."""
        if not isinstance(rows, list):
            return f"{self.name} is not a list"
        keys = [c.key for c in self.columns]
        for k, row in enumerate(rows):
            if not isinstance(row, dict) or list(row) != keys:
                return f"{self.name} row {k} does not hold the columns {keys}"
            for c in self.columns:
                value = row[c.key]
                if not (c.accepts(value) or (printed and value is None and c.kind == NUMBER)):
                    return f"{self.name} row {k}: {c.key} is not a {c.kind}"
        return ""


def checked_rows(result: CardResult, rows: Sequence[dict]) -> list[dict]:
    """``rows`` as computed, after checking they are what ``result`` declares (else ValueError naming why)."""
    rows = list(rows)
    if problem := result.rows_problem(rows):
        raise ValueError(problem)
    return rows
