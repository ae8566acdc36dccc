"""One-forward-one-backward (1F1B) pipelines: each stage's order of microbatch work and transfers, and when
each runs in one step.

Stage s of S runs min(S − s − 1, M) forwards to fill the pipeline, then alternates one forward and one
backward, then drains the remaining backwards. A forward of microbatch m first receives its activations from
stage s − 1 and then sends its own to stage s + 1; a backward first receives its gradients from s + 1 and then
sends its own to s − 1. A send and its receive are one rendezvous: both end when the later of the two was
launched plus the pair's transfer time. Two stages must meet their transfers in the same order, so a stage
issues its transfers with the next stage in the order that stage runs them (a forward's send may wait for a
backward's receive, as a fused send-forward-receive-backward does).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND, StepLocal

FORWARD, BACKWARD = 0, 1


@dataclass(frozen=True)
class Compute:
    """The forward or backward of one microbatch on a stage."""

    phase: int  # FORWARD / BACKWARD
    micro: int

    def chunk(self, microbatches: int) -> int:
        """Index of its share of the drawn step (``microbatch_chunks``): forwards first, then backwards."""
        return self.micro + (microbatches if self.phase == BACKWARD else 0)


@dataclass(frozen=True)
class Transfer:
    """One side of a point-to-point transfer: ``kind`` KIND_SEND or KIND_RECEIVE with stage ``peer``."""

    kind: int
    peer: int
    phase: int  # FORWARD: activations to the next stage; BACKWARD: gradients to the previous one
    micro: int


Event = Compute | Transfer


def compute_order(stage: int, stages: int, microbatches: int) -> list[Compute]:
    """The 1F1B order of a stage's forwards and backwards."""
    warm = min(stages - stage - 1, microbatches)
    out = [Compute(FORWARD, m) for m in range(warm)]
    for i in range(microbatches - warm):
        out += [Compute(FORWARD, warm + i), Compute(BACKWARD, i)]
    out += [Compute(BACKWARD, m) for m in range(microbatches - warm, microbatches)]
    return out


def stage_orders(stages: int, microbatches: int) -> list[list[Event]]:
    """Every stage's sequence of computes and transfers, built from the last stage back so that each stage
    meets its transfers with the next one in that stage's order."""
    orders: list[list[Event]] = [[] for _ in range(stages)]
    downstream: list[Transfer] = []  # the next stage's transfers with this one, in its order, as seen from here
    for s in range(stages - 1, -1, -1):
        orders[s] = _one_stage(s, stages, microbatches, deque(downstream))
        downstream = [Transfer(KIND_SEND if t.kind == KIND_RECEIVE else KIND_RECEIVE, s, t.phase, t.micro)
                      for t in orders[s] if isinstance(t, Transfer) and t.peer == s - 1]
    return orders


def _one_stage(s: int, stages: int, microbatches: int, down: deque[Transfer]) -> list[Event]:
    out: list[Event] = []
    forwarded: set[int] = set()

    def issue_through(stop: int) -> None:
        """Issue the next stage's transfers up to position ``stop`` of ``down`` (in its order)."""
        for _ in range(stop):
            t = down.popleft()
            if t.kind == KIND_SEND and t.micro not in forwarded:
                raise AssertionError("a 1F1B send before its forward")
            out.append(t)

    for c in compute_order(s, stages, microbatches):
        if c.phase == FORWARD and s > 0:
            out.append(Transfer(KIND_RECEIVE, s - 1, FORWARD, c.micro))
        if c.phase == BACKWARD and down:
            # (-1: already issued, ahead of a send the next stage awaited first)
            at = next((i for i, t in enumerate(down) if t.kind == KIND_RECEIVE and t.micro == c.micro), -1)
            issue_through(at + 1)
        out.append(c)
        if c.phase == FORWARD:
            forwarded.add(c.micro)
            ready = [i for i, t in enumerate(down) if t.kind == KIND_SEND and t.micro in forwarded]
            sendable = 0
            for i in ready:  # the sends now possible, and the receives the next stage runs before them
                if all(t.kind == KIND_RECEIVE or t.micro in forwarded for t in list(down)[:i]):
                    sendable = i + 1
            issue_through(sendable)
        if c.phase == BACKWARD and s > 0:
            out.append(Transfer(KIND_SEND, s - 1, BACKWARD, c.micro))
    issue_through(len(down))
    return out


def microbatch_chunks(local: StepLocal, microbatches: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split a drawn step into ``microbatches`` forward and as many backward chunks, each an equal slice of
    the forward's (backward's) time by the items' starts, so that a chunk holds what all streams ran together
    then (a split by item order would pair a secondary stream's items with primary ones of another time and
    open idle stretches that grow with the card's compute). Per item its chunk (forwards 0..M−1, backwards
    M..2M−1), and per chunk its first start and last end (relative to the step's compute origin; an empty
    chunk spans nothing)."""
    chunk = np.zeros(len(local.rel_start), np.int64)
    for first, mine in ((0, local.forward), (microbatches, ~local.forward)):
        if not mine.any():
            continue
        starts = local.rel_start[mine]
        lo, hi = int(starts.min()), int(starts.max()) + 1
        part = (starts - lo) * microbatches // (hi - lo)
        chunk[mine] = first + np.minimum(part, microbatches - 1)
    end = local.rel_start + local.dur
    lo = np.zeros(2 * microbatches, np.int64)
    hi = np.zeros(2 * microbatches, np.int64)
    for q in range(2 * microbatches):
        mine = chunk == q
        if mine.any():
            lo[q], hi[q] = int(local.rel_start[mine].min()), int(end[mine].max())
    return chunk, lo, hi


@dataclass
class PipelineTimes:
    """One step of a 1F1B pipeline on the true clock: per card, each compute's start (in the card's order)
    and each transfer's launch, end and transfer time (in the card's order)."""

    compute_start: list[list[int]]
    op_start: list[list[int]]
    op_end: list[list[int]]
    op_xfer: list[list[int]]

    def last_end(self) -> np.ndarray:
        """Per card, when its last transfer ended (0: none)."""
        return np.array([max(e, default=0) for e in self.op_end], np.int64)


def place_pipeline(orders: Sequence[Sequence[Event]], first_at: np.ndarray, spans: Sequence[np.ndarray],
                   microbatches: int, xfer_ns: Callable[[int, int, int], int], gap_ns: int) -> PipelineTimes:
    """Run every stage's order: a compute starts when its card is free and lasts its chunk's span
    (``spans[card][chunk]``); a transfer is launched when its card is free and ends, on both sides, at the
    later launch plus ``xfer_ns(src, dst, lead)`` (``lead``: how long before the later launch the sender was
    launched); the card is free ``gap_ns`` after. ``first_at``: when each card starts (after its data wait)."""
    n = len(orders)
    free = [int(t) for t in first_at]
    at = [0] * n
    times = PipelineTimes([[] for _ in range(n)], [[] for _ in range(n)], [[] for _ in range(n)],
                          [[] for _ in range(n)])
    waiting: dict[tuple[int, int, int, int], tuple[int, int]] = {}  # (src, dst, phase, micro) → (card, op)
    while any(at[c] < len(orders[c]) for c in range(n)):
        moved = False
        for c in range(n):
            while at[c] < len(orders[c]):
                ev = orders[c][at[c]]
                if isinstance(ev, Compute):
                    times.compute_start[c].append(free[c])
                    free[c] += int(spans[c][ev.chunk(microbatches)])
                    at[c] += 1
                    moved = True
                    continue
                if at[c] < len(times.op_start[c]) + len(times.compute_start[c]):
                    break  # launched, waiting for its peer
                times.op_start[c].append(free[c])
                src, dst = (c, ev.peer) if ev.kind == KIND_SEND else (ev.peer, c)
                key = (src, dst, ev.phase, ev.micro)
                moved = True
                peer = waiting.pop(key, None)
                if peer is None:
                    waiting[key] = (c, len(times.op_start[c]) - 1)
                    break
                p, op = peer
                later = max(free[c], times.op_start[p][op])
                sent = free[c] if c == src else times.op_start[p][op]
                xfer = int(xfer_ns(src, dst, later - sent))
                end = later + xfer
                times.op_end[c].append(end)
                times.op_xfer[c].append(xfer)
                times.op_end[p].append(end)
                times.op_xfer[p].append(xfer)
                for card in (c, p):
                    free[card] = end + gap_ns
                    at[card] += 1
        if not moved:
            raise AssertionError("the 1F1B transfers wait for each other in a circle")
    return times
