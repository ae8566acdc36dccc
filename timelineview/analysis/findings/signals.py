"""What the rules read of one card: its means over steps, its intervals, operators and host calls.

Built from the session's per-card analysis (nothing is computed twice); the slice lookups for
evidence (an operator's longest slices, the synchronisation calls) run only when a rule asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.records import Evidence
from timelineview.analysis.intervals import Intervals, intersect, union
from timelineview.analysis.operators import CardOperators
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.trace_store import TraceStore

NS_PER_US = 1000.0
AI_CPU_TYPES = frozenset({"AI_CPU", "AICPU"})
# Host calls that drain the device queue (CANN runtime and torch_npu spellings).
SYNC_CALL = re.compile(r"synchronize(device|stream)|streamsynchronize|devicesynchronize", re.IGNORECASE)
SIGNAL_FIELDS = ("derived", "steps", "step_stats", "comparison_steps", "operators", "communication")
EVIDENCE_SPANS = 3  # spans of evidence a signal keeps (the findings show at most this many)
COLLECTIVE_BLOCK_BYTES = 512  # the copy engines move blocks of this size


@dataclass
class TransferSignals:
    """What the link rules read of a card's transfer tasks: the longest transfers of each link it sends
    over, and those whose size is not a multiple of the copy engines' block."""

    by_link: dict  # "src-dst" -> [Evidence], longest first
    count: int
    odd_count: int
    odd_share: float
    odd_us: float
    odd_longest: list

    def document(self) -> dict:
        return {"by_link": {k: [e.document() for e in v] for k, v in self.by_link.items()}, "count": self.count,
                "odd_count": self.odd_count, "odd_share": self.odd_share, "odd_us": self.odd_us,
                "odd_longest": [e.document() for e in self.odd_longest]}

    @classmethod
    def from_document(cls, doc: dict, origin_ns: int) -> TransferSignals:
        """As ``document`` wrote it (``origin_ns``: the card's start, for spans an earlier version kept)."""
        return cls({k: [Evidence.from_document(e, origin_ns) for e in v] for k, v in doc["by_link"].items()},
                   doc["count"], doc["odd_count"], doc["odd_share"], doc["odd_us"],
                   [Evidence.from_document(e, origin_ns) for e in doc["odd_longest"]])


@dataclass
class SyncCalls:
    """Synchronisation calls on the host lanes of one card."""

    count: int
    total_us: float
    names: list[str]
    evidence: list = field(default_factory=list)  # Evidence of the longest calls


@dataclass
class CardSignals:
    """One card as the rules see it (means over its steps, µs)."""

    card: str
    order: int  # position by rank
    store: TraceStore
    derived: DerivedIntervals
    steps: list[StepWindow]
    operators: CardOperators
    step_time_us: float
    step_interval_us: float
    fp_bp_us: float
    tail_us: float
    compute_us: float
    pure_communication_us: float
    idle_gap_free_us: float
    total_step_time_us: float
    stage_us: float | None  # mean stage time with pipeline parallelism, else None
    communication: object = None  # the card's CardCommunication (§6), None without plane tasks
    rank: int | None = None
    stage_flops: float | None = None  # mean FLOPs per step with pipeline parallelism and counted FLOPs, else None

    @property
    def has_phases(self) -> bool:
        """False for a trace without step markers: its one window has no step interval, fwd/bwd or tail."""
        return any(s.has_phases for s in self.steps)

    @property
    def compute_window_us(self) -> float:
        """What host-bound gaps are judged against: forward/backward, or the whole window without phases."""
        return self.fp_bp_us if self.has_phases else self.step_time_us

    def evidence(self, start_ns: int, end_ns: int, lane: str | None = None, name: str | None = None):
        return Evidence(self.card, int(start_ns), int(end_ns), lane, name)

    def lane_title(self, lane: int) -> str:
        lanes = self.store.lanes
        return f"{self.store.processes.name[lanes.process[lane]]}/{lanes.name[lane]}"

    def operator_slices(self, name: str | None, n: int) -> list:
        """Evidence: the ``n`` longest compute slices named ``name``."""
        if name is None:
            return []
        sid = self.store.string_id(name)
        if sid < 0:
            return []
        sl = self.store.slices
        idx = np.flatnonzero((sl.name == sid) & self.derived.classification.compute)
        idx = idx[np.argsort(-sl.dur[idx], kind="stable")[:n]]
        return [self.evidence(sl.start[i], sl.end[i], self.lane_title(int(sl.lane[i])), name) for i in idx]

    def top_operator_slices(self, n: int) -> list:
        """Evidence: the longest slices of the operator with the largest total."""
        labels = self.operators.by_name.labels
        return self.operator_slices(labels[0], n) if labels else []

    def aicpu_share(self) -> tuple[float, float, str | None]:
        """(share of compute, total µs, the AI CPU operator with the largest total) of AI CPU tasks."""
        by_type = self.operators.by_type
        rows = [k for k, label in enumerate(by_type.labels) if label.strip().upper() in AI_CPU_TYPES]
        if not rows or not by_type.compute_total_ns:
            return 0.0, 0.0, None
        total = int(by_type.total_ns[rows].sum())
        sl = self.store.slices
        types = {by_type.ids[k] for k in rows}
        mask = self.derived.classification.compute & np.isin(sl.task_type, list(types))
        names, durations = sl.name[mask], sl.dur[mask]
        top = None
        if len(names):
            sums = np.bincount(names + 1, weights=durations)
            best = int(np.argmax(sums)) - 1
            top = self.store.strings[best] if best >= 0 else None
        return total / by_type.compute_total_ns, total / NS_PER_US, top

    def sync_calls(self) -> SyncCalls:
        """Synchronisation calls on lanes that are not device inputs (the host side)."""
        cls = self.derived.classification
        sl = self.store.slices
        strings = self.store.strings
        used = np.flatnonzero(np.bincount(sl.name[sl.name >= 0], minlength=len(strings))) if len(sl) else []
        sync_ids = [i for i in used if SYNC_CALL.search(strings[i])]
        if not sync_ids:
            return SyncCalls(0, 0.0, [])
        device_lane = np.zeros(len(self.store.lanes), bool)
        device_lane[cls.hardware_lanes] = True
        device_lane[cls.comm_lanes] = True
        mask = np.isin(sl.name, sync_ids) & ~device_lane[sl.lane]
        idx = np.flatnonzero(mask)
        held = union(sl.start[idx], sl.end[idx]) if len(idx) else None
        longest = idx[np.argsort(-sl.dur[idx], kind="stable")[:3]]
        evidence = [self.evidence(sl.start[i], sl.end[i], self.lane_title(int(sl.lane[i])), strings[sl.name[i]])
                    for i in longest]
        names = sorted({strings[i] for i in sl.name[idx]})
        total = float(held.total()) / NS_PER_US if held is not None else 0.0
        return SyncCalls(len(idx), total, names, evidence)

    def transfers(self) -> TransferSignals | None:
        """The card's transfer tasks as the link rules read them (None without plane tasks)."""
        cc = self.communication
        if cc is None:
            return None
        t = cc.tasks
        store = self.store

        def evidence(rows: np.ndarray) -> list:
            rows = rows[np.argsort(-(t.end[rows] - t.start[rows]), kind="stable")[:EVIDENCE_SPANS]]
            return [self.evidence(t.start[r], t.end[r], self.lane_title(int(t.lane[r])),
                                  store.strings[store.slices.name[t.slice[r]]]) for r in rows.tolist()]

        transfer = np.flatnonzero(t.transfer)
        pairs = sorted({(int(a), int(b)) for a, b in zip(t.src[transfer], t.dst[transfer])})
        by_link = {f"{a}-{b}": evidence(transfer[(t.src[transfer] == a) & (t.dst[transfer] == b)])
                   for a, b in pairs}
        odd = t.size[transfer] % COLLECTIVE_BLOCK_BYTES != 0
        odd_rows = transfer[odd]
        return TransferSignals(by_link, int(len(transfer)), int(odd.sum()),
                               float(odd.mean()) if len(transfer) else 0.0,
                               float((t.end - t.start)[odd_rows].sum()) / NS_PER_US, evidence(odd_rows))

    def advisor(self) -> dict | None:
        """The advisor's facts of the card (``advisor.facts``); None when its facts were not computed."""
        return None

    def pure_communication_spans(self) -> Intervals:
        """The pure communication the rules show as evidence (its longest spans are taken)."""
        return self.derived.pure_communication

    def free_gaps_in_fp_bp(self) -> Intervals:
        """Idle AI Core gaps with nothing running, inside the forward/backward phase of the steps (the
        whole window of a trace without step markers)."""
        fp = np.array([s.fp if s.has_phases else s.start for s in self.steps], np.int64)
        bp = np.array([s.bp if s.has_phases else s.end for s in self.steps], np.int64)
        return intersect(self.derived.idle_gap_free, union(fp, bp))

    def operators_followed_by_gaps(self, gap_over_duration: float) -> tuple[float, Intervals]:
        """(share of compute tasks followed by free time longer than ``gap_over_duration`` × their own
        duration, those gaps). A task is followed by the free idle gap that starts where it ends."""
        gaps = self.derived.idle_gap_free
        sl = self.store.slices
        compute = self.derived.classification.compute
        n = int(compute.sum())
        if not n or not len(gaps):
            return 0.0, Intervals.empty()
        durations = sl.dur[compute]
        ends = sl.start[compute] + durations  # only the compute tasks' ends, not the whole column
        k = np.searchsorted(gaps.starts, ends)
        at_gap = (k < len(gaps)) & (gaps.starts[np.minimum(k, len(gaps) - 1)] == ends)
        gap_len = np.where(at_gap, (gaps.ends - gaps.starts)[np.minimum(k, len(gaps) - 1)], 0)
        followed = at_gap & (gap_len > gap_over_duration * durations)
        chosen = np.unique(k[followed])
        return int(followed.sum()) / n, Intervals(gaps.starts[chosen], gaps.ends[chosen])


def _mean(steps: list[dict], key: str) -> float:
    values = [s[key] for s in steps if s.get(key) is not None]
    return float(np.mean(values)) if values else 0.0


def step_means(step_stats: list[dict], comparison_rows: list[dict]) -> dict:
    """The means over a card's steps that :class:`CardSignals` keeps, from its step metrics and its
    comparison rows (stage time and FLOPs only with pipeline parallelism, FLOPs only when some are counted)."""
    pipeline = any(r.get("pipeline") for r in comparison_rows)
    flops = [r["flops"] for r in comparison_rows if r.get("flops") is not None]
    return dict(step_time_us=_mean(step_stats, "span_us"), step_interval_us=_mean(step_stats, "step_interval_us"),
                fp_bp_us=_mean(step_stats, "fp_bp_us"), tail_us=_mean(step_stats, "tail_us"),
                compute_us=_mean(step_stats, "compute_us"),
                pure_communication_us=_mean(step_stats, "pure_communication_us"),
                idle_gap_free_us=_mean(step_stats, "idle_gap_free_us"),
                total_step_time_us=float(sum(s["span_us"] for s in step_stats)),
                stage_us=_mean(comparison_rows, "pipeline_stage_us") if pipeline else None,
                stage_flops=float(np.mean(flops)) if pipeline and any(flops) else None)


def card_signals(store: TraceStore, a, order: int) -> CardSignals | None:
    """The signals of a loaded card from its analysis ``a`` (a ``CardAnalysis`` with ``SIGNAL_FIELDS``
    computed; None when its analysis failed or it has no steps)."""
    if a.error or a.derived is None or not a.steps:
        return None
    return CardSignals(card=a.card, order=order, store=store, derived=a.derived,
                       steps=list(a.steps), operators=a.operators, communication=a.communication, rank=a.rank,
                       **step_means(a.step_stats, a.comparison_steps or []))
