"""``CardFiles``: what the card cache needs of a card's source, defined here so that the store does not
depend on how cards are discovered (the loader makes one of each discovered card)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CardFiles:
    """A card's identity (label and rank: part of its cache key) and its files, in the order they are merged."""

    label: str
    rank: int | None
    files: tuple[Path, ...]
