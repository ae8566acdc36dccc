"""Name search: substring match over the interned name table, then one gather over the name column.

Matching the (small) string table in Python and mapping it to slices with a boolean lookup table
keeps a search over 10 M slices well under 100 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class NameSearch:
    """Case-insensitive substring search over one card's interned strings."""

    def __init__(self, strings: list[str]) -> None:
        self._strings = strings
        self._lower: list[str] | None = None  # built on the first search

    def name_ids(self, query: str) -> np.ndarray:
        """Ids of the strings containing ``query`` (case-insensitive); empty for an empty query."""
        q = query.strip().lower()
        if not q:
            return np.zeros(0, dtype=np.int64)
        if self._lower is None or len(self._lower) != len(self._strings):
            self._lower = [s.lower() for s in self._strings]
        return np.fromiter((i for i, s in enumerate(self._lower) if q in s), dtype=np.int64)

    def slice_mask(self, name_column: np.ndarray, query: str) -> np.ndarray:
        """Boolean mask over slices whose name contains ``query``."""
        ids = self.name_ids(query)
        lut = np.zeros(len(self._strings) + 1, dtype=bool)  # +1: a -1 name maps to the last, False
        lut[ids] = True
        return lut[name_column]


@dataclass
class CardMatches:
    """Matches of one card: slice indices and their aligned start times (ns from the origin)."""

    card: int
    slices: np.ndarray  # int64, ascending slice index
    starts: np.ndarray  # int64, aligned start of each match
    mask: np.ndarray  # bool over all slices of the card (for highlighting)


def match_key_before(matches: list[CardMatches], t: int, card: int, index: int) -> int:
    """How many matches sort before (t, card, index): the 0-based rank of a match at that key."""
    total = 0
    for m in matches:
        total += int(np.count_nonzero(m.starts < t))
        same = m.starts == t
        if m.card < card:
            total += int(np.count_nonzero(same))
        elif m.card == card:
            total += int(np.count_nonzero(same & (m.slices < index)))
    return total


def step_match(matches: list[CardMatches], t: int, card: int, index: int,
               direction: int) -> tuple[int, int] | None:
    """Next (direction > 0) or previous match from key (t, card, index), wrapping around.

    Matches are ordered by (aligned start, card, slice index); returns ``(card, slice)`` or None.
    """
    best: tuple[int, int, int] | None = None
    for m in matches:
        if len(m.slices) == 0:
            continue
        s, idx = m.starts, m.slices
        if direction > 0:
            after = (s > t) | ((s == t) & ((m.card > card) | ((m.card == card) & (idx > index))))
        else:
            after = (s < t) | ((s == t) & ((m.card < card) | ((m.card == card) & (idx < index))))
        cand = np.flatnonzero(after)
        if len(cand) == 0:
            continue
        key_s = s[cand]
        pick = cand[np.argmin(key_s)] if direction > 0 else cand[np.argmax(key_s)]
        # among equal starts the lowest (highest) slice index of this card
        same = cand[key_s == s[pick]]
        pick = same[0] if direction > 0 else same[-1]
        key = (int(s[pick]), m.card, int(idx[pick]))
        if best is None or (key < best if direction > 0 else key > best):
            best = key
    if best is None:
        # wrap: first (last) match overall
        keys = [(int(m.starts.min() if direction > 0 else m.starts.max()), m) for m in matches
                if len(m.slices)]
        if not keys:
            return None
        if direction > 0:
            t_best = min(k for k, _ in keys)
            m = min((m for k, m in keys if k == t_best), key=lambda m: m.card)
            idx = m.slices[m.starts == t_best]
            return m.card, int(idx[0])
        t_best = max(k for k, _ in keys)
        m = max((m for k, m in keys if k == t_best), key=lambda m: m.card)
        idx = m.slices[m.starts == t_best]
        return m.card, int(idx[-1])
    return best[1], best[2]
