"""Python's full collections made rarer once a load brings many cards' results into memory.

Every full collection (generation 2) walks every container object alive. The results of a thousand small cards
(the §5 objects, the findings' facts, the step rows: lists and dicts, about 700 a card) grow the heap to most of
a million containers, and with the default thresholds a ``stats`` served from the card cache ran eleven full
collections, 2.7-3.5 s of its 10-12 s of CPU (measured at 1024 cards of 350 kB). Considering a full collection
ten times less often left two (0.9 s of 9.5 s); a hundred times less often, none (the served ``stats`` runs about
220 middle collections). Results are trees that reference counting frees; only cyclic garbage that outlived two
younger collections waits longer (for the next full collection, at most ``FULL_EVERY`` middle collections later).
"""

from __future__ import annotations

import gc

FULL_EVERY = 1000  # generation-1 collections between two chances of a full one (Python's default: 10)


def fewer_full_collections() -> None:
    """Raise the threshold of full collections to ``FULL_EVERY`` (never lower it if set higher elsewhere)."""
    young, middle, full = gc.get_threshold()
    if young and full < FULL_EVERY:  # a threshold of 0 for the young generation: collection is off, left so
        gc.set_threshold(young, middle, FULL_EVERY)
