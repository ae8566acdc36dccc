"""Step windows and their phases (metrics.md §3).

Sources, first found wins: Step Trace ``Iteration N`` events (msprof), the ``Steps`` lane of
MindSpore ≤ 2.2, framework ``ProfilerStep#N`` events, else one window named "whole trace"
without phases: nothing in such a trace says where a data wait or a backward pass ends, so its
``step_interval_us``, ``fp_bp_us`` and ``tail_us`` are None (its fp, bp are its start and end).

Phases when the producer gives no ``FP Start`` / ``BP End``:
* fp = start of the first compute task starting in [s, e) whose name is not a data-input
  operator (``GetNext``, ``InitData``);
* bp = the latest end, within (s, L], of a compute task, where L is the start of the last
  communication operator starting in [s, e), or e without communication in the step.
  A task is taken by the step in which it starts (fp) or ends (bp).
* A step with no compute has fp = bp = s (all of it is tail). fp and bp are clamped to
  [s, e] and bp ≥ fp, so the three phases always add up to the step.

Markers must tile time. When a marker starts before the previous one ends (MindSpore 2.2's GPU
``Steps`` lane writes every step from the same start, so step N covers steps 1..N), step N is the
window between the ends of steps N−1 and N; markers whose ends do not increase with the step
number neither tile nor nest and are kept as written, with a warning in the card's load report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

import numpy as np

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.window import framed_metrics
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers.kineto import STEP_MARKER
from timelineview.producers.mindspore import STEP_NAME_ITERATION
from timelineview.producers.msprof import BP_END_ARG, FP_START_ARG, ITERATION_EVENT_NAME

SOURCE_STEP_TRACE = "step_trace"
SOURCE_STEPS_LANE = "steps_lane"
SOURCE_PROFILER_STEP = "profiler_step"
SOURCE_WHOLE_CARD = "whole_card"
WHOLE_TRACE = "whole trace"  # the name of the one window of a trace without step markers
PHASE_KEYS = ("step_interval_us", "fp_bp_us", "tail_us")

_PROFILER_STEP = STEP_MARKER  # the PyTorch profiler's (Kineto and torch_npu alike)
_DATA_INPUT = ("getnext", "initdata")


@dataclass(frozen=True)
class StepWindow:
    """One step: [start, end) and the phase points fp, bp (ns)."""

    step: int
    start: int
    end: int
    fp: int
    bp: int
    source: str

    @property
    def has_phases(self) -> bool:
        """Whether fp and bp were measured (False for the whole-trace window of a trace without steps)."""
        return self.source != SOURCE_WHOLE_CARD

    @property
    def label(self) -> str:
        """'Step 3', or 'whole trace'."""
        return f"Step {self.step}" if self.has_phases else WHOLE_TRACE


def _names_matching(store: TraceStore, pattern: re.Pattern, candidates: np.ndarray | None) -> dict[int, int]:
    """{string id: step number} for names of ``candidates`` (None: all) slices matching ``pattern``."""
    ids = store.slices.name if candidates is None else store.slices.name[candidates]
    used = np.flatnonzero(np.bincount(ids[ids >= 0], minlength=len(store.strings))) if len(ids) else []
    found = {}
    for i in used:
        m = pattern.match(store.strings[i])
        if m:
            found[int(i)] = int(m.group(1))
    return found


def _slices_named(store: TraceStore, numbers: dict[int, int], candidates: np.ndarray | None) -> tuple:
    """Slices (from ``candidates``, None: all) whose name id is in ``numbers``, with their step numbers."""
    ids = store.slices.name if candidates is None else store.slices.name[candidates]
    wanted = np.zeros(len(store.strings) + 1, dtype=bool)  # last slot: id -1
    wanted[list(numbers)] = True
    hit = wanted[ids]
    idx = np.flatnonzero(hit) if candidates is None else candidates[hit]
    return idx, np.array([numbers[int(i)] for i in store.slices.name[idx]], dtype=np.int64)


def _first_per_step(idx: np.ndarray, numbers: np.ndarray, start: np.ndarray) -> tuple:
    """Keep one slice per step number (the earliest), ordered by start."""
    order = np.lexsort((start[idx], numbers))
    idx, numbers = idx[order], numbers[order]
    first = np.ones(len(idx), dtype=bool)
    first[1:] = numbers[1:] != numbers[:-1]
    idx, numbers = idx[first], numbers[first]
    by_time = np.argsort(start[idx], kind="stable")
    return idx[by_time], numbers[by_time]


def _step_trace(store: TraceStore, lanes: np.ndarray) -> tuple | None:
    sl = store.slices
    cand = np.flatnonzero(np.isin(sl.lane, lanes)) if len(lanes) else None
    numbers = _names_matching(store, ITERATION_EVENT_NAME, cand)
    if not numbers:
        return None
    idx, steps = _slices_named(store, numbers, cand)
    # Several models give several Iteration lanes: the one with most iterations is the training loop.
    lanes_hit, counts = np.unique(sl.lane[idx], return_counts=True)
    keep = sl.lane[idx] == lanes_hit[np.argmax(counts)]
    return _first_per_step(idx[keep], steps[keep], sl.start)


def _steps_lane(store: TraceStore, lanes: np.ndarray) -> tuple | None:
    if not len(lanes):
        return None
    sl = store.slices
    idx = np.flatnonzero(np.isin(sl.lane, lanes))
    if not len(idx):
        return None
    idx = idx[np.argsort(sl.start[idx], kind="stable")]
    steps = []
    for k, name_id in enumerate(sl.name[idx]):
        name = store.strings[name_id].strip() if name_id >= 0 else ""
        m = STEP_NAME_ITERATION.search(name)
        steps.append(int(name) if name.isdigit() else int(m.group(1)) if m else k + 1)
    return _first_per_step(idx, np.array(steps, dtype=np.int64), sl.start)


def _profiler_steps(store: TraceStore) -> tuple | None:
    numbers = _names_matching(store, _PROFILER_STEP, None)
    if not numbers:
        return None
    idx, steps = _slices_named(store, numbers, None)
    return _first_per_step(idx, steps, store.slices.start)


def _arg_ns(args: dict | None, key: str) -> int | None:
    """An absolute-time arg in µs (number or numeric text) as ns, or None.

    Goes through the decimal text: ``float * 1000`` would round epoch times (~1.7e18 ns) to
    256 ns. A float arg already carries only ~0.25 µs of an epoch time (its shortest repr is
    used); numeric text stays exact.
    """
    value = (args or {}).get(key)
    if value is None or isinstance(value, bool):
        return None
    try:
        return int((Decimal(str(value)) * 1000).to_integral_value(ROUND_HALF_EVEN))
    except (InvalidOperation, ValueError):
        return None


def _phase_points(store: TraceStore, derived: DerivedIntervals, s: np.ndarray,
                  e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fallback fp and bp of each step [s, e) from the compute and communication tasks."""
    cls = derived.classification
    sl = store.slices
    compute = cls.compute
    name_ids = sl.name[compute]
    data_input = np.zeros(len(store.strings) + 1, dtype=bool)
    used = np.flatnonzero(np.bincount(name_ids[name_ids >= 0], minlength=len(store.strings)))
    for i in used:
        low = store.strings[i].lower()
        data_input[i] = any(tag in low for tag in _DATA_INPUT)
    real = compute.copy()
    real[compute] = ~data_input[name_ids]
    # merge sorts: each lane's tasks come nearly in time order, a few long sorted runs
    fp_starts = np.sort(sl.start[real], kind="stable")
    compute_ends = np.sort(sl.end[compute], kind="stable")
    comm_starts = np.sort(sl.start[cls.communication], kind="stable")

    k = np.searchsorted(fp_starts, s, side="left")
    first = fp_starts[np.minimum(k, len(fp_starts) - 1)] if len(fp_starts) else s
    has_fp = (k < len(fp_starts)) & (first < e)
    fp = np.where(has_fp, first, s)

    j = np.searchsorted(comm_starts, e, side="left") - 1
    last_comm = comm_starts[np.maximum(j, 0)] if len(comm_starts) else e
    limit = np.where((j >= 0) & (last_comm >= s), last_comm, e)
    m = np.searchsorted(compute_ends, limit, side="right") - 1
    last_end = compute_ends[np.maximum(m, 0)] if len(compute_ends) else s
    bp = np.where((m >= 0) & (last_end > s), last_end, fp)
    bp = np.where(has_fp, bp, s)  # no compute: the whole step is tail
    return fp, bp


def find_steps(store: TraceStore, derived: DerivedIntervals) -> list[StepWindow]:
    """Step windows of the card by the first source found (metrics.md §3)."""
    cls = derived.classification
    sl = store.slices
    found = _step_trace(store, cls.step_trace_lanes)
    source = SOURCE_STEP_TRACE
    if found is None:
        found, source = _steps_lane(store, cls.steps_lanes), SOURCE_STEPS_LANE
    if found is None:
        found, source = _profiler_steps(store), SOURCE_PROFILER_STEP
    if found is None:
        s, e = (int(t) for t in derived.span)
        return [StepWindow(1, s, e, s, e, SOURCE_WHOLE_CARD)]  # no phases: fp, bp are the window's ends
    idx, numbers = found
    s, e = tiled_windows(store, sl.start[idx], sl.end[idx], numbers)
    fp, bp = _phase_points(store, derived, s, e)
    if source == SOURCE_STEP_TRACE:
        for k, args in enumerate(store.args_many(idx)):
            fp_arg, bp_arg = _arg_ns(args, FP_START_ARG), _arg_ns(args, BP_END_ARG)
            if fp_arg is not None:
                fp[k] = fp_arg
            if bp_arg is not None:
                bp[k] = bp_arg
    return [_clamped(int(n), int(a), int(b), int(f), int(p), source)
            for n, a, b, f, p in zip(numbers, s, e, fp, bp, strict=True)]


def tiled_windows(store: TraceStore, s: np.ndarray, e: np.ndarray, numbers: np.ndarray) -> tuple:
    """Step windows from markers ordered by start: a marker that starts before the previous one
    ends (nested or overlapping markers) starts at that end instead. Markers whose ends do not
    increase cannot be made to tile: they stay as written and the load report says so."""
    s, e = s.astype(np.int64), e.astype(np.int64)
    if len(s) < 2:
        return s, e
    prev_end = e[:-1]
    overlaps = s[1:] < prev_end
    if not overlaps.any():
        return s, e
    if (np.diff(e) <= 0).any():
        bad = int(np.flatnonzero(np.diff(e) <= 0)[0]) + 1
        store.report.warn(f"step markers do not tile time: step {int(numbers[bad])} ends at or before step "
                          f"{int(numbers[bad - 1])} ends; the markers are used as written")
        return s, e
    start = s.copy()
    start[1:] = np.maximum(s[1:], prev_end)
    k = int(np.flatnonzero(overlaps)[0]) + 1
    store.report.warn(f"step markers overlap (step {int(numbers[k])} starts before step {int(numbers[k - 1])} "
                      f"ends; {int(overlaps.sum())} of {len(s)} markers): each step is taken from the end of "
                      "the step before it to its own end")
    return start, e


def _clamped(step: int, s: int, e: int, fp: int, bp: int, source: str) -> StepWindow:
    fp = min(max(fp, s), e)
    bp = min(max(bp, fp), e)
    return StepWindow(step, s, e, fp, bp, source)


def step_metrics(store: TraceStore, derived: DerivedIntervals, step: StepWindow) -> dict:
    """The §2 metrics of one step in the producer's words (``window.framed_metrics``: ``free_us`` is
    its Free, ``window_free_us`` the free time of the whole step window), its ``stage_us``, and its phases
    (start_ns on the card's own clock, as its slices); the whole-trace window of a trace without steps has
    ``"window": "whole trace"`` and None phases."""
    out = {"step": step.step}
    if not step.has_phases:
        out["window"] = WHOLE_TRACE
    out.update(start_ns=int(step.start), dur_us=(step.end - step.start) / 1000.0)
    out.update(framed_metrics(derived, step.start, step.end))
    if not step.has_phases:
        out.update(dict.fromkeys(PHASE_KEYS))
        return out
    out["step_interval_us"] = (step.fp - step.start) / 1000.0
    out["fp_bp_us"] = (step.bp - step.fp) / 1000.0
    out["tail_us"] = (step.end - step.bp) / 1000.0
    return out
