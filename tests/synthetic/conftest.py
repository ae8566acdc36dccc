"""Small generated cards shared by the synthetic-generator tests (one per layout, module scope)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from timelineview.synthetic import LAYOUTS, CardSpec, WriteOptions, generate_card

from .tracecheck import load_events

SPEC = CardSpec(seed=3, rank=1, steps=3, streams=3, tasks_per_step=120, with_duplicates=True,
                with_overlaps=True, pipeline=True, clock_offset_ns=123_456)


class Card:
    """A generated card: its ground truth and the events of its trace files."""

    def __init__(self, layout: str, root: Path, pretty: bool = False) -> None:
        self.layout = layout
        out = root / (layout if layout == "msprof_per_iteration" else f"{layout}.json")
        opts = WriteOptions(be_events=True, instants=True, step_trace=True, pretty=pretty)
        self.truth = generate_card(out, SPEC, layout, options=opts)
        self.files = [Path(p) for p in self.truth.paths]
        self.events = [e for f in self.files for e in load_events(f)]

    def count(self, ph: str) -> int:
        return Counter(e.get("ph") for e in self.events)[ph]


@pytest.fixture(scope="session", params=LAYOUTS)
def card(request, tmp_path_factory) -> Card:
    return Card(request.param, tmp_path_factory.mktemp(request.param))


@pytest.fixture(scope="session")
def cards(tmp_path_factory) -> dict[str, Card]:
    root = tmp_path_factory.mktemp("cards")
    return {layout: Card(layout, root) for layout in LAYOUTS}
