"""What-if: the step time the graph predicts after one change (metrics.md §12)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.graph import StepGraph
from timelineview.analysis.critical_path.replay import ReplayInputs, replay
from timelineview.analysis.critical_path.slots import COLLECTIVE, SEND

CARD_AT_MEDIAN = "card_at_median"  # each of the card's op types at the other cards' median time per task
LINK_AT_MEDIAN = "link_at_median"  # the link moves data at its transport's median bandwidth
DATA_WAIT_AT_MEDIAN = "data_wait_at_median"  # the card waits for data like the median card
DATA_WAIT_REMOVED = "data_wait_removed"  # no card waits for data
OP_TYPE_FASTER = "op_type_faster"  # every task of the op type runs ``factor`` times faster
GAPS_CLOSED = "dispatch_gaps_closed"  # the card's compute runs back to back (no dispatch gaps)
DEFAULT_OP_TYPE_FACTOR = 2.0


@dataclass(frozen=True)
class Change:
    """One change to replay: its ``kind``, what it applies to (a card, a link "src-dst", an op type)."""

    kind: str
    target: str = ""
    factor: float = 1.0
    finding: str | None = None  # the rule of the finding the change would answer (None: an op type, gaps)

    @property
    def label(self) -> str:
        """How a user reads the change."""
        return {
            CARD_AT_MEDIAN: f"{self.target} computes each op type at the other cards' median per task",
            LINK_AT_MEDIAN: f"link {self.target} at its transport's median bandwidth",
            DATA_WAIT_AT_MEDIAN: f"{self.target} waits for data like the median card",
            DATA_WAIT_REMOVED: "no data wait",
            OP_TYPE_FASTER: f"{self.target} {self.factor:g}x faster everywhere",
            GAPS_CLOSED: f"{self.target}'s dispatch gaps closed",
        }[self.kind]


@dataclass(frozen=True)
class WhatIf:
    """A change and the mean step time (µs) now and predicted."""

    change: Change
    step_us_now: float
    step_us_predicted: float
    predicted_step_ns: np.ndarray  # per step of the graph

    @property
    def gain_us(self) -> float:
        return self.step_us_now - self.step_us_predicted

    def document(self) -> dict:
        return {"change": self.change.label, "kind": self.change.kind, "target": self.change.target,
                "factor": self.change.factor, "finding": self.change.finding, "step_us_now": round(self.step_us_now, 3),
                "step_us_predicted": round(self.step_us_predicted, 3), "gain_us": round(self.gain_us, 3)}


def changed_inputs(g: StepGraph, change: Change) -> ReplayInputs:
    """The graph's measured durations with ``change`` applied."""
    x = ReplayInputs.measured(g)
    if change.kind == CARD_AT_MEDIAN:
        c = g.cards.index(change.target)
        x.busy[:, :, c] *= compute_ratio_at_peers(g, c)[:, None]
    elif change.kind == DATA_WAIT_AT_MEDIAN:
        c = g.cards.index(change.target)
        x.wait[:, c] = np.minimum(x.wait[:, c], np.median(x.wait, axis=1))
    elif change.kind == DATA_WAIT_REMOVED:
        x.wait[:] = 0.0
    elif change.kind == GAPS_CLOSED:
        x.gap[:, :, g.cards.index(change.target)] = 0.0
    elif change.kind == OP_TYPE_FASTER:
        share = g.type_share[:, :, g.type_names.index(change.target)]  # (K, C)
        x.busy *= 1.0 - share[:, None, :] * (1.0 - 1.0 / change.factor)
    elif change.kind == LINK_AT_MEDIAN:
        saving = link_saving(g, change.target)
        x.transit = np.maximum(x.transit - saving, 0.0)
    else:
        raise ValueError(f"unknown change {change.kind!r}")
    return x


def compute_ratio_at_peers(g: StepGraph, c: int) -> np.ndarray:
    """(K,) how much of card column ``c``'s compute time per step would remain if each of its tasks took the
    median time per task of its op type on the other cards (at most 1: the change never slows a card).

    Per operator, not per card: a pipeline's stages run different work (their totals differ with no card
    slow), but the same layers, so a type's time per task says how fast a card computes wherever it runs
    the type. A type no other card runs keeps its measured time. Without task counts (a summary written
    before they were kept) a type's time stands for one task: its total against the others'."""
    count = g.type_count if g.type_count is not None else (g.type_ns > 0).astype(np.int64)
    runs = np.flatnonzero((count[:, c] > 0).any(axis=0))  # only the types the card runs are priced
    ns = g.type_ns[:, :, runs].transpose(0, 2, 1)  # (K, T', C): the cards last, for one sort along them
    n = count[:, :, runs].transpose(0, 2, 1)
    per_task = np.divide(ns, n, out=np.full(ns.shape, np.nan), where=n > 0)
    per_task[:, :, c] = np.nan  # the card itself is not its own peer
    peer = _median_of_rows(per_task)
    own_ns, own_n = ns[:, :, c], n[:, :, c]  # (K, T'): the types it does not run took no time
    at_peers = np.where(np.isfinite(peer) & (own_n > 0), own_n * np.nan_to_num(peer), own_ns).sum(axis=1)
    total = own_ns.sum(axis=1)
    ratio = np.divide(at_peers, total, out=np.ones(len(total)), where=total > 0)
    return np.minimum(ratio, 1.0)


def _median_of_rows(values: np.ndarray) -> np.ndarray:
    """The median along the last axis ignoring NaN (NaN where all are), sorting ``values`` in place: one
    sort, where ``np.nanmedian`` takes a Python call per row."""
    values.sort(axis=-1)  # NaN last
    n = (~np.isnan(values)).sum(axis=-1, keepdims=True)
    lo = np.take_along_axis(values, np.maximum((n - 1) // 2, 0), axis=-1)
    hi = np.take_along_axis(values, np.maximum(n // 2 - (n == 0), 0), axis=-1)
    return np.where(n > 0, (lo + hi) / 2, np.nan)[..., 0]


def link_saving(g: StepGraph, link: str) -> np.ndarray:
    """(K, J, C) transfer time the link would not take at its transport's median bandwidth: on every
    member of a collective, on both sides of a send/receive pair."""
    lt = g.links
    out = np.zeros_like(g.transit)
    rows = np.array([k == link for k in lt.link], bool)
    if not rows.any():
        return out
    transport = lt.transport[int(np.flatnonzero(rows)[0])]
    median = transport_median_gbps(g, transport)
    if not median > 0:
        return out
    cut = np.maximum(lt.dur[rows] - lt.size[rows] / median, 0.0)
    np.add.at(out, (lt.step[rows], lt.op[rows], lt.card[rows]), cut)
    lay = g.layout
    if lay is None:
        return np.broadcast_to(out.sum(axis=2, keepdims=True), out.shape).copy()
    collective = lay.kind == COLLECTIVE
    out[:, collective] = out[:, collective].sum(axis=2, keepdims=True)
    j, c = np.nonzero(lay.peer_slot >= 0)
    if len(j):
        out[:, lay.peer_slot[j, c], lay.peer_card[j, c]] += out[:, j, c] * (lay.kind[j] == SEND)[None]
    return out


def transport_median_gbps(g: StepGraph, transport: str) -> float:
    """Median over the transport's links of bytes / transit ns (metrics.md §6)."""
    lt = g.links
    per: dict[str, list[float]] = {}
    rows = np.flatnonzero(np.array([t == transport for t in lt.transport], bool))
    keys = [lt.link[i] for i in rows.tolist()]
    uniq, inv = np.unique(np.array(keys, dtype=object), return_inverse=True) if keys else ([], np.zeros(0, int))
    del per
    if not len(uniq):
        return float("nan")
    size = np.bincount(inv, lt.size[rows], minlength=len(uniq))
    dur = np.bincount(inv, lt.dur[rows], minlength=len(uniq))
    ok = dur > 0
    return float(np.median(size[ok] / dur[ok])) if ok.any() else float("nan")


def predict(g: StepGraph, change: Change) -> WhatIf:
    """The mean step time now and after ``change``."""
    tl = replay(g, changed_inputs(g, change))
    now = float(np.mean(g.step_ns)) / 1000.0
    return WhatIf(change, now, float(np.mean(tl.step)) / 1000.0, tl.step)
