"""Two runs on one timeline: the new run's cards as extra cards, aligned at a chosen step.

The timeline already draws several cards, each shifted by its own clock offset
(:attr:`CardView.offset_ns`). The comparison run's cards join the base run's cards with numbers of
their own (:data:`NEW_RUN_NUMBER_BASE` + their number in the new run), each right under the base card it
is matched with, and an offset that puts the chosen step's start at the same relative time as on its
base card: one viewport, so W/A/S/D move both runs. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

from timelineview.viewstate.card_view import CardView

NEW_RUN_NUMBER_BASE = 100_000  # card numbers of the comparison run start here (base cards are 0..n-1)
NEW_RUN_PREFIX = "new · "


@dataclass
class RunCardView(CardView):
    """A card of the comparison run: titled ``new · <card>`` so the two runs read apart."""

    run_label: str = NEW_RUN_PREFIX
    run_clock_ns: int = 0  # the clock offset its own run estimated (the alignment moves the card from there)

    @property
    def title(self) -> str:
        return f"{self.run_label}{self.store.card}"


def as_new_run_card(card: CardView) -> RunCardView:
    """The comparison run's ``card`` renumbered past the base run's numbers (its arrays are shared)."""
    values = {f.name: getattr(card, f.name) for f in fields(CardView)}
    values["number"] = NEW_RUN_NUMBER_BASE + card.number
    return RunCardView(**values, run_clock_ns=int(card.estimated_offset_ns))


class CardPair(NamedTuple):
    """A base card and the new run's card matched with it (by rank, see ``analysis.diff.run_diff``)."""

    base: CardView
    new: RunCardView


def step_count(pairs: list[CardPair]) -> int:
    """How many step positions every base card of the pairs has (the step selector's range)."""
    counts = [len(p.base.steps) if p.base.steps is not None else 0 for p in pairs]
    return min(counts) if counts else 0


def step_label(pairs: list[CardPair], position: int) -> str:
    """The selector's text for a step position: the base run's step number (and the new run's if other)."""
    base = pairs[0].base.steps
    text = base.label(position)
    new = pairs[0].new.steps
    if new is not None and position < len(new) and int(new.step[position]) != int(base.step[position]):
        text += f" (new run: {new.label(position)})"
    return text


def step_start(card: CardView, position: int) -> int | None:
    """Absolute ns (the card's own clock) where its ``position``-th step starts, or None."""
    steps = card.steps
    if steps is None or not 0 <= position < len(steps):
        return None
    return int(steps.start[position])


def step_end(card: CardView, position: int) -> int | None:
    steps = card.steps
    if steps is None or not 0 <= position < len(steps):
        return None
    return int(steps.end[position])


def aligned_offsets(pairs: list[CardPair], unmatched: list[RunCardView], position: int) -> dict[int, int]:
    """Clock offset per new-run card number that puts its ``position``-th step start at the relative
    time where its base card's starts: ``new.offset = new_start - base_start + base.offset``.

    A new card without that step (or unmatched) moves like the first pair that has it, so the new run
    keeps its own skew between cards; with no pair having the step, offsets are left as they are."""
    out: dict[int, int] = {}
    shift = None  # new offset - its run's own clock offset, of the first aligned pair
    for base, new in pairs:
        b, n = step_start(base, position), step_start(new, position)
        if b is None or n is None:
            continue
        out[new.number] = n - b + int(base.offset_ns)
        if shift is None:
            shift = out[new.number] - new.run_clock_ns
    if shift is None:
        return out
    for _, new in pairs:
        out.setdefault(new.number, new.run_clock_ns + shift)
    for new in unmatched:
        out[new.number] = new.run_clock_ns + shift
    return out


def interleaved(pairs: list[CardPair], unmatched: list[RunCardView]) -> list[CardView]:
    """Base card, then its new-run card, for every pair; the new run's unmatched cards last. With the
    lane filter (one kind of lane per card) a lane of the base sits right above the same lane of the new."""
    out: list[CardView] = []
    for base, new in pairs:
        out += [base, new]
    return out + list(unmatched)


def step_window_rel(pairs: list[CardPair], position: int, offsets: dict[int, int],
                    origin: int) -> tuple[int, int] | None:
    """[t0, t1] relative to ``origin`` covering the step on every card of both runs (with ``offsets``
    for the new cards, the base cards' own offsets)."""
    spans = []
    for base, new in pairs:
        for card, offset in ((base, int(base.offset_ns)), (new, offsets.get(new.number, int(new.offset_ns)))):
            s, e = step_start(card, position), step_end(card, position)
            if s is not None and e is not None:
                spans.append((s - offset - origin, e - offset - origin))
    if not spans:
        return None
    return min(a for a, _ in spans), max(b for _, b in spans)
