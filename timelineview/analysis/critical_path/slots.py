"""The operator slots of a step across the cards when some are point-to-point (metrics.md §12).

Collectives are matched by their position among the card's collectives. The sends and receives between
two collectives (a *run*) differ per card (a pipeline's first stage receives nothing, its last sends
nothing), so each run gets a canonical list of slots every card's run fits into in order; a card's slot
it does not run is *absent*. A receive on card c from card p pairs with p's send to c in the same step,
the n-th with the n-th. The pairing orders the run: ``levels`` lists its nodes so that each is evaluated
after what it waits for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from timelineview.analysis.communication.names import POINT_TO_POINT
from timelineview.analysis.pipeline import RECEIVE_NAME

COLLECTIVE, SEND, RECEIVE = 0, 1, 2
LAUNCH_NODE, END_NODE = 0, 1  # a block and its launch of the slot's operator; the operator's end on a card


KIND_WORDS = {COLLECTIVE: "collective", SEND: "send", RECEIVE: "receive"}


def kind_of_name(name: str) -> int:
    """What an operator's name says it is: RECEIVE, SEND (point-to-point and not a receive) or COLLECTIVE."""
    return RECEIVE if RECEIVE_NAME.search(name) else SEND if POINT_TO_POINT.search(name) else COLLECTIVE


def op_kinds(names: Sequence[str], peers: np.ndarray) -> np.ndarray:
    """Per operator its kind: a send or receive when its name says so and its peer is known, else a
    collective."""
    uniq, inverse = np.unique(np.array(list(names) or [""], dtype=object), return_inverse=True)
    by_name = np.array([kind_of_name(n) for n in uniq.tolist()], np.int64)
    kinds = by_name[inverse.ravel()][:len(names)]
    return np.where(peers >= 0, kinds, COLLECTIVE)


@dataclass(frozen=True)
class RunLevels:
    """One run of point-to-point slots [first, stop) and its nodes in dependency order: per level the
    (node kind, slot, card) columns."""

    first: int
    stop: int
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass
class SlotLayout:
    """The slots of the graph's steps (the same in every kept step)."""

    kind: np.ndarray  # (J,) COLLECTIVE, or SEND/RECEIVE for a point-to-point slot
    present: np.ndarray  # (J, C) bool: the card runs the slot's operator
    peer_slot: np.ndarray  # (J, C) int64: the paired operator's slot (-1: none)
    peer_card: np.ndarray  # (J, C) int64
    runs: list[RunLevels] = field(default_factory=list)

    @property
    def has_p2p(self) -> bool:
        return bool((self.kind != COLLECTIVE).any())

    @cached_property
    def previous_run(self) -> np.ndarray:
        """(J+1, C): for each slot (and the step's last block, J), the card's latest slot before it that the
        card runs (-1: none). A card's operator follows the card's previous operator, however many slots of
        other cards' sends and receives lie between them in the layout (a 1F1B stage's)."""
        n_slots, n_cards = self.present.shape
        out = np.full((n_slots + 1, n_cards), -1, np.int64)
        for j in range(n_slots):
            out[j + 1] = np.where(self.present[j], j, out[j])
        return out


@dataclass(frozen=True)
class StepSlots:
    """One step's layout and, per card, each slot's operator row (-1: absent)."""

    key: tuple
    rows: np.ndarray  # (J, C) int64


def _merge(a: list[int], b: list[int]) -> list[int]:
    """The shortest sequence holding both kind sequences in order."""
    n, m = len(a), len(b)
    dp = np.zeros((n + 1, m + 1), np.int64)
    dp[:, 0], dp[0, :] = np.arange(n + 1), np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            dp[i, j] = dp[i - 1, j - 1] + 1 if a[i - 1] == b[j - 1] else min(dp[i - 1, j], dp[i, j - 1]) + 1
    out, i, j = [], n, m
    while i and j:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            i, j = i - 1, j - 1
        elif dp[i - 1, j] <= dp[i, j - 1]:
            out.append(a[i - 1])
            i -= 1
        else:
            out.append(b[j - 1])
            j -= 1
    out += a[:i][::-1] + b[:j][::-1]
    return out[::-1]


def _fit(canon: list[int], seq: list[int]) -> list[int] | None:
    """The slots of ``canon`` the kinds ``seq`` take, first fit in order (None: they do not fit)."""
    out, at = [], 0
    for kind in seq:
        while at < len(canon) and canon[at] != kind:
            at += 1
        if at == len(canon):
            return None
        out.append(at)
        at += 1
    return out


def step_slots(kinds: list[np.ndarray], peers: list[np.ndarray], card_of_rank: dict[int, int]) -> StepSlots | None:
    """The slots of one step from each card's operator kinds and peer ranks (in order); None when the
    cards' collectives differ in number, a card's operators do not fit or a receive has no send."""
    n_cards = len(kinds)
    cuts = [np.flatnonzero(k == COLLECTIVE) for k in kinds]
    if len({len(c) for c in cuts}) != 1:
        return None
    n_coll = len(cuts[0])
    layout: list[int] = []
    rows_per_slot: list[list[int]] = []  # per slot, per card
    for r in range(n_coll + 1):
        runs = []
        for c in range(n_cards):
            lo = cuts[c][r - 1] + 1 if r else 0
            hi = cuts[c][r] if r < n_coll else len(kinds[c])
            runs.append((lo, kinds[c][lo:hi].tolist()))
        canon: list[int] = []
        for seq in dict.fromkeys(tuple(s) for _, s in runs):
            canon = _merge(canon, list(seq))
        base = len(layout)
        layout += canon
        rows_per_slot += [[-1] * n_cards for _ in canon]
        for c, (lo, seq) in enumerate(runs):
            at = _fit(canon, seq)
            if at is None:
                return None
            for i, s in enumerate(at):
                rows_per_slot[base + s][c] = lo + i
        if r < n_coll:
            layout.append(COLLECTIVE)
            rows_per_slot.append([int(cuts[c][r]) for c in range(n_cards)])
    rows = np.array(rows_per_slot, np.int64).reshape(len(layout), n_cards)
    pairs = _pairs(np.array(layout, np.int64), rows, kinds, peers, card_of_rank)
    if pairs is None:
        return None
    key = (tuple(layout), (rows >= 0).tobytes(), pairs[0].tobytes(), pairs[1].tobytes())
    return StepSlots(key, rows)


def _pairs(layout, rows, kinds, peers, card_of_rank):
    """(peer slot, peer card), each (J, C): the n-th receive on c from p with the n-th send on p to c; None when
    a receive would pair with a send across a collective (the cards' collectives then are not the same ones:
    a step window that holds another step's collective on some cards)."""
    n_slots, n_cards = rows.shape
    run = np.cumsum(layout == COLLECTIVE)  # slots between the same two collectives share a run number
    peer_slot = np.full(rows.shape, -1, np.int64)
    peer_card = np.full(rows.shape, -1, np.int64)
    queues: dict[tuple[int, int, int], list[int]] = {}  # (kind, from card, to card) → slots in order
    for j in np.flatnonzero(layout != COLLECTIVE).tolist():
        for c in np.flatnonzero(rows[j] >= 0).tolist():
            p = card_of_rank.get(int(peers[c][rows[j, c]]))
            if p is None or p == c:
                return None
            queues.setdefault((int(kinds[c][rows[j, c]]), c, p), []).append(j)
    for (kind, c, p), slots in queues.items():
        if kind != RECEIVE:
            continue
        sends = queues.get((SEND, p, c), [])
        if len(sends) != len(slots) or np.any(run[sends] != run[slots]):
            return None
        peer_slot[slots, c], peer_card[slots, c] = sends, p
        peer_slot[sends, p], peer_card[sends, p] = slots, c
    if ((peer_slot < 0) & (rows >= 0) & (layout[:, None] != COLLECTIVE)).any():
        return None  # a send nobody receives
    return peer_slot, peer_card


def run_levels(layout: SlotLayout) -> list[RunLevels] | None:
    """The runs of point-to-point slots with their nodes in dependency order; None when the pairing
    waits in a circle."""
    kind = layout.kind
    n_slots, n_cards = layout.present.shape
    out = []
    j = 0
    while j < n_slots:
        if kind[j] == COLLECTIVE:
            j += 1
            continue
        first = j
        while j < n_slots and kind[j] != COLLECTIVE:
            j += 1
        levels = _levels(layout, first, j)
        if levels is None:
            return None
        out.append(RunLevels(first, j, levels))
    return out


def _levels(layout: SlotLayout, first: int, stop: int):
    n_cards = layout.present.shape[1]
    width = stop - first
    level = np.full((2, width, n_cards), -1, np.int64)
    state = np.zeros((2, width, n_cards), np.int8)  # 0 new, 1 on the stack, 2 done

    def deps(node):
        t, i, c = node
        if t == LAUNCH_NODE:
            return [(END_NODE, i - 1, c)] if i else []
        out = [(LAUNCH_NODE, i, c)]
        j = first + i
        if layout.present[j, c] and layout.peer_slot[j, c] >= 0:
            out.append((LAUNCH_NODE, int(layout.peer_slot[j, c]) - first, int(layout.peer_card[j, c])))
        return out

    for start in [(t, i, c) for t in (0, 1) for i in range(width) for c in range(n_cards)]:
        if state[start]:
            continue
        stack = [start]
        while stack:
            node = stack[-1]
            if state[node] == 2:
                stack.pop()
                continue
            state[node] = 1
            todo = [d for d in deps(node) if state[d] != 2]
            if any(state[d] == 1 for d in todo):
                return None
            if todo:
                stack += todo
                continue
            level[node] = 1 + max((level[d] for d in deps(node)), default=-1)
            state[node] = 2
            stack.pop()
    out = []
    for lv in range(int(level.max()) + 1):
        t, i, c = np.nonzero(level == lv)
        out.append((t.astype(np.int64), (i + first).astype(np.int64), c.astype(np.int64)))
    return out
