"""Lazy ``args`` of a database card: read from the database when asked, keyed as the JSON writes them.

The card keeps only where each slice's row is (kind, ``rowid``, info ``rowid``), block by block
(``slices.arg_locator.ArgLocator``: no bytes per slice where rowids run on); asking for the args of some
slices reads those rows (``where rowid in (…)``, a B-tree lookup each) and turns string and
enumeration ids into text. A database that changed since the load raises
``TraceFileChanged`` instead of giving another row's args.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.slices.arg_locator import ArgLocator
from timelineview.model.database.slices.host_slices import TID_MASK
from timelineview.model.database.slices.slice_parts import (
    KIND_CANN,
    KIND_FRAMEWORK,
    KIND_HARDWARE,
    KIND_OPERATOR,
    KIND_PLANE,
)
from timelineview.model.database.slices.table_reads import renamed_copy
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import Schema
from timelineview.model.database.strings import UNKNOWN_ID, CardStrings
from timelineview.model.store.args_reader import CHANGED, REMOVED, TraceFileChanged
from timelineview.model.store.file_stamp import FileStamp, file_stamp
from timelineview.producers import TASK_TYPE_ARG
from timelineview.producers.cann_tasks import THREAD_ID_ARG
from timelineview.producers.hccl import ARG_SIZE

IN_LIST = 20_000  # rowids per query
_INT64_LIMIT = float(1 << 63)  # a real id at or past it is no integer id SQLite could hold
PMU_TABLE = "TASK_PMU_INFO"
ARG_TASK_TYPE = TASK_TYPE_ARG  # the trace argument the decoder reads: a task row gives it the same name
_TABLES = {  # kind -> (table of row, its args, table of info row, its args)
    KIND_HARDWARE: ("TASK", L.HARDWARE_ARGS + (("globalTaskId", ""),), "COMPUTE_TASK_INFO", L.COMPUTE_ARGS),
    KIND_PLANE: ("TASK", L.HARDWARE_ARGS, "COMMUNICATION_TASK_INFO", L.PLANE_ARGS),
    KIND_OPERATOR: ("COMMUNICATION_OP", L.OPERATOR_ARGS, None, ()),
    KIND_CANN: ("CANN_API", L.CANN_ARGS, None, ()),
    KIND_FRAMEWORK: ("PYTORCH_API", L.PYTORCH_ARGS + (("callchainId", ""),), None, ()),
}
_PLANE_TASK_KEYS = {column: key for column, key in L.PLANE_ARGS
                    if column in ("streamId", "taskId", "contextId", "modelId")}


def _select_in(conn: sqlite3.Connection, head: str, ids: Sequence[int] | np.ndarray) -> Iterator[tuple]:
    """The rows of ``head`` (a query ending ``… in``) over the integer ``ids``, ``IN_LIST`` of them a query."""
    for a in range(0, len(ids), IN_LIST):
        yield from conn.execute(f"{head} ({','.join(str(int(i)) for i in ids[a:a + IN_LIST])})")


class DatabaseArgs:
    """Callable: slice ordinals -> args dicts (None for slices without args)."""

    def __init__(self, path: str, schema: Schema, strings: CardStrings, enums: dict[str, dict[int, str]],
                 locator: ArgLocator, task_type: np.ndarray, dur: np.ndarray, stamp: FileStamp | None) -> None:
        self.path = path
        self.schema = schema
        self.strings = strings
        self.enums = enums
        self.locator = locator
        self.task_type, self.dur = task_type, dur
        self.stamp = stamp
        self._lock = threading.Lock()
        # a table msprof renamed (_<NAME>_old_<date>) is read under its own name when only it exists
        self._actual = {t: t for t in schema.columns}
        for canonical in L.STRING_COLUMNS:
            old = renamed_copy(schema, canonical)
            if old is not None and canonical not in schema.columns:
                self._actual[canonical] = old

    def __getstate__(self) -> dict:  # a store sent to another process keeps its lazy args
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _check(self) -> None:
        now = file_stamp(self.path)
        if now is None or now != self.stamp:
            raise TraceFileChanged(f"{self.path}: {REMOVED if now is None else CHANGED}")

    def __call__(self, ordinals: np.ndarray) -> list[dict[str, Any] | None]:
        ordinals = np.asarray(ordinals, dtype=np.int64)
        out: list[dict[str, Any] | None] = [None] * len(ordinals)
        valid = (ordinals >= 0) & (ordinals < len(self.locator))
        if not valid.any():
            return out
        self._check()
        with self._lock:
            try:
                conn = connect(self.path)
            except (sqlite3.Error, OSError) as exc:
                raise TraceFileChanged(f"{self.path}: cannot be read again ({exc})") from exc
            try:
                self._fill(conn, ordinals, valid, out)
            except sqlite3.DatabaseError as exc:
                raise TraceFileChanged(f"{self.path}: cannot be read again ({exc})") from exc
            finally:
                conn.close()
        self._check()
        return out

    def _fill(self, conn: sqlite3.Connection, ordinals: np.ndarray, valid: np.ndarray, out: list) -> None:
        idx = np.flatnonzero(valid)
        places = self.locator.locate(ordinals[idx])
        for kind in np.unique(places.kind).tolist():
            spec = _TABLES.get(kind)
            if spec is None:
                continue
            mine = places.kind == kind
            at, row, info = idx[mine], places.row[mine], places.info[mine]
            sl = ordinals[at]
            table, keys, info_table, info_keys = spec
            try:
                rows = self._rows(conn, table, keys, row)
                infos = self._rows(conn, info_table, info_keys, info) if info_table else {}
                stacks = self._call_stacks(conn, rows) if kind == KIND_FRAMEWORK else {}
                pmu = self._pmu(conn, rows, infos) if kind == KIND_HARDWARE else {}
            except sqlite3.DatabaseError:
                self._check()  # a file changed since the load raises; one damaged as loaded has no args there
                continue
            for i, s, r, f in zip(at.tolist(), sl.tolist(), row.tolist(), info.tolist(), strict=True):
                rec = rows.get(r, {})
                args = self._args(kind, s, rec, infos.get(f), stacks)
                args.update(pmu.get(rec.get("globalTaskId"), {}))
                out[i] = args

    def _rows(self, conn: sqlite3.Connection, table: str | None, keys: Sequence[tuple[str, str]],
              rowids: np.ndarray) -> dict[int, dict[str, Any]]:
        actual = self._actual.get(table or "", table or "")
        cols = self.schema.columns.get(actual, {})
        names = [c for c, _ in keys if c in cols]
        wanted = np.unique(rowids[rowids >= 0])
        if not names or not len(wanted):
            return {}
        got: dict[int, dict[str, Any]] = {}
        select = ", ".join('"' + c + '"' for c in names)
        for rec in _select_in(conn, f'select rowid, {select} from "{actual}" where rowid in', wanted):
            got[rec[0]] = self._decode(table, dict(zip(names, rec[1:], strict=True)))
        return got

    def _decode(self, table: str, rec: dict[str, Any]) -> dict[str, Any]:
        for col in L.STRING_COLUMNS.get(table, ()):
            if col in rec:
                rec[col] = self._string(rec[col])
        for col, enum in L.ENUM_COLUMNS.get(table, {}).items():
            if col in rec and isinstance(rec[col], int):
                rec[col] = self.enums.get(enum, {}).get(rec[col], rec[col])
        return rec

    def _string(self, value: Any) -> Any:
        """A string-id column's value as its text: an id stored as a whole real or as digits is an id too;
        one ``STRING_IDS`` lacks is said to be unknown (never shown as a bare number). NULL stays None, text
        that is not digits is taken as the name itself."""
        if isinstance(value, float) and value.is_integer() and abs(value) < _INT64_LIMIT:
            value = int(value)
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, (bool, str)) or value is None:  # text that is no id is a name already
            return value
        if isinstance(value, int):
            text = self.strings.value(value)
            return text if text is not None else UNKNOWN_ID.format(value)
        return UNKNOWN_ID.format(value)

    def _pmu(self, conn: sqlite3.Connection, rows: dict[int, dict[str, Any]],
             infos: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """``TASK_PMU_INFO`` values (``aic_total_time``, …) of the compute tasks among ``rows``."""
        if not infos or not self.schema.has(PMU_TABLE, "globalTaskId", "name", "value"):
            return {}
        ids = sorted({r["globalTaskId"] for r in rows.values() if isinstance(r.get("globalTaskId"), int)})
        out: dict[int, dict[str, Any]] = {}
        for gid, name, value in _select_in(conn, f"select globalTaskId, name, value from {PMU_TABLE} "
                                                 f"where globalTaskId in", ids):
            key = self.strings.value(name) if isinstance(name, int) else None
            if key is not None:
                out.setdefault(gid, {})[key] = value
        return out

    def _call_stacks(self, conn: sqlite3.Connection, rows: dict[int, dict[str, Any]]) -> dict[int, str]:
        chains = sorted({r["callchainId"] for r in rows.values() if isinstance(r.get("callchainId"), int)})
        if not chains or not self.schema.has("PYTORCH_CALLCHAINS", "id", "stack", "stackDepth"):
            return {}
        frames: dict[int, list[tuple[int, str]]] = {}
        for cid, stack, depth in _select_in(conn, "select id, stack, stackDepth from PYTORCH_CALLCHAINS where id in",
                                            chains):
            frames.setdefault(cid, []).append((depth if depth is not None else 0,
                                               self.strings.value(stack) or "" if isinstance(stack, int) else ""))
        return {c: L.CALL_STACK_SEP.join(f for _, f in sorted(fs)) for c, fs in frames.items()}

    def _args(self, kind: int, s: int, rec: dict[str, Any], info: dict[str, Any] | None,
              stacks: dict[int, str]) -> dict[str, Any]:
        table, keys, _, info_keys = _TABLES[kind]
        if kind == KIND_PLANE:
            args = {_PLANE_TASK_KEYS[c]: rec[c] for c in _PLANE_TASK_KEYS if c in rec}
            for col, key in info_keys:
                if info is not None and col in info:
                    args[key] = str(info[col]) if col == "notifyId" else info[col]
            size, dur = args.get(ARG_SIZE), int(self.dur[s])
            if isinstance(size, (int, float)):
                args[L.BANDWIDTH_KEY] = size / dur if dur > 0 else 0.0
            return args
        args = {key: rec[col] for col, key in keys if key and rec.get(col) is not None}
        if kind == KIND_HARDWARE:
            tt = int(self.task_type[s])
            args[ARG_TASK_TYPE] = self.strings.strings[tt] if tt >= 0 else None
            if info is not None:
                args.update({key: info[col] for col, key in info_keys if col in info})
        elif kind == KIND_CANN and isinstance(args.get(THREAD_ID_ARG), int):
            args[THREAD_ID_ARG] = args[THREAD_ID_ARG] & TID_MASK
        elif kind == KIND_FRAMEWORK and rec.get("callchainId") in stacks:
            args[L.CALL_STACK_KEY] = stacks[rec["callchainId"]]
        return args

