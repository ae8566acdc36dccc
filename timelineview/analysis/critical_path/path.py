"""The critical path of each step: walk back from the step's end through what each instant waited for
(the last member to arrive at a collective, a launch queued behind the previous collective, a block
that resumed after a collective, the previous block of the same card, the data wait)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.graph import StepGraph
from timelineview.analysis.critical_path.replay import Timeline
from timelineview.analysis.critical_path.slots import COLLECTIVE as COLLECTIVE_SLOT

COMPUTE, COLLECTIVE, LAUNCH, DATA_WAIT, TAIL = "compute", "collective", "launch", "data_wait", "tail"
DISPATCH_GAP = "dispatch gap"  # the part of a compute block where the card computed nothing


@dataclass(frozen=True)
class Segment:
    """One interval of the path: ns from the step's start, on card ``card`` (-1: the cluster)."""

    card: int
    kind: str
    name: str
    start: float
    end: float
    block: int = -1  # the compute block (COMPUTE only)
    op: int = -1  # the operator's column (COLLECTIVE only)
    compute: float = 0.0  # ns the card computed in it (COMPUTE only: a block also holds its dispatch gaps)


@dataclass
class StepPath:
    """The path of one step (row ``row`` of the graph), segments in time order."""

    row: int
    segments: list[Segment]


def step_paths(g: StepGraph, tl: Timeline) -> list[StepPath]:
    """The critical path of every step of ``g`` as replayed in ``tl``."""
    return [StepPath(k, _walk(g, tl, k)) for k in range(len(g.steps))]


def _walk(g: StepGraph, tl: Timeline, k: int) -> list[Segment]:
    n_ops = g.n_ops
    lay = g.layout
    out: list[Segment] = []
    last_card = int(np.argmax(tl.ready[k, n_ops]))
    top_block = tl.ready[k, n_ops, last_card]
    last_end = tl.ends[k, -1].max() if n_ops else -np.inf
    top = max(last_end, top_block)
    if tl.step[k] > top:
        out.append(Segment(-1, TAIL, "", top, tl.step[k]))
    if top_block > last_end:
        node, card, i = "block", last_card, n_ops
    else:
        node, card, i = "op", int(np.argmax(tl.ends[k, -1])), n_ops - 1
    while True:
        if node == "op":
            if lay is None or lay.kind[i] == COLLECTIVE_SLOT:
                card = int(np.argmax(tl.arrival[k, i]))
            end = tl.ends[k, i, card]
            if lay is not None and lay.present[i, card] and lay.peer_slot[i, card] >= 0:
                ps, pc = int(lay.peer_slot[i, card]), int(lay.peer_card[i, card])
                if tl.arrival[k, ps, pc] > tl.arrival[k, i, card]:  # the peer launched last: its block leads
                    i, card = ps, pc
            arrive = tl.arrival[k, i, card]
            name = g.op_name(k, i, card)
            out.append(Segment(card, COLLECTIVE, name, arrive, end, op=i))
            prev = _previous(g, i, card)
            if tl.queued[k, i, card] and prev >= 0:  # behind the card's previous operator
                out.append(Segment(card, LAUNCH, name, tl.ends[k, prev, card], arrive))
                i = prev
                continue
            if arrive > tl.ready[k, i, card]:
                out.append(Segment(card, LAUNCH, name, tl.ready[k, i, card], arrive))
            node = "block"
            continue
        start, ready = tl.block_start[k, i, card], tl.ready[k, i, card]
        if ready > start:
            busy = min(float(tl.busy[k, i, card]), float(ready - start))
            out.append(Segment(card, COMPUTE, "", start, ready, i, compute=busy))
        if tl.resumed[k, i, card] and _previous(g, i, card) >= 0:
            prev = _previous(g, i, card)
            out.append(Segment(card, LAUNCH, "", tl.ends[k, prev, card], start))
            node, i = "op", prev
        elif i > 0:
            i -= 1
        else:
            if start > 0:
                out.append(Segment(card, DATA_WAIT, "", 0.0, start))
            break
    return [s for s in reversed(out) if s.end > s.start]


def _previous(g: StepGraph, i: int, card: int) -> int:
    """The slot of the card's operator before slot (or last block) ``i``: the one just before unless slots of
    other cards' sends and receives lie between (-1: none)."""
    return int(g.layout.previous_run[i, card]) if g.layout is not None else i - 1


class TypeLookup:
    """The op-type split of a block: its compute time in its card's step shares; the links a collective's
    transfers took."""

    def __init__(self, g: StepGraph) -> None:
        self.share = g.type_share
        self.busy = g.busy
        lt = g.links
        self._n_ops = max(g.n_ops, 1)
        key = lt.step * self._n_ops + lt.op
        self._order = np.argsort(key, kind="stable")
        self._keys = key[self._order]
        self._names = np.array(lt.link, dtype=object)[self._order] if len(lt.link) else np.zeros(0, object)

    def links_of(self, row: int, op: int) -> list[str]:
        """The links ("src-dst") operator ``op`` of step row ``row`` moved data over (each once, sorted)."""
        key = row * self._n_ops + op
        a, b = np.searchsorted(self._keys, [key, key + 1])
        return sorted(set(self._names[a:b].tolist()))

    def split(self, row: int, block: int, card: int) -> tuple[np.ndarray, np.ndarray]:
        """(type ids, busy ns) of one block."""
        share = self.share[row, card]
        ids = np.flatnonzero(share)
        return ids, share[ids] * self.busy[row, block, card]


def step_document(g: StepGraph, path: StepPath, tl: Timeline, lookup: TypeLookup) -> dict:
    """The §12 object of one step: cards, segments and the shares of the step they hold."""
    k = path.row
    step_ns = float(tl.step[k])
    by_card: dict[str, float] = {}
    by_type: dict[str, float] = {}
    by_collective: dict[str, float] = {}
    segments = []
    links: dict[str, None] = {}
    for s in path.segments:
        length = s.end - s.start
        card = g.cards[s.card] if s.card >= 0 else None
        if card is not None:
            by_card[card] = by_card.get(card, 0.0) + length
        if s.kind == COMPUTE:
            ids, busy = lookup.split(k, s.block, s.card)
            for t, b in zip(ids.tolist(), busy.tolist(), strict=True):
                name = g.type_names[t]
                by_type[name] = by_type.get(name, 0.0) + b
            idle = length - float(busy.sum())
            if idle > 0:
                by_type[DISPATCH_GAP] = by_type.get(DISPATCH_GAP, 0.0) + idle
        elif s.kind == COLLECTIVE:
            by_collective[s.name] = by_collective.get(s.name, 0.0) + length
            links.update(dict.fromkeys(lookup.links_of(k, s.op)))
        offset = int(g.offsets_ns[s.card]) if s.card >= 0 else 0
        # the step's start stays int: as float64, ns since the epoch are rounded to 256 ns
        start_ns = int(g.start_ns[k]) + int(round(s.start)) + offset
        seg = {"card": card, "kind": s.kind, "name": s.name, "start_ns": start_ns,
               "dur_us": round(float(length) / 1000.0, 3), "share": _share(length, step_ns)}
        if s.kind == COMPUTE:
            # a block is its compute and the dispatch gaps between it: a reader must see both, not one "compute"
            seg["compute_us"] = round(s.compute / 1000.0, 3)
            seg["dispatch_gap_us"] = round(seg["dur_us"] - seg["compute_us"], 3)
        segments.append(seg)
    cards = list(dict.fromkeys(seg["card"] for seg in segments if seg["card"] is not None))
    return {"step": int(g.steps[k]), "step_us": round(step_ns / 1000.0, 3), "cards": cards,
            "segments": segments, "share_by_card": _shares(by_card, step_ns),
            "share_by_op_type": _shares(by_type, step_ns), "share_by_collective": _shares(by_collective, step_ns),
            "links": sorted(links)}


def _share(length: float, step_ns: float) -> float:
    return round(float(length / step_ns), 4) if step_ns > 0 else 0.0


def _shares(values: dict[str, float], step_ns: float) -> dict[str, float]:
    return {name: _share(v, step_ns) for name, v in sorted(values.items(), key=lambda kv: -kv[1])}
