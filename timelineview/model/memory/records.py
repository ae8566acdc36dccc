"""The memory records of one capture as columns: sizes in bytes, times in int64 ns, names interned.

Three tables, whichever source they came from (torch_npu's CSV files or the profiler database):
``MemoryCurves`` (each component's allocated / reserved / active totals over time),
``Allocations`` (one row per block an operator allocated: size, allocation and release time) and
``ModuleMemory`` (each driver module's reserved memory over time). What could not be read is counted
in a :class:`MemoryReport`, row by row, with the place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

NEVER = np.iinfo(np.int64).max  # release time of a block still held when the capture ended
MISSING = -1  # a size the row does not give (torch_npu leaves APP's allocated empty)
BYTES_PER_MB = 1 << 20  # the producer's MB is 2^20 bytes
BYTES_PER_KB = 1 << 10
MAX_EXAMPLES = 50
EXAMPLES_PER_CHECK = 5  # rows of one check (in one chunk or table) listed with their place; the rest counted
BAD_NUMBER = "bad number"
SIZE_BEYOND_INT64 = "a size beyond 2^62 bytes"
RELEASE_BEFORE_ALLOCATION = "release before allocation"

# Components of the caching allocator (PTA), of CANN's graph engine (GE) and their sum
PTA, GE, PTA_GE, APP = "PTA", "GE", "PTA+GE", "APP"


class Names:
    """Interned names: an id per distinct string, shared by every table of one capture."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._ids: dict[str, int] = {}

    def id(self, s: str) -> int:
        k = self._ids.get(s)
        if k is None:
            k = self._ids[s] = len(self.strings)
            self.strings.append(s)
        return k

    def ids(self, values: list[str]) -> np.ndarray:
        local: dict[str, int] = {}
        codes = np.fromiter(map(lambda v: local.setdefault(v, len(local)), values), dtype=np.int32,
                            count=len(values))  # noqa: C417 (setdefault in C: no Python frame a row)
        table = np.array([self.id(v) for v in local], dtype=np.int32)
        return table[codes] if len(codes) else codes

    def find(self, s: str) -> int:
        """The id of ``s``, or -1 when no row names it."""
        return self._ids.get(s, -1)


@dataclass
class MemoryReport:
    """What the memory readers dropped (rows by reason, with the first places) and what they warn of."""

    rows_read: int = 0
    dropped: Counter = field(default_factory=Counter)  # reason -> rows
    examples: list[str] = field(default_factory=list)  # "<file>:<line>: <reason>"
    warnings: list[str] = field(default_factory=list)  # a whole file or table that could not be read

    def drop(self, reason: str, where: str, n: int = 1) -> None:
        self.dropped[reason] += n
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {reason}")

    def drop_rows(self, reason: str, places: list[str], rest: int, rest_place: str) -> None:
        """Rows dropped for ``reason``: one per place of ``places`` (the first few), then ``rest`` more counted
        under ``rest_place``."""
        for where in places:
            self.drop(reason, where)
        if rest > 0:
            self.drop(reason, rest_place, n=rest)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    @property
    def dropped_rows(self) -> int:
        return sum(self.dropped.values())

    def to_json(self) -> dict:
        return {"rows_read": self.rows_read, "dropped_rows": self.dropped_rows,
                "dropped_by_reason": dict(self.dropped), "examples": list(self.examples),
                "warnings": list(self.warnings)}

    def headline(self) -> str:
        """One line for the text output ("" when every row was read)."""
        parts = []
        if self.dropped_rows:
            reasons = ", ".join(f"{n} {r}" for r, n in self.dropped.most_common(3))
            parts.append(f"{self.dropped_rows} memory rows dropped ({reasons})")
        parts.extend(self.warnings[:3])
        return "; ".join(parts)


def passing(checks: list[tuple[np.ndarray, str]], n: int, drop: Callable[[np.ndarray, str], None]) -> np.ndarray:
    """Of ``n`` rows, those that pass every (bad, reason) check; the rows each check fails first are
    given to ``drop`` (each failing row once, under its first failed check)."""
    keep = np.ones(n, dtype=bool)
    for bad, reason in checks:
        new = bad & keep
        if new.any():
            drop(new, reason)
            keep &= ~new
    return keep


def _empty(dtype) -> np.ndarray:
    return np.zeros(0, dtype=dtype)


@dataclass
class MemoryCurves:
    """Each component's totals over time (``memory_record.csv`` / ``MEMORY_RECORD``), by time."""

    component: np.ndarray = field(default_factory=lambda: _empty(np.int32))  # name id
    time_ns: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    allocated: np.ndarray = field(default_factory=lambda: _empty(np.int64))  # bytes, MISSING when not given
    reserved: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    active: np.ndarray = field(default_factory=lambda: _empty(np.int64))

    def __len__(self) -> int:
        return len(self.time_ns)


@dataclass
class Allocations:
    """One row per allocated block (``operator_memory.csv`` / ``OP_MEMORY``)."""

    name: np.ndarray = field(default_factory=lambda: _empty(np.int32))  # the operator, name id
    component: np.ndarray = field(default_factory=lambda: _empty(np.int32))  # PTA or GE, name id
    size: np.ndarray = field(default_factory=lambda: _empty(np.int64))  # bytes
    allocated_ns: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    released_ns: np.ndarray = field(default_factory=lambda: _empty(np.int64))  # NEVER when still held

    def __len__(self) -> int:
        return len(self.size)


@dataclass
class ModuleMemory:
    """Each driver module's reserved memory over time (``npu_module_mem.csv`` / ``NPU_MODULE_MEM``)."""

    module: np.ndarray = field(default_factory=lambda: _empty(np.int32))  # name id
    time_ns: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    reserved: np.ndarray = field(default_factory=lambda: _empty(np.int64))  # bytes

    def __len__(self) -> int:
        return len(self.time_ns)


def concat(parts: list, cls):
    """The rows of several tables of one kind, in order."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return cls()
    if len(parts) == 1:
        return parts[0]
    return cls(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in cls.__dataclass_fields__})


@dataclass
class MemoryRecords:
    """Every memory record of one card, with the files they came from and what was dropped."""

    names: Names = field(default_factory=Names)
    curves: MemoryCurves = field(default_factory=MemoryCurves)
    allocations: Allocations = field(default_factory=Allocations)
    modules: ModuleMemory = field(default_factory=ModuleMemory)
    sources: list[str] = field(default_factory=list)
    report: MemoryReport = field(default_factory=MemoryReport)

    @property
    def empty(self) -> bool:
        return not (len(self.curves) or len(self.allocations) or len(self.modules))

    def name(self, k: int) -> str:
        return self.names.strings[k]
