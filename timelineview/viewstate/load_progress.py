"""What a load's per-card progress says in words (no Qt): how much of what is read, in its own unit.

A trace file's progress counts its bytes, a profiler database's the rows of its tables (estimated from
each table's largest rowid before reading). The two are never added: a database of 300 000 rows read
is not "0 of 0 MB". A card whose size is not known yet (its tables are being counted) adds nothing to the
totals and is said to be sizing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

BYTES, ROWS = "bytes", "rows"
UNKNOWN_TOTAL = 1  # the row meter's total before it has counted a table's rows
BYTES_PER_MB = 1e6  # a file's size as the file manager says it
ROUND_MB_FROM = 10.0  # from 10 MB on whole MB; below, one decimal (a 0.7 MB database is not "0 MB")


@dataclass
class CardRead:
    """One card's progress: ``done`` of ``total`` ``unit``."""

    done: int = 0
    total: int = 0
    unit: str = BYTES

    @property
    def sized(self) -> bool:
        """Whether its total is known (a database's rows are counted before they are read)."""
        return self.total > (UNKNOWN_TOTAL if self.unit == ROWS else 0)


def _mb(n: float, whole: bool) -> str:
    mb = n / BYTES_PER_MB
    return f"{mb:,.0f}" if whole else f"{mb:,.1f}"


def progress_words(cards: Iterable[CardRead], reading: int) -> str:
    """``120 of 340 MB read · 12 000 of 30 000 rows read · 1 sizing · 2 reading now`` (the parts that
    apply; ``reading``: the cards reading now)."""
    cards = list(cards)
    parts = []
    files = [c for c in cards if c.unit == BYTES and c.sized]
    if files:
        total = sum(c.total for c in files)
        whole = total / BYTES_PER_MB >= ROUND_MB_FROM
        parts.append(f"{_mb(sum(c.done for c in files), whole)} of {_mb(total, whole)} MB read")
    tables = [c for c in cards if c.unit == ROWS and c.sized]
    if tables:
        parts.append(f"{sum(c.done for c in tables):,} of {sum(c.total for c in tables):,} rows read")
    sizing = sum(c.unit == ROWS and not c.sized for c in cards)
    if sizing:
        parts.append(f"{sizing} counting {'its' if sizing == 1 else 'their'} rows")
    if reading:
        parts.append(f"{reading} reading now")
    return " · ".join(parts).replace(",", " ")
