"""What the views keep per card: the store, its analysis as lanes and step bars, colours, search.

Built off the GUI thread right after loading, from the card's analysis in the session
(``analysis.session``): the views show what it computed and compute none of it again.
No Qt here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from timelineview.analysis.card_analysis import CardAnalysis, analyse_card, ensure
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS, DerivedIntervals
from timelineview.analysis.session import VIEW_FIELDS
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import wording_of
from timelineview.producers.wording import ASCEND_WORDING, DeviceWording, reword
from timelineview.viewstate.palette import name_colours
from timelineview.viewstate.timeline.lod import RowSummary, build_row_summary, prefix_lengths
from timelineview.viewstate.timeline.search import NameSearch
from timelineview.viewstate.timeline.window_source import PyramidSource, WindowSource


@dataclass
class DerivedLane:
    """One derived lane: interval sets drawn in the colour named by ``parts[i][0]``."""

    key: str
    title: str
    parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]  # colour key, starts, ends (abs ns), prefix
    tooltip: str = ""
    # what a click selects when it is not a part: idle gaps are drawn as two parts (waiting on
    # communication, nothing running) but a click selects the whole gap
    select: tuple[np.ndarray, np.ndarray] | None = None


@dataclass
class StepBars:
    """Step windows and their phases, absolute ns. ``phases`` False: the one "whole trace" window of
    a trace without step markers, whose fp and bp were never measured (drawn without phase colours)."""

    step: np.ndarray
    start: np.ndarray
    end: np.ndarray
    fp: np.ndarray
    bp: np.ndarray
    phases: np.ndarray | None = None  # bool per step; None: every step has phases

    def __post_init__(self) -> None:
        if self.phases is None:
            self.phases = np.ones(len(self.step), dtype=bool)

    def __len__(self) -> int:
        return len(self.step)

    def label(self, i: int) -> str:
        """'Step 3', or 'Whole trace' for a window without phases."""
        return f"Step {int(self.step[i])}" if self.phases[i] else "Whole trace"


@dataclass
class CardView:
    """One card as the views see it."""

    number: int
    store: TraceStore
    offset_ns: int = 0  # clock offset applied: subtracted from its times to align with the first card
    estimated_offset_ns: int = 0  # what the cluster analysis estimated (applied unless turned off)
    analysis: CardAnalysis | None = None  # what the session computed for this card
    derived_lanes: list[DerivedLane] = field(default_factory=list)
    steps: StepBars | None = None
    colours: np.ndarray = field(default_factory=lambda: np.zeros(1, np.uint8))
    search: NameSearch | None = None
    plane_colour_ids: np.ndarray | None = None  # per slice, by transport / link type (viewstate.plane_colours)
    row_summary: RowSummary | None = None  # LOD shortcut for dense index rows
    analysis_error: str = ""
    # a summarised card (its trace not loaded): its rows are coverage lanes drawn from this source, and
    # the store is empty
    coverage_source: WindowSource | None = None
    coverage_note: str = ""  # what its header adds (the trace loading, not on this machine, …)
    producer: str = ""  # a summarised card's producer as its summary keeps it (a loaded card's: its analysis')

    @property
    def title(self) -> str:
        return self.store.card

    @property
    def wording(self) -> DeviceWording:
        """The words of the card's producer for its device ("AI Core" on Ascend, "GPU" on a Kineto card)."""
        derived = getattr(self.analysis, "derived", None)
        return wording_of_derived(derived) if derived is not None else wording_of(self.producer)

    @property
    def drawable(self) -> bool:
        """Whether the timeline has anything of this card to draw (slices, counters or coverage lanes)."""
        return bool(len(self.store.slices) or len(self.store.counters) or self.coverage_source is not None)

    @property
    def span(self) -> tuple[int, int] | None:
        """[first, last] absolute ns the card's slices (or its coverage source) cover; None when empty."""
        if self.coverage_source is not None:
            return self.coverage_source.t0, self.coverage_source.t1
        if len(self.store.slices):
            return self.store.t_origin, self.store.t_end
        return None

    @property
    def derived(self) -> DerivedIntervals | None:
        """The analysis' whole-card interval sets (for window statistics); None without them."""
        return self.analysis.derived if self.analysis is not None else None

    def lanes_with_slices(self) -> np.ndarray:
        """Bool per lane: does it hold any slice."""
        n = len(self.store.lanes)
        if self.store.index is not None:
            return self.store.index.lane_row_count[:n] > 0
        has = np.zeros(n, dtype=bool)
        has[np.unique(self.store.slices.lane)] = True
        return has

    @functools.cached_property
    def instants_by_lane(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(lane_ptr, ts, name, src) of the card's instants, per lane in time order."""
        return self.store.instants.by_lane(len(self.store.lanes))

    def lanes_with_instants(self) -> np.ndarray:
        """Bool per lane: does it hold any instant."""
        return np.diff(self.instants_by_lane[0]) > 0

    def instant_lane(self, k: int) -> int:
        """Lane of the instant at position ``k`` of ``instants_by_lane``."""
        return int(np.searchsorted(self.instants_by_lane[0], k, side="right")) - 1

    def instant_name(self, k: int) -> str:
        """Name of the instant at position ``k`` of ``instants_by_lane``."""
        name = int(self.instants_by_lane[2][k])
        return self.store.strings[name] if name >= 0 else "(unnamed)"

    def instant_near(self, lane: int, t: int, tolerance: int) -> int | None:
        """Position in ``instants_by_lane`` of the lane's instant nearest to ``t`` within
        ``tolerance`` ns, or None."""
        lane_ptr, ts = self.instants_by_lane[:2]
        a, b = int(lane_ptr[lane]), int(lane_ptr[lane + 1])
        k = a + int(np.searchsorted(ts[a:b], t))
        near = [i for i in (k - 1, k) if a <= i < b and abs(int(ts[i]) - t) <= tolerance]
        return min(near, key=lambda i: abs(int(ts[i]) - t)) if near else None


_SELECTS = {"idle_gaps": "idle_gaps"}  # derived lane key -> the interval set a click on it selects
_DERIVED_LANES = (
    ("compute", "Computing", [("compute", "compute")], f"{ASCEND_WORDING.compute_work} (union)"),
    ("communication", "Communication", [("communication", "communication")], "communication operators"),
    ("pure_communication", "Pure communication", [("pure_communication", "pure_communication")],
     "communication that no computation hides"),
    ("idle_gaps", "Idle AI Core gaps",
     [("idle_gap_communication", "idle_gap_communication"), ("idle_gap_free", "idle_gap_free")],
     "no compute for ≥ 1 µs: orange = waiting on communication, red = nothing runs"),
    ("free", "Free", [("free", "free")], "free: the card runs neither compute nor communication"),
)


def wording_of_derived(derived: Any) -> DeviceWording:
    """The words of the producer of the card whose analysis ``DerivedIntervals`` are ``derived`` (the Ascend
    ones when it does not say)."""
    return wording_of(derived.mode) if derived is not None else ASCEND_WORDING


def derived_lanes_of(derived: Any) -> list[DerivedLane]:
    """The derived lanes drawn under each card header, from analysis ``DerivedIntervals``, in the words
    of the card's producer (a GPU card's compute is its GPU kernels, its gaps idle GPU gaps)."""
    wording = wording_of_derived(derived)
    lanes = []
    for key, plain_title, parts, plain_tip in _DERIVED_LANES:
        title = reword(plain_title, wording)
        tip = reword(plain_tip.replace(ASCEND_WORDING.compute_work, wording.compute_work), wording)
        arrays = []
        for colour, attr in parts:
            iv = getattr(derived, attr, None)
            if iv is None:
                continue
            starts, ends = np.asarray(iv.starts, np.int64), np.asarray(iv.ends, np.int64)
            arrays.append((colour, starts, ends, prefix_lengths(starts, ends)))
        if arrays:
            whole = getattr(derived, _SELECTS.get(key, ""), None)
            select = None if whole is None else (np.asarray(whole.starts, np.int64), np.asarray(whole.ends, np.int64))
            lanes.append(DerivedLane(key, title, arrays, tip, select))
    return lanes


def step_bars_of(steps: list[Any]) -> StepBars | None:
    if not steps:
        return None

    def col(name: str) -> np.ndarray:
        return np.array([int(getattr(s, name)) for s in steps], dtype=np.int64)

    phases = np.array([bool(getattr(s, "has_phases", True)) for s in steps], dtype=bool)
    return StepBars(col("step"), col("start"), col("end"), col("fp"), col("bp"), phases)


def prepare_card(store: TraceStore, number: int, min_gap_ns: int = DEFAULT_MIN_GAP_NS,
                 analysis: CardAnalysis | None = None) -> CardView:
    """Colours, search table, derived lanes and step bars of one card, from its ``analysis`` (by
    default a new one, computed here: the slow part, run it in a worker)."""
    card = CardView(number=number, store=store, colours=name_colours(store.strings),
                    search=NameSearch(store.strings))
    if store.index is not None:
        ix = store.index
        card.row_summary = build_row_summary(ix.starts, ix.ends, ix.row_ptr)
    if analysis is None:
        analysis = analyse_card(store, VIEW_FIELDS, number, min_gap_ns, tolerant=True)
    card.analysis = analysis
    card.analysis_error = analysis.error  # a failing analysis must not stop the viewer
    _add_memory(store, analysis)
    if analysis.derived is not None:
        card.derived_lanes = derived_lanes_of(analysis.derived)
    card.steps = step_bars_of(analysis.steps or [])
    return card


def _add_memory(store: TraceStore, analysis: CardAnalysis) -> None:
    """The card's memory analysis (§11), read here off the GUI thread for its timeline lanes (it never
    raises: records that cannot be read are reported in it)."""
    if "memory" in analysis.done or analysis.steps is None:
        return
    if not analysis.error:  # through the analysis: kept with the card's cache entry, read back on a re-open
        ensure(store, analysis, ("memory",), tolerant=True)
        return
    from timelineview.analysis.memory.stage import card_memory

    analysis.set("memory", card_memory(store, analysis.steps))


def align_clocks(cards: list[CardView], offsets_ns: Sequence[int]) -> None:
    """Apply each card's estimated clock offset (``AnalysisSession.clock_offsets_ns``, by card number)."""
    for card in cards:
        card.estimated_offset_ns = card.offset_ns = int(offsets_ns[card.number])


def summary_card(number: int, pyramid, title: str, producer: str = "") -> CardView:
    """A card of a summary folder whose trace is not loaded: its pyramid's rows as coverage lanes
    (``PyramidSource``) under a card header titled ``title``, over an empty store, worded as its ``producer``'s
    (``SummaryCard.producer``)."""
    from timelineview.model.store.store_factory import store_from_columns
    from timelineview.model.store.trace_store import LaneTable, ProcessTable

    none64, none32 = np.zeros(0, np.int64), np.zeros(0, np.int32)
    store = store_from_columns(none64, none64, none32, none32, [],
                               ProcessTable(pid=[], name=[], label=[], sort_index=none64),
                               LaneTable(process=none32, tid=[], name=[], sort_index=none64),
                               card=title, rank=None, paths=[], generation="summary")
    return CardView(number=number, store=store, coverage_source=PyramidSource(pyramid), producer=producer,
                    colours=name_colours(store.strings), search=NameSearch(store.strings))  # a search finds nothing
