"""A step's dependency graph across the cards (metrics.md §12), as columns over (step, operator, card).

Each card's step is: a data wait from the step's start to its first work, then compute *blocks*
separated by the card's launches of the step's communication operators (block i holds the compute
progress up to operator i's launch; the last block, the compute after the last launch). Operator j is
joined across the cards: it ends when its last member has arrived, plus its transit
(transit = measured end − last arrival). A block waits for the previous operator when the card computed
nothing while that operator ran and resumed only after it ended (a pipeline receive, an update after
the gradients); a launch waits for the previous operator when it came within ``BOUND_LAUNCH_NS`` of its
end although the compute was ready before. Every duration is what the trace measured; ``replay``
recomputes the ends from them, so a change to one input moves everything that depends on it.

Collectives are matched across cards by their position in the step. Sends and receives take slots
(``slots``): a card's slot it does not run is absent (zero-length, never waited for) and a pair ends
at max(both launches) + its transit on each side (transit = measured end − max(own launch, peer's
launch)); ends are therefore per card. Steps whose cards do not fit one layout, or whose layout differs
from the most common one, are left out (``skipped_steps``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.critical_path.inputs import CardTimeline
from timelineview.analysis.critical_path.slots import COLLECTIVE, SlotLayout, op_kinds, run_levels, step_slots

BOUND_LAUNCH_NS = 10_000  # a launch this close after the previous operator's end was queued behind it
_NEVER = np.inf


@dataclass
class LinkTransit:
    """Transfer time per (link, step row, operator), flat rows."""

    link: list[str]
    transport: list[str]
    step: np.ndarray  # int64
    op: np.ndarray  # int64
    card: np.ndarray  # int64 column of the card that reported the transfer
    size: np.ndarray  # float64 bytes
    dur: np.ndarray  # float64 ns


@dataclass
class StepGraph:
    """The measured graph of the supported steps; times are ns relative to each step's start."""

    cards: list[str]
    offsets_ns: np.ndarray  # (C,) what was subtracted from each card's clock
    steps: np.ndarray  # (K,) step numbers
    start_ns: np.ndarray  # (K,) aligned step start
    end_ns: np.ndarray  # (K,)
    op_names: list[list[str]]  # per step, the operator names (first card)
    wait: np.ndarray  # (K, C) data wait
    busy: np.ndarray  # (K, J+1, C) compute time of each block
    gap: np.ndarray  # (K, J+1, C) the rest of the block: no compute (dispatch gaps)
    blocked: np.ndarray  # (K, J+1, C) bool: the block waited for operator i−1
    lead: np.ndarray  # (K, J+1, C) from that operator's end to the block's first compute
    own_slack: np.ndarray  # (K, J, C) from compute ready to the launch
    prev_slack: np.ndarray  # (K, J, C) from the previous operator's end to the launch (−inf: not queued)
    transit: np.ndarray  # (K, J, C) from the last member's (a pair's later) launch to the card's end
    tail: np.ndarray  # (K,) from the last end to the step's end
    type_share: np.ndarray  # (K, C, T) share of each op type in the card's compute of the step
    type_ns: np.ndarray  # (K, C, T) the card's compute task time of each op type in the step
    links: LinkTransit
    type_names: list[str]
    skipped_steps: list[int]
    layout: SlotLayout | None = None  # None: every slot a collective present on every card
    own_names: dict[tuple[int, int, int], str] = field(default_factory=dict)  # (step, slot, card) → a send's or
    # receive's own name where it is not the slot's (a 1F1B slot holds each card's own operator)
    type_count: np.ndarray | None = None  # (K, C, T) how many tasks ``type_ns`` sums (None: a card did not keep it)

    def op_name(self, k: int, j: int, c: int) -> str:
        """The name of card column ``c``'s operator in slot ``j`` of step row ``k``."""
        return self.own_names.get((k, j, c), self.op_names[k][j])

    @property
    def n_ops(self) -> int:
        return self.transit.shape[1]

    @property
    def step_ns(self) -> np.ndarray:
        return (self.end_ns - self.start_ns).astype(np.float64)


def _busy_until(starts: np.ndarray, ends: np.ndarray, cum: np.ndarray, t: np.ndarray) -> np.ndarray:
    """|U ∩ (−inf, t]| for the sorted disjoint intervals (starts, ends) with ``cum`` their running total."""
    i = np.searchsorted(starts, t, "right") - 1
    ic = np.maximum(i, 0)
    inside = np.minimum(t - starts[ic], ends[ic] - starts[ic]) if len(starts) else np.zeros_like(t)
    return np.where(i >= 0, cum[ic] + inside, 0.0) if len(starts) else np.zeros_like(t, dtype=np.float64)


def _ready_at(starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> np.ndarray:
    """How far compute had progressed by ``t``: t itself when compute runs at t, else the last end before."""
    if not len(starts):
        return np.full(t.shape, -_NEVER)
    i = np.searchsorted(starts, t, "right") - 1
    ic = np.maximum(i, 0)
    return np.where(i >= 0, np.minimum(ends[ic], t), -_NEVER)


def _next_start(starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The first instant ≥ t at which compute runs (t when it runs at t), inf when none."""
    if not len(starts):
        return np.full(t.shape, _NEVER)
    i = np.searchsorted(starts, t, "right") - 1
    running = (i >= 0) & (ends[np.maximum(i, 0)] > t)
    nxt = np.searchsorted(starts, t, "left")
    after = np.where(nxt < len(starts), starts[np.minimum(nxt, len(starts) - 1)], _NEVER)
    return np.where(running, t, after)


def _compute_union(card: CardTimeline, base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The card's U(compute) as float starts, ends (ns after ``base``) and the busy time before each interval."""
    us, ue = (card.compute_start - base).astype(np.float64), (card.compute_end - base).astype(np.float64)
    cum = np.concatenate(([0.0], np.cumsum(ue - us)))[:-1] if len(us) else np.zeros(0)
    return us, ue, cum


def _instant_of_busy(starts: np.ndarray, cum: np.ndarray, done: np.ndarray) -> np.ndarray:
    """The instant at which the busy time |U ∩ (−inf, t]| reaches ``done`` (inf when never)."""
    if not len(starts):
        return np.full(done.shape, np.inf)
    i = np.searchsorted(cum, done, "right") - 1
    ic = np.clip(i, 0, len(starts) - 1)
    return np.where(i >= 0, starts[ic] + (done - cum[ic]), starts[0])


def _median_ns(values: np.ndarray) -> np.ndarray:
    """The median over the cards (axis 0) of int64 ns, to the ns (taken from the first card's before it is
    float: ns since the epoch are float64 in steps of 256 ns)."""
    ref = values[0]
    return ref + np.round(np.median(values - ref[None], axis=0)).astype(np.int64)


def common_steps(cards: Sequence[CardTimeline]) -> np.ndarray:
    """The step numbers every card has."""
    common = set(cards[0].step_number.tolist())
    for c in cards[1:]:
        common &= set(c.step_number.tolist())
    return np.array(sorted(common), np.int64)


def build_graph(cards: Sequence[CardTimeline], type_names: list[str]) -> StepGraph | None:
    """The graph of the steps every card holds, or None without steps or communication."""
    if not cards:
        return None
    numbers = common_steps(cards)
    if not len(numbers):
        return None
    rows = [np.searchsorted(c.step_number, numbers) for c in cards]
    start = _median_ns(np.stack([c.step_start[r] for c, r in zip(cards, rows, strict=True)]))
    end = _median_ns(np.stack([c.step_end[r] for c, r in zip(cards, rows, strict=True)]))
    first = np.stack([np.searchsorted(c.op_start, start, "left") for c in cards], axis=1)  # (K, C)
    last = np.stack([np.searchsorted(c.op_start, end, "left") for c in cards], axis=1)
    kinds = [op_kinds(c.op_name, c.op_peer) for c in cards]
    # sends and receives that pair up take slots; when they do not (a trace that names no peers), every
    # operator is matched by its position, as collectives are
    found = _slot_steps(cards, kinds, first, last) if any((k != COLLECTIVE).any() for k in kinds) else None
    if found is not None:
        keep, pos, layout = found
    else:
        counts = last - first
        values, freq = np.unique(counts, return_counts=True)
        n_ops = int(values[np.argmax(freq)])
        keep = np.all(counts == n_ops, axis=1)
        if n_ops == 0 or not keep.any():
            return None
        pos = first[keep][:, None, :] + np.arange(n_ops)[None, :, None]  # (K, J, C)
        layout = SlotLayout(np.zeros(n_ops, np.int64), np.ones((n_ops, len(cards)), bool),
                            np.full((n_ops, len(cards)), -1, np.int64), np.full((n_ops, len(cards)), -1, np.int64))
    skipped = numbers[~keep].tolist()
    numbers, start, end = numbers[keep], start[keep], end[keep]
    rows = [r[keep] for r in rows]
    # times are taken from the first step's start before they become float: absolute ns (~1.7e18) are
    # float64 in steps of 256 ns, which put a block's compute up to a µs off the card's (on a real trace)
    base = int(start[0])
    k_steps, n_cards = len(numbers), len(cards)
    n_ops = pos.shape[1]
    present = layout.present
    collective = layout.kind == COLLECTIVE

    arrival = np.empty((k_steps, n_ops, n_cards), np.float64)
    op_end = np.empty_like(arrival)
    for c, card in enumerate(cards):
        p = np.maximum(pos[:, :, c], 0)
        arrival[:, :, c] = card.op_start[p] - base if len(card.op_start) else 0
        op_end[:, :, c] = card.op_end[p] - base if len(card.op_end) else 0
    s0 = (start - base).astype(np.float64)[:, None]
    e0 = (end - base).astype(np.float64)
    step_len = (end - start).astype(np.float64)
    arrival -= s0[:, :, None]
    op_end -= s0[:, :, None]
    # an absent slot is placed at the card's next launch (or the step's end): its compute is the next's
    nxt = np.broadcast_to(step_len[:, None], (k_steps, n_cards)).copy()
    for j in range(n_ops - 1, -1, -1):
        here = present[j][None, :]
        arrival[:, j] = np.where(here, arrival[:, j], nxt)
        op_end[:, j] = np.where(here, op_end[:, j], arrival[:, j])
        nxt = arrival[:, j]
    ends = np.where(collective[None, :, None], np.median(op_end, axis=2, keepdims=True), op_end)  # (K, J, C)
    last_arrival = arrival.max(axis=2, keepdims=True)
    if layout.has_p2p:
        ps, pc = np.maximum(layout.peer_slot, 0), np.maximum(layout.peer_card, 0)
        peer_arrival = arrival[:, ps, pc]
        last_arrival = np.where(collective[None, :, None], last_arrival, np.maximum(arrival, peer_arrival))
    transit = np.where(present[None], np.maximum(ends - last_arrival, 0.0), 0.0)
    # a launch or block waits on the card's previous slot only when the card ran it
    before = layout.previous_run  # (J+1, C): the card's previous operator's slot (-1: none)
    shape = (k_steps, n_ops + 1, n_cards)
    wait = np.zeros((k_steps, n_cards))
    busy, gap, lead = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    blocked = np.zeros(shape, bool)
    ready = np.zeros(shape)
    own_slack = np.zeros((k_steps, n_ops, n_cards))
    prev_slack = np.full((k_steps, n_ops, n_cards), -np.inf)
    unions = [_compute_union(card, base) for card in cards]
    abs_arrival = arrival + s0[:, :, None]  # "abs": ns after ``base``, as the unions are, not after the step start
    # (K, J+1, C): the end of the card's previous slot, −inf where there is none or the card did not run it
    abs_ends = ends + s0[:, :, None]
    prev_end = np.where(before[None] >= 0, abs_ends[:, np.maximum(before, 0), np.arange(n_cards)[None, :]], -np.inf)
    since_prev = abs_arrival - prev_end[:, :n_ops]
    queued = (since_prev >= 0) & (since_prev <= BOUND_LAUNCH_NS) & present[None]
    origins = np.empty((k_steps, n_cards))
    progress = np.full((k_steps, n_ops, n_cards), np.nan)
    for c, (us, ue, cum) in enumerate(unions):
        first_work = np.minimum(_next_start(us, ue, s0[:, 0]), abs_arrival[:, 0, c])
        origins[:, c] = np.minimum(first_work, e0)
        done0 = _busy_until(us, ue, cum, origins[:, c])
        total = _busy_until(us, ue, cum, e0) - done0
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (_busy_until(us, ue, cum, abs_arrival[:, :, c]) - done0[:, None]) / total[:, None]
        progress[:, :, c] = np.where((total[:, None] > 0) & present[None, :, c], share, np.nan)
    launch_share = _launch_share(progress, queued)
    for c, (us, ue, cum) in enumerate(unions):
        a = abs_arrival[:, :, c]
        pe = prev_end[:, :, c]
        origin = origins[:, c]
        wait[:, c] = origin - s0[:, 0]
        r = np.empty((k_steps, n_ops + 1))
        r[:, :n_ops] = _ready_at(us, ue, a)
        done0 = _busy_until(us, ue, cum, origin)
        total = _busy_until(us, ue, cum, e0) - done0
        at_share = _instant_of_busy(us, cum, done0[:, None] + launch_share * total[:, None])
        r[:, :n_ops] = np.where(queued[:, :, c], np.minimum(r[:, :n_ops], at_share), r[:, :n_ops])
        r[:, n_ops] = _ready_at(us, ue, e0)
        r = np.maximum.accumulate(np.maximum(r, origin[:, None]), axis=1)
        block_start = np.concatenate((origin[:, None], r[:, :-1]), axis=1)
        prev_arr = np.concatenate((np.full((k_steps, 1), np.inf), a), axis=1)
        finite_prev = np.where(np.isfinite(pe), pe, 0.0)
        resume = _next_start(us, ue, finite_prev)
        idle_while = _busy_until(us, ue, cum, finite_prev) - \
            _busy_until(us, ue, cum, np.where(np.isfinite(prev_arr), prev_arr, 0.0))
        blk = np.isfinite(pe) & (idle_while <= 0) & (resume <= r) & (r > block_start) & (block_start <= pe)
        bs = np.where(blk, resume, block_start)
        b = _busy_until(us, ue, cum, r) - _busy_until(us, ue, cum, bs)
        busy[:, :, c] = np.maximum(b, 0.0)
        gap[:, :, c] = np.maximum(r - bs - b, 0.0)
        blocked[:, :, c] = blk
        lead[:, :, c] = np.where(blk, resume - pe, 0.0)
        ready[:, :, c] = r - s0
        q = queued[:, :, c]
        own_slack[:, :, c] = np.where(q | ~present[None, :, c], 0.0, a - r[:, :n_ops])
        prev_slack[:, :, c] = np.where(q, since_prev[:, :, c], -np.inf)
    top = np.maximum(ends[:, -1].max(axis=1), ready[:, -1, :].max(axis=1))
    tail = np.maximum(step_len - top, 0.0)
    names = _slot_names(cards, pos)
    type_ns = np.stack([c.step_type_ns[r] for c, r in zip(cards, rows, strict=True)], axis=1)
    counted = all(c.step_type_count is not None for c in cards)
    return StepGraph(
        cards=[c.card for c in cards], offsets_ns=np.array([c.offset_ns for c in cards], np.int64),
        steps=numbers, start_ns=start, end_ns=end, op_names=names, wait=wait, busy=busy, gap=gap,
        blocked=blocked, lead=lead, own_slack=own_slack, prev_slack=prev_slack, transit=transit, tail=tail,
        type_share=_type_share(type_ns), type_ns=type_ns,
        type_count=np.stack([c.step_type_count[r] for c, r in zip(cards, rows, strict=True)], axis=1)
        if counted else None,
        links=_links(cards, pos), type_names=list(type_names), skipped_steps=skipped, layout=layout,
        own_names=_own_names(cards, pos, names, layout))


def _launch_share(progress: np.ndarray, queued: np.ndarray) -> np.ndarray:
    """(K, J): the share of its step's compute at which a card was ready to launch operator j, from each
    card's ``progress`` (K, J, C) at its launch (NaN: the card computed nothing in the step) and whether
    the launch was ``queued`` behind the previous operator.

    A queued launch says nothing of when its card was ready, only that it was ready by then: the cards
    run the same work, so a card was ready at the share the cards that launched as soon as they were
    ready launched at. When every card's launch was queued (a slow link holding back the operator before
    it), the steps run the same work too: the share the unqueued launches of the operator in the other
    steps were ready at, unless the step's own bound says earlier. Each queued card's progress bounds the
    share from above, and with no unqueued launch of the operator in any step the lowest bound is the
    nearest the steps tell; only a step whose cards computed nothing takes the launch instant (share 1).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices are what the fallbacks are for
        free = np.where(queued, np.nan, progress)
        unqueued = np.nanmedian(free, axis=2)
        other_steps = np.nanmedian(free.transpose(1, 0, 2).reshape(free.shape[1], -1), axis=1)  # (J,)
        bound = np.nanmin(progress, axis=2)
    from_steps = np.where(np.isnan(other_steps)[None], bound, np.fmin(bound, other_steps[None]))
    share = np.where(np.isnan(unqueued), from_steps, unqueued)
    return np.where(np.isnan(share), 1.0, share)


def _type_share(table: np.ndarray) -> np.ndarray:
    """(K, C, T): each card's compute time per op type in each step (``table``), as shares of its compute. A
    block's compute is split by op type in these proportions."""
    total = table.sum(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, table / total, 0.0)


def _slot_names(cards: Sequence[CardTimeline], pos: np.ndarray) -> list[list[str]]:
    """Per step, each slot's operator name on the first card that runs it."""
    out = []
    for k in range(pos.shape[0]):
        row = []
        for j in range(pos.shape[1]):
            c = int(np.argmax(pos[k, j] >= 0))
            row.append(cards[c].op_name[int(pos[k, j, c])] if pos[k, j, c] >= 0 else "")
        out.append(row)
    return out


def _own_names(cards: Sequence[CardTimeline], pos: np.ndarray, names: list[list[str]],
               layout: SlotLayout) -> dict[tuple[int, int, int], str]:
    """(step, slot, card) → the card's own name of its send or receive where it is not the slot's name."""
    out = {}
    p2p = np.flatnonzero(layout.kind != COLLECTIVE)
    if not len(p2p):
        return out
    slot_names = np.array([[row[j] for j in p2p.tolist()] for row in names], dtype=object)  # (K, P)
    for c, card in enumerate(cards):
        rows = pos[:, p2p, c]  # (K, P)
        here = rows >= 0
        if not here.any():
            continue
        own = np.array(card.op_name, dtype=object)[np.where(here, rows, 0)]
        for k, i in zip(*np.nonzero(here & (own != slot_names)), strict=True):
            out[(int(k), int(p2p[i]), c)] = own[k, i]
    return out


def _slot_steps(cards: Sequence[CardTimeline], kinds: list[np.ndarray], first: np.ndarray, last: np.ndarray):
    """(kept steps mask, (K', J, C) operator row per slot with −1 absent, layout) for cards with sends and
    receives: the most common layout over the steps; None when no step fits one."""
    card_of_rank = {int(c.rank): i for i, c in enumerate(cards) if c.rank is not None}
    found = []
    for k in range(first.shape[0]):
        sk = step_slots([kinds[c][first[k, c]:last[k, c]] for c in range(len(cards))],
                        [cards[c].op_peer[first[k, c]:last[k, c]] for c in range(len(cards))], card_of_rank)
        found.append(sk)
    keys = [f.key for f in found if f is not None]
    if not keys:
        return None
    counts: dict[tuple, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    best = max(counts, key=counts.get)
    keep = np.array([f is not None and f.key == best for f in found], bool)
    if not len(best[0]):
        return None
    kept = [f for f in found if f is not None and f.key == best]
    rel = np.stack([f.rows for f in kept])  # (K', J, C) rows within the step
    starts = first[keep][:, None, :]
    pos = np.where(rel >= 0, rel + starts, -1)
    sample = kept[0]
    n_slots, n_cards = sample.rows.shape
    kind = np.array(best[0], np.int64)
    present = sample.rows >= 0
    peer_slot = np.frombuffer(best[2], np.int64).reshape(n_slots, n_cards).copy()
    peer_card = np.frombuffer(best[3], np.int64).reshape(n_slots, n_cards).copy()
    layout = SlotLayout(kind, present, peer_slot, peer_card)
    runs = run_levels(layout)
    if runs is None:
        return None
    layout.runs = runs
    return keep, pos, layout


def _links(cards: Sequence[CardTimeline], pos: np.ndarray) -> LinkTransit:
    """Each card's transfers placed at (step row, slot) of the graph."""
    link, transport, step, op, card_col, size, dur = [], [], [], [], [], [], []
    for c, card in enumerate(cards):
        tr = card.transfers
        if tr is None or not len(tr.op):
            continue
        rows = pos[:, :, c].ravel()
        ok_rows = rows >= 0
        order = np.argsort(rows[ok_rows])
        flat = np.flatnonzero(ok_rows)[order]
        sorted_rows = rows[ok_rows][order]
        at = np.minimum(np.searchsorted(sorted_rows, tr.op), max(len(sorted_rows) - 1, 0))
        ok = (sorted_rows[at] == tr.op) if len(sorted_rows) else np.zeros(len(tr.op), bool)
        k, j = np.divmod(flat[at[ok]], pos.shape[1]) if len(sorted_rows) else (np.zeros(0, np.int64),) * 2
        idx = np.flatnonzero(ok)
        link += [tr.link[i] for i in idx.tolist()]
        transport += [tr.transport[i] for i in idx.tolist()]
        step.append(k)
        op.append(j)
        card_col.append(np.full(len(idx), c, np.int64))
        size.append(tr.size[ok].astype(np.float64))
        dur.append(tr.dur[ok].astype(np.float64))

    def cat(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    return LinkTransit(link, transport, cat(step, np.int64), cat(op, np.int64), cat(card_col, np.int64),
                       cat(size, np.float64), cat(dur, np.float64))
