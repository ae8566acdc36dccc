"""The vocabulary: each quantity timelineview reports, declared once (key, label, unit, definition, the
producer's name) and looked up by key by every surface that shows it."""

from __future__ import annotations

from dataclasses import replace

from timelineview.analysis.vocabulary.declared import QUALIFIERS, QUANTITIES
from timelineview.analysis.vocabulary.quantity import UNIT_SUFFIX, Quantity

VOCABULARY: dict[str, Quantity] = {q.key: q for q in QUANTITIES}
if len(VOCABULARY) != len(QUANTITIES):
    raise ValueError("a key is declared twice in the vocabulary")


def quantity(key: str) -> Quantity:
    """The quantity of ``key``, or of a qualified key (``<prefix>_<key>``: a declared quantity measured another
    way, the way ``QUALIFIERS`` says); a KeyError names a key no one declared."""
    if key in VOCABULARY:
        return VOCABULARY[key]
    for prefix, (label, how) in QUALIFIERS.items():
        base = VOCABULARY.get(key.removeprefix(f"{prefix}_")) if key.startswith(f"{prefix}_") else None
        if base is not None:
            return replace(base, key=key, label=f"{base.label} ({label})", definition=f"{base.definition}; {how}",
                           producer="")
    raise KeyError(key)


def declared(key: str) -> bool:
    """Whether ``key`` is a quantity of the vocabulary, qualified or not."""
    try:
        quantity(key)
    except KeyError:
        return False
    return True


def label(key: str) -> str:
    """The label of ``key``'s quantity."""
    return VOCABULARY[key].label


def header(key: str) -> str:
    """The label of ``key``'s quantity with its unit, as column headers show it."""
    return VOCABULARY[key].header


__all__ = ["QUALIFIERS", "QUANTITIES", "UNIT_SUFFIX", "VOCABULARY", "Quantity", "declared", "header", "label",
           "quantity"]
