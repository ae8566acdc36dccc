"""The ``critical_path`` and ``what_if`` parts of ``stats --json`` (metrics.md §12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.graph import StepGraph
from timelineview.analysis.critical_path.path import DISPATCH_GAP, TypeLookup, step_document, step_paths
from timelineview.analysis.critical_path.replay import ReplayInputs, Timeline, replay
from timelineview.analysis.critical_path.step_lanes import StepLanes, step_lanes
from timelineview.analysis.critical_path.what_if import (
    CARD_AT_MEDIAN,
    DATA_WAIT_AT_MEDIAN,
    DATA_WAIT_REMOVED,
    DEFAULT_OP_TYPE_FACTOR,
    GAPS_CLOSED,
    LINK_AT_MEDIAN,
    OP_TYPE_FASTER,
    Change,
    WhatIf,
    changed_inputs,
    predict,
)

TOP_OP_TYPES = 3
# The finding rules (analysis.findings.rules) a change answers.
METRIC_CHANGE = {"compute_us": (CARD_AT_MEDIAN, "slow_compute"), "step_interval_us": (DATA_WAIT_AT_MEDIAN, "slow_data")}
SLOW_LINK_RULE = "slow_link"
DATA_BOUND_RULE = "data_bound"
GAP_SHARE_WORTH_CLOSING = 0.05  # a card's dispatch gaps on the path, as a share of the step, worth a what-if


@dataclass
class CriticalPathResult:
    """Per step the path's document, and the what-ifs of the session's anomalies and top op types."""

    graph: StepGraph | None
    steps: list[dict]
    what_if: list[WhatIf]
    _replays: dict[int, Timeline] = field(default_factory=dict, repr=False)

    def document(self) -> dict:
        return {"critical_path": self.steps, "what_if": [w.document() for w in self.what_if]}

    def step_lanes(self, k: int, what_if: int | None = None) -> StepLanes | None:
        """Step row ``k`` as lanes per card: as measured (``what_if`` None) or as what-if ``what_if`` predicts
        it; None without a graph or outside it."""
        g = self.graph
        if g is None or not 0 <= k < len(g.steps) or (what_if is not None and not 0 <= what_if < len(self.what_if)):
            return None
        key = -1 if what_if is None else what_if
        if key not in self._replays:
            x = ReplayInputs.measured(g) if what_if is None else changed_inputs(g, self.what_if[what_if].change)
            self._replays[key] = replay(g, x)
        return step_lanes(g, self._replays[key], k)


def analyse_critical_path(g: StepGraph | None, anomalies: list[Change]) -> CriticalPathResult:
    """The paths of every step of ``g`` and the what-ifs of ``anomalies`` plus the top op types on the paths."""
    if g is None:
        return CriticalPathResult(None, [], [])
    tl = replay(g, ReplayInputs.measured(g))
    lookup = TypeLookup(g)
    steps = [step_document(g, p, tl, lookup) for p in step_paths(g, tl)]
    changes = list(dict.fromkeys(anomalies + _path_changes(g, steps)))
    return CriticalPathResult(g, steps, [predict(g, c) for c in changes])


def _path_changes(g: StepGraph, steps: list[dict]) -> list[Change]:
    """The top op types on the paths (k× faster) and a card whose dispatch gaps hold a share of the path."""
    totals: dict[str, float] = {}
    for s in steps:
        for name, share in s["share_by_op_type"].items():
            totals[name] = totals.get(name, 0.0) + share
    gaps = totals.pop(DISPATCH_GAP, 0.0) / max(len(steps), 1)
    top = sorted(totals, key=lambda n: -totals[n])[:TOP_OP_TYPES]
    out = [Change(OP_TYPE_FASTER, name, DEFAULT_OP_TYPE_FACTOR) for name in top]
    if gaps >= GAP_SHARE_WORTH_CLOSING:
        per_card: dict[str, float] = {}
        for s in steps:
            for card, share in s["share_by_card"].items():
                per_card[card] = per_card.get(card, 0.0) + share
        out.append(Change(GAPS_CLOSED, max(per_card, key=per_card.get)))
    return out


def session_anomalies(session) -> list[Change]:
    """One change per anomaly the session found: slow cards, slow links, a data-bound cluster."""
    out = [Change(METRIC_CHANGE[f.metric][0], f.card, finding=METRIC_CHANGE[f.metric][1])
           for f in session.slow_cards if f.metric in METRIC_CHANGE]
    comm = session.communication
    out += [Change(LINK_AT_MEDIAN, key, finding=SLOW_LINK_RULE) for key in (comm.slow_keys if comm is not None else [])]
    if any(f.rule == DATA_BOUND_RULE for f in session.rule_findings):
        out.append(Change(DATA_WAIT_REMOVED, finding=DATA_BOUND_RULE))
    return out


class BlockSplit(NamedTuple):
    """The compute blocks of a path: µs the cards computed in them and µs of dispatch gaps."""

    compute_us: float
    dispatch_gap_us: float


def block_split(segments: list[dict]) -> BlockSplit:
    """How much of a step's path's compute blocks (its ``segments``) was compute and how much dispatch gaps."""
    blocks = [seg for seg in segments if "compute_us" in seg]
    return BlockSplit(sum(seg["compute_us"] for seg in blocks), sum(seg["dispatch_gap_us"] for seg in blocks))


def steps_on_path(steps: list[dict]) -> dict[str, int]:
    """Per card, in how many of the steps it is on the critical path (most first)."""
    counts: dict[str, int] = {}
    for s in steps:
        for card in s["cards"]:
            counts[card] = counts.get(card, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def session_critical_path(session) -> CriticalPathResult:
    """The §12 result of an ``AnalysisSession`` (empty for summaries: they keep no slices)."""
    g = session_graph(session)
    return analyse_critical_path(g, session_anomalies(session) if g is not None else [])
