"""Which card of one run is compared with which card of another (metrics.md §9), and how the base
run's ranks are renamed so its links meet the new run's.

Cards are matched by rank. When the two runs share no rank and hold the same number of cards they
are matched in rank order (rank 0 of one job against rank 1 of another is a comparison users make);
when some card has no rank, in rank order too. No Qt.
"""

from __future__ import annotations

from typing import NamedTuple

from timelineview.analysis.session import AnalysisSession

BY_RANK, BY_ORDER = "rank", "order"
MATCHINGS = (BY_RANK, BY_ORDER)  # every way the cards of two runs are matched
PAIRS_NAMED = 4  # pairs spelled out in the note of a match by order


class CardMatch(NamedTuple):
    """The matched cards as (base number, new number) pairs, how they were matched, and notes on
    what could not be matched."""

    pairs: list[tuple[int, int]]
    by: str  # BY_RANK or BY_ORDER
    notes: list[str]


def _by_order(base: AnalysisSession, new: AnalysisSession, why: str) -> CardMatch:
    n = min(len(base.order), len(new.order))
    pairs = list(zip(base.order[:n], new.order[:n]))
    named = ", ".join(f"{base.stores[b].card} with {new.stores[c].card}" for b, c in pairs[:PAIRS_NAMED])
    more = f", … ({n} pairs)" if n > PAIRS_NAMED else ""
    notes = [f"{why}: cards matched in rank order ({named}{more})"]
    if len(base.order) != len(new.order):
        notes.append(f"the base run has {len(base.order)} card(s), the new run {len(new.order)}")
    return CardMatch(pairs, BY_ORDER, notes)


def match_cards(base: AnalysisSession, new: AnalysisSession) -> CardMatch:
    """Pairs by rank; by rank order when some card has no rank, or when the runs share no rank and
    hold as many cards each; notes on the cards left unmatched."""
    base_ranks = {base.stores[i].rank: i for i in base.order if base.stores[i].rank is not None}
    new_ranks = {new.stores[i].rank: i for i in new.order if new.stores[i].rank is not None}
    if len(base_ranks) != len(base.stores) or len(new_ranks) != len(new.stores):
        return _by_order(base, new, "some cards have no rank")
    shared = sorted(base_ranks.keys() & new_ranks.keys())
    if not shared and len(base.order) == len(new.order) and base.order:
        return _by_order(base, new, "the runs share no rank")
    notes = []
    for label, only in (("base", base_ranks.keys() - new_ranks.keys()), ("new", new_ranks.keys() - base_ranks.keys())):
        if only:
            notes.append(f"only in the {label} run: " + ", ".join(f"rank {r}" for r in sorted(only)))
    return CardMatch([(base_ranks[r], new_ranks[r]) for r in shared], BY_RANK, notes)


def rank_renaming(pairs: list[tuple[int | None, int | None]]) -> dict[int, int]:
    """Base rank -> new rank for matched cards of other ranks, completed so that no two base ranks get
    one name: a rank that a matched card's new rank would shadow takes the name that card had (the
    cycle closes), e.g. {0: 1} becomes {0: 1, 1: 0}. Ranks absent from the result keep their name."""
    forward = {b: n for b, n in pairs if b is not None and n is not None and b != n}
    if not forward:
        return {}
    backward = {n: b for b, n in forward.items()}
    out = dict(forward)
    for target in forward.values():
        if target in forward:  # a base card of that rank is renamed itself
            continue
        free = target
        while free in backward:  # follow the chain back to a name no matched card takes
            free = backward[free]
        out[target] = free
    return out
