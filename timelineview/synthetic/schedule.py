"""Cluster schedule: when every step and every collective starts and ends on the true clock.

A collective ends when its slowest member has arrived plus the transfer time, so it ends at
the same true instant on every card. Fast cards therefore show long operators (they wait),
and the cards' clock offsets can be recovered from the operator ends (metrics.md §4). In a pipeline of
stages a receive and its sender's send end together instead, one pair after the other in rank order, each
pair with its own transfer time (a slow link slows its own pair only). In a 1F1B pipeline of stages
(``CardSpec.microbatches``) every card has its own sends and receives (both ways, ``one_f_one_b``), each a slot
of the schedule only its card runs, and the collectives follow the pipeline's last backward.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from timelineview.synthetic.comm.link_delay import pair_extra_ns, slow_link_extra_ns
from timelineview.synthetic.one_f_one_b import Transfer, microbatch_chunks, place_pipeline, stage_orders
from timelineview.synthetic.spec import CardSpec
from timelineview.synthetic.workload import (
    KIND_ALLGATHER,
    KIND_BUCKET,
    KIND_RECEIVE,
    KIND_SEND,
    KIND_TAIL,
    StepLocal,
    StepWork,
    comm_kinds,
    draw_step,
    place_step,
)

TRUE_START_NS = 1_000_000  # step 1 starts 1 ms after the true origin
_LAUNCH_GAP_NS = 2_000  # between consecutive operators of one card
STALL_SHARE_OF_STEP = (0.2, 0.5)  # a shared data-loader hiccup lengthens the step by this much
BUBBLE_SHARE_OF_WAIT = (0.5, 0.95)  # how far into the next step's data wait a host bubble moves a marker
_MEMCPY_LEAD_NS = 2_000  # the input copy ends this long before the data wait does (see place_step)
_MARKER_MARGIN_NS = 1_000  # a moved marker stays this far before the step's first device work
_XFER_US = {KIND_RECEIVE: (20, 60), KIND_SEND: (20, 60), KIND_BUCKET: (80, 300),
            KIND_TAIL: (150, 500), KIND_ALLGATHER: (40, 120)}


@dataclass
class Schedule:
    """Synchronisation points of all cards, in true ns."""

    kinds: list[int]
    step_start: np.ndarray  # (steps,)
    step_end: np.ndarray  # (steps,)
    t0: np.ndarray  # (steps, cards) compute origin of each card
    op_start: np.ndarray  # (steps, ops, cards)
    op_end: np.ndarray  # (steps, ops, cards): the same on every card but a pipeline stage's send/receive
    op_xfer: np.ndarray  # (steps, ops, cards): transfer part of each operator (-1 where the card lacks it)
    marker_shift: np.ndarray  # (steps, cards): how much later a host bubble writes the card's step start marker
    present: np.ndarray  # (ops, cards) bool: the card runs the operator (a pipeline's ends lack one)
    op_peer: np.ndarray | None = None  # (ops, cards): a 1F1B send's or receive's peer rank (-1: none)
    item_shift: dict[tuple[int, int], np.ndarray] | None = None  # (step, card) → each drawn item's shift
    op_extra: np.ndarray | None = None  # (steps, ops, cards): the part of op_xfer the planted slow link added

    def card_bounds(self, step: int, card: int) -> tuple[int, int]:
        """[start, end) of step number ``step`` (0-based) as card ``card``'s step markers say."""
        end_shift = int(self.marker_shift[step + 1, card]) if step + 1 < self.steps else 0
        return int(self.step_start[step] + self.marker_shift[step, card]), int(self.step_end[step]) + end_shift

    @property
    def steps(self) -> int:
        return len(self.step_start)


def build_schedule(specs: Sequence[CardSpec], cluster_seed: int | None = None,
                   draws: Sequence[Sequence[StepLocal]] | None = None) -> Schedule:
    """Draw every card's steps and synchronise their communication operators. ``draws``: the steps
    already drawn (``draws[k][card]`` = ``draw_step(specs[card], k + 1)``), to reuse them."""
    specs = list(specs)
    steps = specs[0].steps
    setting = (specs[0].pipeline, specs[0].pipeline_stages, specs[0].microbatches)
    if any(s.steps != steps or (s.pipeline, s.pipeline_stages, s.microbatches) != setting for s in specs):
        raise ValueError("all cards of a cluster need the same steps and pipeline setting")
    stages = specs[0].pipeline_stages and len(specs) > 1
    micro = specs[0].microbatches if stages else 0
    seed = specs[0].seed if cluster_seed is None else cluster_seed
    orders = stage_orders(len(specs), micro) if micro else []
    p2p = [(c, ev) for c, order in enumerate(orders) for ev in order if isinstance(ev, Transfer)]
    kinds = [ev.kind for _, ev in p2p] + comm_kinds(False) if micro else comm_kinds(specs[0].pipeline)
    # what the transfer times are drawn for: a 1F1B pipeline's forward and backward pairs, then its collectives
    drawn_kinds = [KIND_SEND, KIND_SEND] + comm_kinds(False) if micro else kinds
    n_ops, n_cards = len(kinds), len(specs)
    size = max(1.0, (max(s.tasks_per_step for s in specs) / 400.0) ** 0.5)
    sched = Schedule(kinds, np.zeros(steps, np.int64), np.zeros(steps, np.int64),
                     np.zeros((steps, n_cards), np.int64), np.zeros((steps, n_ops, n_cards), np.int64),
                     np.zeros((steps, n_ops, n_cards), np.int64), np.zeros((steps, n_ops, n_cards), np.int64),
                     np.zeros((steps, n_cards), np.int64), _present(kinds, n_cards, stages and not micro))
    sched.op_extra = np.zeros_like(sched.op_xfer)
    slow_src = next((c for c, s in enumerate(specs) if s.slow_link is not None and s.rank == s.slow_link[0]), None)
    if micro:
        sched.present[:len(p2p)] = False
        sched.op_peer = np.full((n_ops, n_cards), -1, np.int64)
        for j, (c, ev) in enumerate(p2p):
            sched.present[j, c] = True
            sched.op_peer[j, c] = ev.peer
        sched.item_shift = {}
    start = TRUE_START_NS
    for k in range(steps):
        locs = list(draws[k]) if draws is not None else [draw_step(s, k + 1) for s in specs]
        rng = np.random.default_rng([seed, k + 1, 23])
        t0 = np.array([start + loc.wait for loc in locs], np.int64)
        drawn = []
        for kind in drawn_kinds:
            lo, hi = _XFER_US[kind]
            drawn.append(int(rng.uniform(lo, hi) * 1000 * size))
        pipe_xfer = drawn[:2]  # a 1F1B pipeline's healthy forward and backward transfers
        if micro:  # (its pairs' own transfers are placed below; -1 until then)
            drawn = [-1] * len(p2p) + drawn[2:]
        prev_end = None
        first = 0
        if micro:
            t0, prev_end = _one_f_one_b(sched, k, t0, locs, specs, orders, pipe_xfer)
            first = len(p2p)
        elif stages:
            t0, prev_end = _stage_pairs(sched, k, t0, locs, kinds, specs, drawn[kinds.index(KIND_SEND)])
            first = 2
        for j in range(first, n_ops):
            kind = kinds[j]
            if micro:
                ready = np.zeros(n_cards, np.int64) + prev_end + _LAUNCH_GAP_NS  # they follow the last backward
            elif kind == KIND_RECEIVE:
                ready = t0.copy()  # activations are awaited right after the data wait
            else:
                ready = t0 + np.array([loc.ready[j] for loc in locs], np.int64)
            if prev_end is not None:
                ready = np.maximum(ready, prev_end + _LAUNCH_GAP_NS)
            lead = int(ready.max() - ready[slow_src]) if slow_src is not None else 0
            extra = slow_link_extra_ns(specs, kind, drawn[j], lead)
            xfer = drawn[j] + extra
            sched.op_xfer[k, j], sched.op_extra[k, j] = xfer, extra  # a collective's transfer ends it on every card
            end = int(ready.max()) + xfer
            sched.op_start[k, j], sched.op_end[k, j] = ready, end
            if kind == KIND_RECEIVE:
                t0 = np.full(n_cards, end + _LAUNCH_GAP_NS, np.int64)  # forward waits for them
            prev_end = end
        stall = _shared_stall(specs[0], seed, k + 1, prev_end - start)
        if stall:  # every card's compute and collectives start that much later
            t0 = t0 + stall
            sched.op_start[k][sched.present] += stall
            sched.op_end[k][sched.present] += stall
            prev_end += stall
        sched.t0[k] = t0
        sched.step_start[k] = start
        if k:
            sched.marker_shift[k] = [_host_bubble(s, k + 1, loc) for s, loc in zip(specs, locs, strict=True)]
        start = prev_end + int(rng.uniform(3_000, 10_000))
        sched.step_end[k] = start
    return sched


def _present(kinds: list[int], n_cards: int, stages: bool) -> np.ndarray:
    """(ops, cards): which card runs which operator. In a pipeline of stages the first stage receives
    nothing and the last sends nothing (no ring back from the last rank to the first)."""
    out = np.ones((len(kinds), n_cards), bool)
    if stages:
        out[kinds.index(KIND_RECEIVE), 0] = False
        out[kinds.index(KIND_SEND), n_cards - 1] = False
    return out


def _stage_pairs(sched: Schedule, k: int, t0: np.ndarray, locs: Sequence[StepLocal],
                 kinds: list[int], specs: Sequence[CardSpec], send_xfer: int) -> tuple[np.ndarray, np.ndarray]:
    """Place step ``k``'s receives and sends of a pipeline of stages, in rank order: a stage awaits its
    activations right after its data wait, the pair ends when both its receive and the previous stage's
    send have been launched plus the pair's transfer (the healthy ``send_xfer`` plus, on the planted slow
    link's pair only, the slow link's extra), and the stage's forward (whose end launches its own send)
    starts after its receive. Returns each card's compute origin and its last operator's end."""
    recv, send = kinds.index(KIND_RECEIVE), kinds.index(KIND_SEND)
    origin = t0.copy()
    last_end = np.zeros(len(t0), np.int64)
    sent = 0
    for c in range(len(t0)):
        if c:
            sched.op_start[k, recv, c] = t0[c]
            later = max(int(t0[c]), sent)
            extra = pair_extra_ns(specs, c - 1, c, send_xfer, later - sent)
            xfer = send_xfer + extra
            sched.op_xfer[k, recv, c] = sched.op_xfer[k, send, c - 1] = xfer  # one transfer ends both sides
            sched.op_extra[k, recv, c] = sched.op_extra[k, send, c - 1] = extra
            end = later + xfer
            sched.op_end[k, recv, c] = sched.op_end[k, send, c - 1] = end
            last_end[c - 1] = max(last_end[c - 1], end)
            last_end[c] = end
            origin[c] = end + _LAUNCH_GAP_NS
        if c + 1 < len(t0):
            sent = int(origin[c]) + int(locs[c].ready[send])
            sched.op_start[k, send, c] = sent
    absent = ~sched.present
    sched.op_start[k][absent] = -1
    sched.op_end[k][absent] = -1
    sched.op_xfer[k][absent] = -1
    return origin, last_end


def _one_f_one_b(sched: Schedule, k: int, t0: np.ndarray, locs: Sequence[StepLocal], specs: Sequence[CardSpec],
                 orders: list, pipe_xfer: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Place step ``k``'s 1F1B pipeline (``one_f_one_b``): each stage starts after its data wait, its
    microbatch chunks and transfers follow its order; a pair's transfer is the healthy forward (activations,
    to the next stage) or backward (gradients, to the previous) one ``pipe_xfer``, plus the slow link's extra
    on the planted slow link's direction only. Fills the pipeline's slots and each card's item shifts; returns
    each card's compute origin (its first chunk's start) and its last transfer's or chunk's end."""
    micro = specs[0].microbatches
    chunks = [microbatch_chunks(loc, micro) for loc in locs]
    spans = [hi - lo for _, lo, hi in chunks]

    def base(src: int, dst: int) -> int:
        return pipe_xfer[0] if dst == src + 1 else pipe_xfer[1]

    def xfer(src: int, dst: int, lead: int) -> int:
        return base(src, dst) + pair_extra_ns(specs, src, dst, base(src, dst), lead)

    times = place_pipeline(orders, t0, spans, micro, xfer, _LAUNCH_GAP_NS)
    owner = np.flatnonzero((sched.op_peer >= 0).any(axis=1))  # the pipeline's slots, each on its own card
    origin = np.empty(len(t0), np.int64)
    last = times.last_end()  # then the later of that and its last chunk's end
    for c, order in enumerate(orders):
        mine = owner[sched.present[owner, c]]
        sched.op_start[k, mine, c] = times.op_start[c]
        sched.op_end[k, mine, c] = times.op_end[c]
        sched.op_xfer[k, mine, c] = times.op_xfer[c]
        sched.op_extra[k, mine, c] = np.array(times.op_xfer[c]) - [
            base(c, p) if kind == KIND_SEND else base(p, c) for kind, p in zip(
                [sched.kinds[j] for j in mine.tolist()], sched.op_peer[mine, c].tolist(), strict=True)]
        chunk, lo, _ = chunks[c]
        starts = np.zeros(2 * micro, np.int64)
        computes = [ev for ev in order if not isinstance(ev, Transfer)]
        for ev, at in zip(computes, times.compute_start[c], strict=True):
            starts[ev.chunk(micro)] = at
        origin[c] = times.compute_start[c][0]
        sched.item_shift[(k, c)] = starts[chunk] - lo[chunk] - origin[c]
        last[c] = max(int(last[c]), int((starts + spans[c]).max()))
    absent = ~sched.present
    sched.op_start[k][absent] = -1
    sched.op_end[k][absent] = -1
    sched.op_xfer[k][absent] = -1
    return origin, last


def _shared_stall(spec: CardSpec, seed: int, step: int, step_ns: int) -> int:
    """The data-loader hiccup of ``step`` (1-based; ns, 0 in most steps): the same on every card, a longer
    data wait that makes the step 20–50 % longer than its ``step_ns``."""
    if spec.step_stall_share <= 0:
        return 0
    rng = np.random.default_rng([seed, step, 37])
    hit, share = rng.random(), rng.uniform(*STALL_SHARE_OF_STEP)
    return int(share * step_ns) if hit < spec.step_stall_share else 0


def _host_bubble(spec: CardSpec, step: int, loc: StepLocal) -> int:
    """How much later than the true boundary a host bubble writes the start marker of ``step`` (1-based)
    on this card (ns, mostly 0): a share of the data wait before the step's first device work, so the
    marker never passes work of the step it opens."""
    if spec.host_bubble_share <= 0:
        return 0
    rng = np.random.default_rng([spec.seed, spec.rank, step, 41])
    hit, share = rng.random(), rng.uniform(*BUBBLE_SHARE_OF_WAIT)
    if hit >= spec.host_bubble_share:
        return 0
    room = loc.wait - (loc.memcpy_dur + _MEMCPY_LEAD_NS if loc.memcpy_dur else 0) - _MARKER_MARGIN_NS
    return max(int(share * room), 0)


def card_steps(spec: CardSpec, sched: Schedule, card: int) -> Iterator[StepWork]:
    """The placed steps of card number ``card`` of the schedule, one at a time (the work where the cluster
    schedule puts it, the step markers where the card's host wrote them)."""
    n_ops = len(sched.kinds)
    mine = np.flatnonzero(sched.present[:, card])
    kinds = [sched.kinds[j] for j in mine.tolist()]
    for k in range(sched.steps):
        placed = place_step(
            draw_step(spec, k + 1), k + 1, int(sched.step_start[k]), int(sched.step_end[k]),
            int(sched.t0[k, card]), sched.op_start[k, mine, card], sched.op_end[k, mine, card],
            sched.op_xfer[k, mine, card], kinds, (k * n_ops + mine).tolist(),
            sched.op_peer[mine, card] if sched.op_peer is not None else None,
            sched.item_shift.get((k, card)) if sched.item_shift is not None else None,
            sched.op_extra[k, mine, card] if sched.op_extra is not None else None,
        )
        start, end = sched.card_bounds(k, card)
        yield placed if (start, end) == (placed.start, placed.end) else replace(placed, start=start, end=end)
