"""Where one card's device memory goes (metrics.md §11): peaks per component, per step, the largest
blocks, the blocks alive at the peak, reserved but unallocated memory, per driver module.

Instants are reported in ns on the card's own clock, as its slices carry them (the one time base of
every document, metrics.md §5), so that the viewer can go there; a record may come before the first slice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from timelineview.model.memory.alive_index import AliveIndex
from timelineview.model.memory.records import APP, BYTES_PER_MB, GE, MISSING, NEVER, PTA, PTA_GE, MemoryRecords

LARGEST_LISTED = 20  # the largest allocations listed per card
LIVE_LISTED = 50  # the allocations alive at the peak listed (all are counted and summed)
COMPONENT_ORDER = (APP, PTA, GE, PTA_GE)  # the producer's order; other components follow by name
PEAK_COMPONENTS = (PTA, PTA_GE, GE)  # whose allocated peak ``live_at_peak`` looks at, the first present
CARD_RESERVED_COMPONENTS = (PTA_GE, PTA, GE, APP)  # the card's peak reserved: of the first present
NS_PER_US = 1000.0


def mb(n_bytes: float) -> float:
    return float(n_bytes) / BYTES_PER_MB


def _mb_or_nan(values: np.ndarray) -> np.ndarray:
    return np.where(values == MISSING, np.nan, values / float(BYTES_PER_MB))


def opt_mb(n_bytes: int | None) -> float | None:
    """MB of a figure a record may not give (None stays None)."""
    return None if n_bytes is None else mb(n_bytes)


@dataclass(frozen=True)
class ComponentPeaks:
    """One component's peaks (bytes; None when its records never give that figure) and their instants."""

    name: str
    peak_allocated: int | None
    peak_allocated_ns: int | None
    peak_reserved: int | None
    peak_reserved_ns: int | None
    peak_active: int | None
    reserved_at_peak: int | None  # reserved when allocated peaked (the same record)
    next_record_ns: int | None  # the component's next record after the allocated peak

    @property
    def unallocated_at_peak(self) -> int | None:
        """Reserved but not allocated at the allocated peak."""
        if self.peak_allocated is None or self.reserved_at_peak is None:
            return None
        return self.reserved_at_peak - self.peak_allocated


@dataclass(frozen=True)
class StepPeaks:
    """One step's peak allocated and reserved (bytes or None) per component."""

    step: int
    start_ns: int
    end_ns: int
    allocated: dict[str, int | None]
    reserved: dict[str, int | None]


@dataclass(frozen=True)
class ComponentCurve:
    """One component's totals by time: ns of the card's clock, MB (NaN where a record gives no figure)."""

    name: str
    time_ns: np.ndarray
    allocated_mb: np.ndarray
    reserved_mb: np.ndarray


@dataclass(frozen=True)
class ModulePeak:
    name: str
    peak_reserved: int
    peak_ns: int


def _peak(values: np.ndarray, times: np.ndarray) -> tuple[int | None, int | None, int]:
    """(max, time of its first occurrence, position) over the values given (≥ 0)."""
    if not len(values) or values.max() == MISSING:
        return None, None, -1
    k = int(np.argmax(values))
    return int(values[k]), int(times[k]), k


def _window_max(values: np.ndarray, times: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per window [s, e): the max of the value in force at s (the last record at or before it) and of the
    records inside; MISSING when none is known there. ``times`` ascending."""
    i0 = np.maximum(np.searchsorted(times, starts, side="right") - 1, 0)
    i1 = np.searchsorted(times, ends, side="left")
    padded = np.append(values, MISSING)  # reduceat needs every index < len
    bounds = np.empty(2 * len(starts), dtype=np.int64)
    bounds[0::2], bounds[1::2] = i0, np.maximum(i1, i0)
    out = np.maximum.reduceat(padded, bounds)[0::2] if len(padded) > 1 else np.full(len(starts), MISSING)
    return np.where(i1 > i0, out, MISSING)


@dataclass
class CardMemory:
    """The memory analysis of one card (bytes and ns inside; MB and µs in the document)."""

    card: str
    records: MemoryRecords
    t_origin_ns: int
    components: list[ComponentPeaks] = field(default_factory=list)
    per_step: list[StepPeaks] = field(default_factory=list)
    modules: list[ModulePeak] = field(default_factory=list)

    # ------------------------------------------------------------------------------ queries
    def component(self, name: str) -> ComponentPeaks | None:
        return next((c for c in self.components if c.name == name), None)

    @property
    def peak_component(self) -> ComponentPeaks | None:
        """The component whose allocated peak ``live_at_peak`` looks at: PTA, else PTA+GE, else GE."""
        for name in PEAK_COMPONENTS:
            c = self.component(name)
            if c is not None and c.peak_allocated is not None:
                return c
        return None

    @property
    def card_reserved(self) -> ComponentPeaks | None:
        """The component whose peak reserved is the card's (PTA+GE, else PTA, GE, APP): what
        ``memory_imbalance`` compares across cards."""
        for name in CARD_RESERVED_COMPONENTS:
            c = self.component(name)
            if c is not None and c.peak_reserved is not None:
                return c
        return None

    @staticmethod
    def at(t_ns: int | None) -> int | None:
        """An instant of the document: ns on the card's clock (None stays None)."""
        return None if t_ns is None else int(t_ns)

    @cached_property
    def curves(self) -> list[ComponentCurve]:
        """Each component's allocated and reserved MB over time, in the order of ``components`` (for drawing)."""
        cv = self.records.curves
        out = []
        for c in self.components:
            rows = np.flatnonzero(cv.component == self.records.names.find(c.name))
            rows = rows[np.argsort(cv.time_ns[rows], kind="stable")]
            out.append(ComponentCurve(c.name, cv.time_ns[rows], _mb_or_nan(cv.allocated[rows]),
                                      _mb_or_nan(cv.reserved[rows])))
        return out

    @cached_property
    def alive_index(self) -> AliveIndex:
        """The interval index of the allocations (built on the first ``alive_at``)."""
        a = self.records.allocations
        return AliveIndex.build(a.allocated_ns, a.released_ns)

    def alive_at(self, t_ns: int) -> np.ndarray:
        """Allocation numbers alive at ``t_ns``, largest first: O(log n + k) by the interval index."""
        return self.by_size(self.alive_index.alive_at(t_ns))

    def alive_at_scan(self, t_ns: int) -> np.ndarray:
        """The same as ``alive_at`` by one pass over every allocation (for a single instant)."""
        a = self.records.allocations
        return self.by_size(np.flatnonzero((a.allocated_ns <= t_ns) & (a.released_ns > t_ns)))

    def by_size(self, rows: np.ndarray) -> np.ndarray:
        """Allocation numbers by size (largest first), then by allocation time."""
        a = self.records.allocations
        rows = np.asarray(rows, dtype=np.int64)
        return rows[np.lexsort((a.allocated_ns[rows], -a.size[rows]))]

    @cached_property
    def largest(self) -> np.ndarray:
        """The ``LARGEST_LISTED`` largest allocations, largest first."""
        a = self.records.allocations
        if len(a) <= LARGEST_LISTED:
            return self.by_size(np.arange(len(a)))
        top = np.argpartition(-a.size, LARGEST_LISTED - 1)[:LARGEST_LISTED]
        edge = a.size[top].min()  # blocks as large as the smallest listed compete on allocation time
        return self.by_size(np.flatnonzero(a.size >= edge))[:LARGEST_LISTED]

    @cached_property
    def live_at_peak(self) -> np.ndarray:
        """Allocations alive at the peak component's allocated peak, largest first."""
        peak = self.peak_component
        if peak is None:
            return np.zeros(0, dtype=np.int64)
        return self.alive_at_scan(peak.peak_allocated_ns)

    # ------------------------------------------------------------------------------ output
    def allocation_row(self, k: int) -> dict:
        a = self.records.allocations
        released = int(a.released_ns[k])
        return {"name": self.records.name(int(a.name[k])), "component": self.records.name(int(a.component[k])),
                "size_mb": mb(a.size[k]), "allocated_at_ns": self.at(int(a.allocated_ns[k])),
                "released_at_ns": None if released == NEVER else self.at(released)}

    def _component_doc(self, c: ComponentPeaks) -> dict:
        return {"peak_allocated_mb": opt_mb(c.peak_allocated),
                "peak_allocated_at_ns": self.at(c.peak_allocated_ns),
                "peak_reserved_mb": opt_mb(c.peak_reserved),
                "peak_reserved_at_ns": self.at(c.peak_reserved_ns),
                "peak_active_mb": opt_mb(c.peak_active),
                "reserved_at_peak_mb": opt_mb(c.reserved_at_peak),
                "unallocated_at_peak_mb": opt_mb(c.unallocated_at_peak)}

    def _allocations_doc(self) -> dict:
        """The largest allocations and those alive at the peak: null where the records do not tell (no
        allocation records, as a card known from its memory counters only; no allocated peak)."""
        has_allocations = len(self.records.allocations) > 0
        peak = self.peak_component if has_allocations else None
        live = self.live_at_peak if peak is not None else None
        sizes = self.records.allocations.size
        return {
            "largest_allocations": [self.allocation_row(int(k)) for k in self.largest] if has_allocations else None,
            "live_at_peak_component": None if peak is None else peak.name,
            "live_at_peak_at_ns": None if peak is None else self.at(peak.peak_allocated_ns),
            "live_at_peak_count": None if live is None else len(live),
            "live_at_peak_mb": None if live is None else mb(int(sizes[live].sum())),
            "live_at_peak": None if live is None else [self.allocation_row(int(k)) for k in live[:LIVE_LISTED]],
        }

    def document(self) -> dict:
        """The card's ``"memory"`` object of ``stats --json`` (metrics.md §11)."""
        card_reserved = self.card_reserved
        return {
            "components": {c.name: self._component_doc(c) for c in self.components},
            "peak_reserved_mb": None if card_reserved is None else mb(card_reserved.peak_reserved),
            "peak_reserved_component": None if card_reserved is None else card_reserved.name,
            "allocations": len(self.records.allocations),
            **self._allocations_doc(),
            "per_step": [{"step": s.step, "components": {n: {"peak_allocated_mb": opt_mb(s.allocated[n]),
                                                              "peak_reserved_mb": opt_mb(s.reserved[n])}
                                                          for n in s.allocated}}
                         for s in self.per_step],
            "modules": [{"name": m.name, "peak_reserved_mb": mb(m.peak_reserved), "peak_at_ns": self.at(m.peak_ns)}
                        for m in self.modules],
            "sources": list(self.records.sources),
            "load": self.records.report.to_json(),
        }


def _component_order(names: list[str]) -> list[str]:
    known = [n for n in COMPONENT_ORDER if n in names]
    return known + sorted(n for n in names if n not in COMPONENT_ORDER)


def analyse_memory(card: str, records: MemoryRecords, t_origin_ns: int,
                   steps: list[tuple[int, int, int]] = ()) -> CardMemory | None:
    """The memory analysis of a card's ``records`` (None when it has none); ``steps``: (number, start, end) ns."""
    if records.empty and not (records.report.warnings or records.report.dropped_rows):
        return None  # no memory records: nothing to say (what could not be read is said, below)
    out = CardMemory(card, records, t_origin_ns)
    cv = records.curves
    order = np.lexsort((cv.time_ns, cv.component))
    comp, times = cv.component[order], cv.time_ns[order]
    alloc, reserved, active = cv.allocated[order], cv.reserved[order], cv.active[order]
    bounds = np.flatnonzero(np.diff(comp)) + 1 if len(comp) else np.zeros(0, np.int64)
    spans = {int(comp[a]): (a, b) for a, b in zip(np.r_[0, bounds], np.r_[bounds, len(comp)], strict=True)
             } if len(comp) else {}
    names = _component_order([records.name(k) for k in spans])
    step_starts = np.array([s[1] for s in steps], dtype=np.int64)
    step_ends = np.array([s[2] for s in steps], dtype=np.int64)
    step_alloc: dict[str, np.ndarray] = {}
    step_res: dict[str, np.ndarray] = {}
    for name in names:
        a, b = spans[records.names.find(name)]
        t = times[a:b]
        pa, pa_t, k = _peak(alloc[a:b], t)
        pr, pr_t, _ = _peak(reserved[a:b], t)
        pc, _, _ = _peak(active[a:b], t)
        res_at = None
        nxt = None
        if k >= 0:
            r = int(reserved[a + k])
            res_at = None if r == MISSING else r
            later = t[k + 1:][t[k + 1:] > t[k]]
            nxt = int(later[0]) if len(later) else None
        out.components.append(ComponentPeaks(name, pa, pa_t, pr, pr_t, pc, res_at, nxt))
        step_alloc[name] = _window_max(alloc[a:b], t, step_starts, step_ends)
        step_res[name] = _window_max(reserved[a:b], t, step_starts, step_ends)

    def known(v) -> int | None:
        return None if int(v) == MISSING else int(v)

    for i, (number, start, end) in enumerate(steps):
        out.per_step.append(StepPeaks(int(number), int(start), int(end),
                                      {n: known(step_alloc[n][i]) for n in names},
                                      {n: known(step_res[n][i]) for n in names}))
    out.modules = _module_peaks(records)
    return out


def _module_peaks(records: MemoryRecords) -> list[ModulePeak]:
    """Each driver module's peak reserved (modules that reserved something), largest first."""
    m = records.modules
    if not len(m):
        return []
    order = np.lexsort((m.time_ns, -m.reserved, m.module))  # per module, its largest first (earliest of equal ones)
    first = np.ones(len(order), dtype=bool)
    first[1:] = m.module[order][1:] != m.module[order][:-1]
    best = order[first]
    best = best[m.reserved[best] > 0]
    best = best[np.argsort(-m.reserved[best], kind="stable")]
    return [ModulePeak(records.name(int(m.module[k])), int(m.reserved[k]), int(m.time_ns[k])) for k in best]
