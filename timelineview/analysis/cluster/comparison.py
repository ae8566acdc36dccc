"""Cluster comparison: one row of indicators per card, for the mean over steps or one step.

Every number comes from the analysis functions (``step_metrics``, ``pipeline_metrics``,
``slow_cards``), so the table agrees with ``timelineview stats --json``. No Qt.

A step has three free times and each carries its own name (metrics.md §3): "Free" is ``free_us``,
the producer's Free (``step_trace_time.csv``): the idle time between the step's first and last task;
"Window free" is ``window_free_us``, the idle time of the whole step window, step interval included;
the stacked bar of a step splits it into parts that add up to the
step time: the step interval [s, fp), then compute, pure communication and the free time over
[fp, e): "free after the step interval", and the time over [fp, e) no file captured ("Not captured",
``uncaptured_us``: between the files of a per-iteration export; 0 on every other card).
A trace without step markers has one window, the whole trace, without phases: its phase columns
are None ("—") and its bar has no step interval.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.cluster.memory_peaks import PEAK_ALLOCATED, PEAK_RESERVED, MemoryPeaks
from timelineview.analysis.cluster.slow_cards import slow_cards
from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.pipeline import PipelineIntervals, pipeline_metrics
from timelineview.analysis.steps import StepWindow
from timelineview.analysis.vocabulary import label, quantity
from timelineview.analysis.window import window_metrics
from timelineview.model.store.trace_store import TraceStore

TIME, RATIO, COUNT, OFFSET, TEXT, MB = "time", "ratio", "count", "offset", "text", "mb"
FREE_AFTER_INTERVAL = "free_after_interval_us"  # the bar's free part: free time over [fp, e)
# the names of the three free times a step has (metrics.md §3): "Free" is only the producer's
FREE_STEP_WINDOW = label("window_free_us")
PRODUCER_FREE = label("free_us")
FREE_AFTER_INTERVAL_TITLE = label(FREE_AFTER_INTERVAL)
# time after the step interval that no file of the card covers (per-iteration exports, metrics.md §3): it is
# neither free nor busy, yet part of the step, so the bar shows it as its own part and adds up to the step time
UNCAPTURED_AFTER_INTERVAL = "uncaptured_us"
UNCAPTURED_TITLE = label(UNCAPTURED_AFTER_INTERVAL)


@dataclass(frozen=True)
class Column:
    """One table column: row key, header, how to show the value, header tooltip."""

    key: str
    title: str
    kind: str
    tooltip: str


def declared_column(key: str, kind: str, more: str = "") -> Column:
    """The column of a quantity of the vocabulary: its label as the title, its definition (and ``more``) as the
    tooltip, so the table says what ``stats`` and ``query`` say."""
    q = quantity(key)
    return Column(key, q.label, kind, f"{q.tooltip}; {more}" if more else q.tooltip)


COLUMNS = (
    Column("card", "Card", TEXT, "card (rank); a red mark: flagged slow, see its tooltip"),
    declared_column("step_time_us", TIME), declared_column("step_interval_us", TIME),
    declared_column("fp_bp_us", TIME), declared_column("tail_us", TIME), declared_column("compute_us", TIME),
    declared_column("communication_us", TIME), declared_column("pure_communication_us", TIME),
    declared_column("overlap_ratio", RATIO),
    declared_column("free_us", TIME, "as step_trace_time.csv gives it"),
    declared_column("window_free_us", TIME, "the chart's 'free after the step interval' leaves the step interval out"),
    declared_column("idle_gap_count", COUNT, "per step"), declared_column("idle_gap_total_us", TIME),
    declared_column("clock_offset_us", OFFSET),
)
PIPELINE_COLUMNS = tuple(declared_column(k, TIME) for k in ("pipeline_stage_us", "receive_only_us",
                                                            "other_pure_communication_us"))
FLOPS = "flops"  # a column kind: floating-point operations (the view picks the decimal prefix)
# shown when some card's compute tasks have FLOPs (shapes the formulas of metrics.md §7.1 count)
KERNEL_COLUMNS = (declared_column("flops", FLOPS, "per step; the header gives the unit (GFLOP = 10^9, TFLOP = 10^12)"),
                  declared_column("mfu", RATIO))
# shown when some card has memory records (metrics.md §11); the mean row shows the whole run's peaks
MEMORY_COLUMNS = (
    declared_column(PEAK_ALLOCATED, MB, "of the component the peak is judged on (PTA's when present, else "
                    "PTA+GE's, else GE's); a step: its peak during the step"),
    declared_column(PEAK_RESERVED, MB, "the card's (PTA+GE's, else PTA's, GE's, APP's); a red cell: flagged by "
                    "memory_imbalance over the whole run"),
)
BAR_PARTS = (
    ("step_interval_us", label("step_interval_us")), ("compute_us", label("compute_us")),
    ("pure_communication_us", label("pure_communication_us")), (FREE_AFTER_INTERVAL, FREE_AFTER_INTERVAL_TITLE),
    (UNCAPTURED_AFTER_INTERVAL, UNCAPTURED_TITLE),
)
_STEP_KEYS = ("step_time_us", "step_interval_us", "fp_bp_us", "tail_us", "compute_us", "communication_us",
              "overlapped_us", "pure_communication_us", "free_us", "stage_us", "window_free_us", "idle_gap_count",
              "idle_gap_total_us")
_PIPELINE_KEYS = ("pipeline_stage_us", "receive_only_us", "other_pure_communication_us")
# FLOPs and MFU per step (metrics.md §7.1): the heat map's FLOPs of each pipeline stage
KERNEL_KEYS = ("flops", "mfu")


@dataclass
class CardComparison:
    """One card's per-step indicators; ``number`` is the card's position in the loaded list."""

    number: int
    card: str
    rank: int | None
    clock_offset_us: float = 0.0
    steps: list[dict] = field(default_factory=list)  # step_metrics + bar + pipeline + window (card clock)
    error: str = ""
    memory: MemoryPeaks | None = None  # None: the card has no memory records

    @property
    def usable(self) -> bool:
        return not self.error and bool(self.steps)


def step_rows(derived: DerivedIntervals, steps: list[StepWindow], step_stats: list[dict],
              pipeline: PipelineIntervals | None, kernel_steps: list[dict] | None = None) -> list[dict]:
    """Indicators of each step of one card (its own clock), with bar parts and pipeline metrics, from
    its analysis: the steps, their ``step_metrics`` (not changed) and its pipeline intervals (None:
    no pipeline parallelism); ``kernel_steps``: each step's FLOPs and MFU (``step_kernel_rows``, §7.1),
    the same order as ``steps``."""
    out = []
    for k, (s, stats) in enumerate(zip(steps, step_stats, strict=True)):
        m = dict(stats)
        if kernel_steps is not None:
            m.update({key: kernel_steps[k][key] for key in KERNEL_KEYS})
        m["step_time_us"] = m["span_us"]
        after = window_metrics(derived, s.fp, s.end)  # a window without phases has fp = its start
        m["bar"] = {"step_interval_us": m["step_interval_us"] or 0.0, "compute_us": after["compute_us"],
                    "pure_communication_us": after["pure_communication_us"], FREE_AFTER_INTERVAL: after["free_us"],
                    UNCAPTURED_AFTER_INTERVAL: after["uncaptured_us"]}
        if pipeline is not None:
            m.update(pipeline_metrics(derived, pipeline, s.start, s.end))
        else:
            m.update(receive_only_us=0.0, other_pure_communication_us=m["pure_communication_us"],
                     pipeline_stage_us=m["step_time_us"])
        m["pipeline"] = pipeline is not None
        m["start_ns"], m["end_ns"] = int(s.start), int(s.end)
        out.append(m)
    return out


def comparison_error(store: TraceStore, derived: DerivedIntervals | None) -> str:
    """Why a card has no row values: its load error, or no slices or no analysis ('' when it has them)."""
    if store.report.error:
        return store.report.error
    if derived is None or not len(store.slices):
        return "no slices could be read"
    return ""


@dataclass
class ClusterComparison:
    """Every card of a cluster, ordered by rank (cards without a rank last, by name)."""

    cards: list[CardComparison]
    memory_flags: list[dict] = field(default_factory=list)  # the session's ``memory_imbalance``
    _rows: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # by step, once

    def __post_init__(self) -> None:
        self.cards.sort(key=lambda c: (c.rank is None, c.rank if c.rank is not None else 0, c.card))
        for c in self.cards:  # each step carries its memory peaks, so the heat map can show them per step
            if c.memory is not None:
                c.steps = [dict(s, **c.memory.per_step.get(int(s["step"]), _NO_MEMORY)) for s in c.steps]

    @property
    def memory(self) -> bool:
        """Whether any card has memory records."""
        return any(c.memory is not None for c in self.cards)

    @property
    def pipeline(self) -> bool:
        """Whether any card shows pipeline parallelism (receive operators)."""
        return any(s.get("pipeline") for c in self.cards for s in c.steps)

    @property
    def flops(self) -> bool:
        """Whether some card's steps count FLOPs (compute tasks with shapes the formulas know)."""
        return any(s.get("flops") for c in self.cards for s in c.steps)

    @property
    def columns(self) -> tuple[Column, ...]:
        return (COLUMNS + (PIPELINE_COLUMNS if self.pipeline else ()) + (KERNEL_COLUMNS if self.flops else ())
                + (MEMORY_COLUMNS if self.memory else ()))

    @property
    def whole_trace_only(self) -> bool:
        """Whether every card is one whole-trace window (a trace without step markers)."""
        steps = [s for c in self.cards for s in c.steps]
        return bool(steps) and all(s.get("window") for s in steps)

    def step_numbers(self) -> list[int]:
        """Step numbers present on any card, ascending."""
        return sorted({int(s["step"]) for c in self.cards for s in c.steps})

    def slow(self, step: int | None = None) -> list[dict]:
        """``slow_cards`` (metrics.md §4, as documents) over the usable cards: over all their steps, or
        the one ``step``. Only compute and step interval flag a card; the pipeline's stage times are
        judged by the ``pipeline_stage_imbalance`` finding."""
        docs = []
        for c in self.cards:
            chosen = c.steps if step is None else [s for s in c.steps if s["step"] == step]
            if c.usable and chosen:
                docs.append({"card": c.card, "steps": chosen})
        return [f.document() for f in slow_cards(docs)]

    def rows(self, step: int | None = None) -> list[dict]:
        """One row per card (by rank) with the indicators, bar parts, slow flags and drill window; computed
        once per step (4096 cards: 1.5 s), a new list each call (callers re-order it)."""
        if step not in self._rows:
            flags: dict[str, list[dict]] = {}
            for f in self.slow(step):
                flags.setdefault(f["card"], []).append(f)
            memory = {} if step is not None else {f["card"]: [f] for f in self.memory_flags}
            self._rows[step] = [_row(c, step, flags.get(c.card, []), memory.get(c.card, [])) for c in self.cards]
        return list(self._rows[step])


_NO_MEMORY = dict.fromkeys((PEAK_ALLOCATED, PEAK_RESERVED))


def _row(c: CardComparison, step: int | None, flags: list[dict], memory_flags: list[dict]) -> dict:
    row = {"number": c.number, "card": c.card, "rank": c.rank, "error": c.error, "step": step,
           "clock_offset_us": None if c.error else c.clock_offset_us, "slow": flags, "bar": None, "drill_step": None,
           "start_ns": None, "end_ns": None, "window": None, "memory_flags": memory_flags}
    chosen = c.steps if step is None else [s for s in c.steps if s["step"] == step]
    # a peak is not averaged: the mean row shows the whole run's, a step its own
    if step is None:
        row.update(c.memory.values() if c.memory is not None else _NO_MEMORY)
    else:
        row.update({k: chosen[0].get(k) if chosen else None for k in _NO_MEMORY})
    row["steps"] = len(chosen)
    if not chosen:
        row.update(dict.fromkeys(_STEP_KEYS + _PIPELINE_KEYS + KERNEL_KEYS + ("overlap_ratio",)))
        if not c.error and step is not None:
            row["error"] = f"no step {step} on this card"
        return row
    for key in _STEP_KEYS + _PIPELINE_KEYS + KERNEL_KEYS:
        row[key] = _mean(chosen, key)
    row["window"] = chosen[0].get("window") if len(chosen) == 1 else None
    comm = sum(s["communication_us"] for s in chosen)
    row["overlap_ratio"] = sum(s["overlapped_us"] for s in chosen) / comm if comm > 0 else None
    row["bar"] = {k: float(np.mean([s["bar"][k] for s in chosen])) for k, _ in BAR_PARTS}
    # Drill into the step that shows the card's problem best: the largest value of the metric
    # that flagged it (step time when nothing did).
    metric = flags[0]["metric"] if flags else "step_time_us"
    worst = max(chosen, key=lambda s: s[metric] or 0.0)
    row["drill_step"] = int(worst["step"])
    row["start_ns"], row["end_ns"] = worst["start_ns"], worst["end_ns"]
    return row


def _mean(steps: list[dict], key: str) -> float | None:
    """Mean of ``key`` over the steps that have it (None when none has: phases of a whole trace)."""
    values = [s[key] for s in steps if s.get(key) is not None]
    return float(np.mean(values)) if values else None


def group_rows(rows: list[dict], max_bars: int) -> list[dict]:
    """Chart bars for at most ``max_bars`` (about): each row's card alone while they fit; beyond,
    slow cards stay alone and runs of other consecutive rows (table order) become one bar each:
    the mean of their parts, with ``range_us`` = (shortest, longest) step of the group. Every bar
    lists its card numbers in ``members``; cards without data share one bar at the end."""
    if len(rows) <= max_bars:
        return [dict(r, members=[r["number"]]) for r in rows]
    empty = [r for r in rows if r["bar"] is None]
    # Slow cards get a bar each and a bar of the others holds at most ``size`` rows, so no size
    # below others / (bars left) fits: start there. When even one bar per run between slow cards
    # does not fit, no size does and the loop would end at one group of all (quadratic on the way).
    slow = sum(1 for r in rows if r["bar"] is not None and r["slow"])
    others = len(rows) - len(empty) - slow
    room = max(max_bars, 1) - bool(empty) - slow
    fits_at_all = len(_grouped(rows, len(rows))) + bool(empty) <= max(max_bars, 1)
    size = len(rows) - 1 if room < 1 or not fits_at_all else max(1, -(-others // room) - 1)
    while True:
        size += 1
        bars = _grouped(rows, size)
        if len(bars) + bool(empty) <= max(max_bars, 1) or size >= len(rows):
            break
    if empty:
        bars.append({**_group_base(empty), "bar": None, "error": "no data", "range_us": None})
    return bars


def _grouped(rows: list[dict], size: int) -> list[dict]:
    bars, run = [], []
    for r in rows:
        if r["bar"] is None:
            continue
        if r["slow"]:
            bars += [_group_bar(run)] if run else []
            bars.append(dict(r, members=[r["number"]]))
            run = []
            continue
        run.append(r)
        if len(run) == size:
            bars.append(_group_bar(run))
            run = []
    return bars + ([_group_bar(run)] if run else [])


MAX_LABEL_RUNS = 3  # a group's label lists at most this many runs of consecutive ranks ("ranks 0–7, 9, 12–15")


def rank_runs(ranks: list[int | None]) -> str | None:
    """``ranks`` as runs of consecutive ranks, ascending ("9, 28", "0–7, 9–15"); None when a card has no
    rank, a rank repeats, or they make more than MAX_LABEL_RUNS runs."""
    if None in ranks or len(set(ranks)) != len(ranks):
        return None
    runs: list[list[int]] = []
    for r in sorted(ranks):
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    if len(runs) > MAX_LABEL_RUNS:
        return None
    return ", ".join(str(u[0]) if len(u) == 1 else f"{u[0]}–{u[-1]}" for u in runs)


def group_label(ranks: list[int | None]) -> str:
    """The label of a bar of several cards that says exactly which ranks it holds: "ranks 9, 28",
    "ranks 0–7, 9–15" (see :func:`rank_runs`), else "<n> cards" (the bar's tooltip names every card)."""
    runs = rank_runs(ranks)
    return f"ranks {runs}" if runs is not None else f"{len(ranks)} cards"


def _group_base(run: list[dict]) -> dict:
    label = run[0]["card"] if len(run) == 1 else group_label([r["rank"] for r in run])
    return {"number": run[0]["number"], "members": [r["number"] for r in run], "card": label,
            "rank": run[0]["rank"], "step": run[0]["step"], "slow": [], "error": "",
            "member_cards": [r["card"] for r in run]}


def _group_bar(run: list[dict]) -> dict:
    if len(run) == 1:
        return dict(run[0], members=[run[0]["number"]])
    totals = [sum(r["bar"].values()) for r in run]
    return {**_group_base(run), "bar": {k: float(np.mean([r["bar"][k] for r in run])) for k, _ in BAR_PARTS},
            "range_us": (min(totals), max(totals))}


def sort_rows(rows: list[dict], key: str, descending: bool = False) -> list[dict]:
    """Rows ordered by ``key`` (stable); missing values always last. ``card`` sorts by rank."""
    if key == "card":
        def value(r):
            return (r["rank"] is None, r["rank"] if r["rank"] is not None else 0, r["card"])
        return sorted(rows, key=value, reverse=descending)
    present = [r for r in rows if r.get(key) is not None]
    missing = [r for r in rows if r.get(key) is None]
    return sorted(present, key=lambda r: r[key], reverse=descending) + missing


def _excess_text(value: float, median: float) -> str:
    """' (+56 %)': a flagged value's excess over the median ('' when the median is not positive)."""
    return f" (+{(value / median - 1) * 100:.0f} %)" if median > 0 else ""


def slow_text(flag: dict) -> str:
    """'compute 10.400 ms vs median 6.670 ms (+56 %), z 7.2 (needs 3.0), above in 5 of 5 steps'."""
    name = flag["metric"].removesuffix("_us").replace("_", " ")
    value, median = flag["value"], flag["median"]
    text = f"{name} {value / 1000:.3f} ms vs median {median / 1000:.3f} ms{_excess_text(value, median)}"
    if "steps_above" in flag:
        z = flag.get("z")
        needs = f" (needs {flag['z_required']:.1f})" if flag.get("z_required") is not None else ""
        text += (f", z {z:.1f}{needs}" if z is not None else ", the other cards all equal")
        text += f", above in {flag['steps_above']} of {flag['steps']} steps"
    return text


def memory_flag_text(flag: dict) -> str:
    """'peak reserved 3072.0 MB vs median 2048.0 MB (+50 %), z 9.1, flagged above 2150.4 MB (whole run)'."""
    value, median = flag["value"], flag["median"]
    z = flag.get("z")
    zs = f", z {z:.1f}" if z is not None else ", the other cards all equal"
    above = f", flagged above {flag['threshold']:.1f} MB" if flag.get("threshold") is not None else ""
    return f"peak reserved {value:.1f} MB vs median {median:.1f} MB{_excess_text(value, median)}{zs}{above} (whole run)"


def to_csv(rows: list[dict], columns: tuple[Column, ...]) -> str:
    """The table as CSV: times in µs, memory in MB, the step shown, what flagged each slow card and (with
    memory columns) each card ``memory_imbalance`` flagged."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    header = ["card", "rank", "step"]
    header += [f"{c.key}" for c in columns if c.key != "card"]
    memory = any(c.kind == MB for c in columns)
    w.writerow(header + ["slow_metrics"] + (["memory_imbalance"] if memory else []) + ["error"])
    for r in rows:
        line = [r["card"], "" if r["rank"] is None else r["rank"], "mean" if r["step"] is None else r["step"]]
        for c in columns:
            if c.key == "card":
                continue
            v = r.get(c.key)
            line.append("" if v is None else (f"{v:.6g}" if c.kind == RATIO else
                                              str(int(round(v))) if c.kind == COUNT and r["step"] is not None
                                              else f"{v:.3f}"))
        line.append(";".join(f["metric"] for f in r["slow"]))
        if memory:
            line.append(";".join(f["metric"] for f in r.get("memory_flags", [])))
        line.append(r["error"])
        w.writerow(line)
    return out.getvalue()
