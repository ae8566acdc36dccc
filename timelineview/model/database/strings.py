"""``STRING_IDS`` and the ``ENUM_*`` tables: every name in a profiler database is an id into them.

The card's string list starts with the database's strings (sorted by id), so a column of
string ids becomes a column of the card's string ids with one ``searchsorted``; strings the
reader makes itself (lane names, ``AscendCL@…``) are appended after them.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database.sqlite.tables import STRING_TABLE, Schema, find_sorted, read_columns, read_or_salvage

ENUM_PREFIX = "ENUM_"
UNKNOWN_ID = "(unknown name #{})"  # an id that STRING_IDS does not hold
LUT_PER_STRING, LUT_MIN = 4, 1 << 16  # ids spanning up to this get a lookup table (else a binary search)


class CardStrings:
    """The card's interned strings: the database's first, then the reader's own."""

    def __init__(self, ids: np.ndarray, values: list[str]) -> None:
        order = np.argsort(ids, kind="stable")
        self.ids = np.ascontiguousarray(ids[order])
        self.strings: list[str] = [values[i] for i in order.tolist()]
        self._own: dict[str, int] = {}
        self._lut: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.strings)

    def intern(self, s: str) -> int:
        """Card string id of ``s`` (added when new)."""
        if not self._own:  # the database's strings first: a name it holds keeps its id
            self._own = {v: i for i, v in reversed(list(enumerate(self.strings)))}
        i = self._own.get(s)
        if i is None:
            i = self._own[s] = len(self.strings)
            self.strings.append(s)
        return i

    def of_ids(self, db_ids: np.ndarray) -> np.ndarray:
        """Card string ids (int32) of a column of database string ids; an id the table lacks gets
        an ``UNKNOWN_ID`` string of its own, NULL (-1) gets -1."""
        db_ids = np.asarray(db_ids, dtype=np.int64)
        if not len(db_ids):
            return np.zeros(0, np.int32)
        pos = self._positions(db_ids)
        found = pos >= 0
        out = pos.astype(np.int32)
        lost = ~found & (db_ids >= 0)
        if lost.any():
            uniq, inverse = np.unique(db_ids[lost], return_inverse=True)
            made = np.array([self.intern(UNKNOWN_ID.format(int(u))) for u in uniq], dtype=np.int32)
            out[lost] = made[inverse]
        return out

    def _positions(self, db_ids: np.ndarray) -> np.ndarray:
        """Position of each id in ``ids`` (-1 when absent): a lookup table over the ids (STRING_IDS
        numbers its strings 0, 1, …), else a binary search."""
        if not len(self.ids) or self.ids[0] < 0 or self.ids[-1] >= max(LUT_PER_STRING * len(self.ids), LUT_MIN):
            return find_sorted(self.ids, db_ids)
        if self._lut is None:
            self._lut = np.full(int(self.ids[-1]) + 2, -1, np.int64)  # the last: every id out of range
            self._lut[self.ids[::-1]] = np.arange(len(self.ids))[::-1]  # a repeated id: its first, as searched
        last = len(self._lut) - 1
        return self._lut[np.where((db_ids >= 0) & (db_ids < last), db_ids, last)]

    def value(self, db_id: int) -> str | None:
        """The text of one database string id (None when absent)."""
        if not len(self.ids):
            return None
        k = int(np.searchsorted(self.ids, db_id))
        return self.strings[k] if k < len(self.ids) and int(self.ids[k]) == db_id else None

    def prefixed(self, prefix_of: np.ndarray, prefixes: list[str], name_ids: np.ndarray) -> np.ndarray:
        """Card ids of ``prefixes[prefix_of[i]] + name`` (no prefix when ``prefix_of[i]`` < 0), one
        new string per distinct pair."""
        names = self.of_ids(name_ids)
        out = names.copy()
        has = prefix_of >= 0
        if not has.any():
            return out
        key = prefix_of[has].astype(np.int64) * (1 << 32) + names[has].astype(np.int64) + 1  # NULL name: 0
        uniq, inverse = np.unique(key, return_inverse=True)
        made = np.array([self.intern(prefixes[int(u >> 32)] + self._text(int(u & 0xFFFFFFFF) - 1))
                         for u in uniq], dtype=np.int32)
        out[has] = made[inverse]
        return out

    def _text(self, card_id: int) -> str:
        return self.strings[card_id] if 0 <= card_id < len(self.strings) else ""


def read_strings(conn: sqlite3.Connection, schema: Schema, notes: list[str]) -> CardStrings:
    """The database's ``STRING_IDS`` (empty when the table is missing or unreadable: names show as ids)."""
    cols = read_or_salvage(conn, STRING_TABLE, {"id": "int", "value": "text"}, notes) \
        if schema.has(STRING_TABLE, "id", "value") else None
    if cols is None:
        return CardStrings(np.zeros(0, np.int64), [])
    return CardStrings(cols["id"], cols["value"].tolist())


def read_enums(conn: sqlite3.Connection, schema: Schema) -> dict[str, dict[int, str]]:
    """Every ``ENUM_*`` table as ``{table: {id: name}}`` (a table that cannot be read is left out)."""
    enums: dict[str, dict[int, str]] = {}
    for table in schema.columns:
        if table.startswith(ENUM_PREFIX) and schema.has(table, "id", "name"):
            try:
                cols = read_columns(conn, table, {"id": "int", "name": "text"})
            except sqlite3.DatabaseError:
                continue
            enums[table] = dict(zip(cols["id"].tolist(), cols["name"].tolist(), strict=True))
    return enums
