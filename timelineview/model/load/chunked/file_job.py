"""One trace file of a load: where it is read from, its planned ranges and their decoded results."""

from __future__ import annotations

from dataclasses import dataclass, field

from timelineview.model.decode.chunk_result import ChunkResult, PackedResults
from timelineview.model.decode.layout_scan import ArrayBounds
from timelineview.model.store.report import LoadReport


@dataclass
class FileJob:
    """One file of one card of a load (``card``, ``index``), its ranges and their decoded results."""

    card: int
    index: int  # file index within the card
    path: str  # the file the user gave: what the report and the store name
    read_path: str  # the file read: ``path``, or for a ``.gz`` its decompressed copy ("" if none)
    report: LoadReport
    bounds: ArrayBounds | None = None
    ranges: list[tuple[int, int]] = field(default_factory=list)
    results: dict[int, ChunkResult] = field(default_factory=dict)
    packed: dict[int, PackedResults] = field(default_factory=dict)  # by first range of the task
