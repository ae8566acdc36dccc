"""Both runs lane by lane: under each base card, every lane of the base run is followed by
the same lane of the new run's matched card. No Qt.

Rows carry their card's number, so the tracks draw each row from its own card wherever it sits; only
the order of the rows changes. A lane is "the same" when its group (the overview, or a process of the
same name) and its title are; the new run's lanes without a match follow the pair's matched ones. The
base card's groups rule both: collapsing a base process hides the new run's process of that name too.
"""

from __future__ import annotations

from collections.abc import Sequence

from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.tabs.run_alignment import NEW_RUN_PREFIX, CardPair, RunCardView
from timelineview.viewstate.timeline.lane_layout import (
    CARD,
    DERIVED,
    OVERVIEW,
    PROCESS,
    LaneLayout,
    Row,
    RowSource,
    build_layout,
)


def _match_keys(rows: list[Row], card: CardView) -> list[tuple | None]:
    """Per row: (group title, kind, title) for a lane, None for a group header. A derived lane is told
    by its key, not its title: each card words it in its own device's words ("Idle AI Core gaps" on an
    NPU card is "Idle GPU gaps" on a GPU one)."""
    keys, group = [], ""
    for r in rows:
        if r.is_group:
            group = r.title if r.kind in (OVERVIEW, PROCESS) else ""
            keys.append(None)
        elif r.kind == DERIVED and 0 <= r.derived < len(card.derived_lanes):
            keys.append((group, r.kind, card.derived_lanes[r.derived].key))
        else:
            keys.append((group, r.kind, r.title))
    return keys


def _mirrored(pair: CardPair, collapsed: set[tuple]) -> set[tuple]:
    """The new card's collapsed groups: those of the base card with the same name."""
    base, new = pair
    out = set()
    if ("overview", base.number) in collapsed:
        out.add(("overview", new.number))
    names = {str(name): p for p, name in enumerate(new.store.processes.name)}
    for p, name in enumerate(base.store.processes.name):
        q = names.get(str(name))
        if q is not None and ("process", base.number, p) in collapsed:
            out.add(("process", new.number, q))
    return out


def _as_new(row: Row) -> Row:
    row.title = f"{NEW_RUN_PREFIX}{row.title}"
    row.tooltip = f"the new run: {row.tooltip}" if row.tooltip else "the new run"
    return row


def lane_by_lane_layout(pairs: list[CardPair], unmatched: list[RunCardView], collapsed: set[tuple],
                        sources: Sequence[RowSource]) -> LaneLayout:
    """Rows of every pair, each base lane followed by the new run's same lane; the new run's unmatched
    cards after them, laid out as usual."""
    rows: list[Row] = []
    y = 0

    def add(row: Row) -> None:
        nonlocal y
        row.y = y
        rows.append(row)
        y += row.height

    for pair in pairs:
        base_rows = build_layout([pair.base], collapsed, sources).rows
        if base_rows and base_rows[0].kind == CARD and base_rows[0].collapsed:
            add(base_rows[0])
            continue
        laid = build_layout([pair.new], _mirrored(pair, collapsed), sources).rows
        keyed = [(k, r) for k, r in zip(_match_keys(laid, pair.new), laid, strict=True) if k is not None]
        new_rows = [r for _, r in keyed]
        new_by_key = {k: r for k, r in reversed(keyed)}  # the first of equal keys
        used: set[int] = set()
        for row, key in zip(base_rows, _match_keys(base_rows, pair.base), strict=True):
            add(row)
            partner = new_by_key.get(key) if key is not None else None
            if partner is not None and id(partner) not in used:
                used.add(id(partner))
                add(_as_new(partner))
        for row in new_rows:  # lanes only the new run has
            if id(row) not in used:
                add(_as_new(row))
    for card in unmatched:
        for row in build_layout([card], collapsed, sources).rows:
            add(row)
    return LaneLayout(rows=rows, height=y)


def pairs_builder(pairs: list[CardPair], unmatched: list[RunCardView], sources: Sequence[RowSource]):
    """A ``TimelineWidget.layout_builder``: the lane-by-lane rows while the timeline shows exactly these
    cards, None (the usual rows) once it shows others."""
    numbers = [c.number for p in pairs for c in p] + [c.number for c in unmatched]

    def build(cards, collapsed: set[tuple]) -> LaneLayout | None:
        if sorted(c.number for c in cards) != sorted(numbers):
            return None
        return lane_by_lane_layout(pairs, unmatched, collapsed, sources)

    return build
