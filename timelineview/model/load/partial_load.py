"""Pictures of a load in progress: stores of the chunks decoded so far, handed out now and then.

A card's chunks reach its ``CardBuilder`` in file order, so a snapshot of the builder is the
file's first part, complete: every slice of it is final. Snapshots cost a copy of the
columns and an index build, so they are spaced by a multiple of their own cost and take
at most a fifth of the load however large the file.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

from timelineview.model.store.trace_store import TraceStore

FIRST_PICTURE_S = 0.5  # the first snapshot once this much decoding time has passed
MIN_INTERVAL_S = 0.5
COST_FACTOR = 4.0  # wait this many times the last snapshot's cost before the next one
MIN_FRACTION = 0.05  # below this share read, the trace's end is not guessed further out


class PartialLoad(NamedTuple):
    """What a load has so far: one store per card (a cached card complete), and the bytes of
    each card read (``card_done[i]`` of ``card_total[i]``)."""

    stores: list[TraceStore]
    card_done: list[int]
    card_total: list[int]

    def fraction(self, card: int) -> float:
        """Share of card ``card``'s bytes in its store (1.0 for a card with nothing to read)."""
        total = self.card_total[card]
        return 1.0 if total <= 0 else min(self.card_done[card] / total, 1.0)

    def unloaded(self) -> UnloadedSpan | None:
        """The time not loaded yet, over all cards: from the earliest end reached by a card still
        loading to where the trace should end if its time grows with its bytes (a guess, for the
        picture only). None when no card with slices is still loading."""
        loading = [(s, self.fraction(i)) for i, s in enumerate(self.stores)
                   if self.fraction(i) < 1.0 and len(s.slices)]
        if not loading:
            return None
        start = min(s.t_end for s, _ in loading)
        end = max(s.t_origin + int((s.t_end - s.t_origin) / max(f, MIN_FRACTION)) for s, f in loading)
        read = sum(self.card_done) / max(sum(self.card_total), 1)
        return UnloadedSpan(start, max(end, start + 1), f"not loaded yet ({read:.0%} of the data read)")


class UnloadedSpan(NamedTuple):
    """Absolute ns of the span a load has not reached yet, and what to say on it."""

    start: int
    end: int
    text: str


Partial = Callable[[PartialLoad], None]


class _Feed(Protocol):
    taken: int  # elements handed to the builder so far
    taken_bytes: int  # the bytes they were read from

    def snapshot(self) -> TraceStore: ...


class _Meter(Protocol):
    done: int
    total: int
    card_total: list[int]


class PartialCards:
    """Decides when a snapshot is due and assembles it over all cards, in ``load_cards``' order:
    ``known[i]`` a store already complete (from the card cache), else the next fresh card."""

    def __init__(self, callback: Partial, known: Sequence[TraceStore | None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.callback = callback
        self.known = list(known)
        self.clock = clock
        self.due = clock() + FIRST_PICTURE_S
        self.seen = 0

    def offer(self, feeds: Sequence[_Feed], meter: _Meter) -> bool:
        """Hand out a snapshot if one is due and something new arrived; returns whether it did."""
        now = self.clock()
        taken = sum(feed.taken for feed in feeds)
        if now < self.due or taken == self.seen or meter.done >= meter.total:
            return False
        self.seen = taken
        fresh = iter(zip(feeds, meter.card_total))
        stores, done, total = [], [], []
        for store in self.known:
            if store is None:
                feed, t = next(fresh)
                d = feed.taken_bytes
                store = feed.snapshot()
            else:
                d = t = 0
            stores.append(store)
            done.append(d)
            total.append(t)
        self.callback(PartialLoad(stores, done, total))
        end = self.clock()
        self.due = end + max(MIN_INTERVAL_S, COST_FACTOR * (end - now))
        return True
