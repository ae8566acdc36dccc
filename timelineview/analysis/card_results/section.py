"""Where a declared result lies in the §5 card object: its rows put there when the card object is built, and
read from there by whatever holds a card object (a summary's ``details.json``, the SQL tables, the views)."""

from __future__ import annotations

from typing import Any

from timelineview.analysis.card_results.declaration import CardResult


def _parent(card: dict, section: tuple[str, ...]) -> dict | None:
    """The object holding the section's last key, or None when the card object has none (a card without the
    object the result belongs to: its ``kernels`` null)."""
    node: Any = card
    for key in section[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def place(card: dict, result: CardResult, rows: list[dict]) -> None:
    """Put ``rows`` at ``result``'s section of ``card`` (after the keys already there)."""
    parent = _parent(card, result.section)
    if parent is not None:
        parent[result.section[-1]] = rows


def rows_in(card: dict, result: CardResult) -> list[dict] | None:
    """The rows of ``result`` a card object holds (None when it holds none)."""
    parent = _parent(card, result.section)
    return None if parent is None else parent.get(result.section[-1])
