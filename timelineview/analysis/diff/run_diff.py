"""Comparing two runs (metrics.md §9): what changed between a baseline and a new profile.

Cards are matched by rank (else in rank order, ``run_matching``). Per matched card the whole-card
metrics, the communication totals (§6), the memory peaks (§11) and the step phases (mean over steps)
of both runs and their difference; cards are listed by the change of their own compute and step interval
beyond the cards' common change, the cards whose change is a verdict (``findings.marks``) first: in a
lockstep job the step time changes alike on every card, so it cannot tell which card regressed. Per
operator name and per
communication operator (the collective without its call numbers) the totals over the matched cards,
and per link (``link_diff``) its bytes, transit and bandwidth, each ordered by the size of the
change. Differences in shape (a card or an operator in one run only, other step counts, a card that
could not be analysed) are reported, never raised. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.communication.names import operator_kind
from timelineview.analysis.diff.framework_diff import FrameworkOperatorDelta, framework_operator_deltas
from timelineview.analysis.diff.link_diff import LinkDelta, link_deltas
from timelineview.analysis.diff.op_type_diff import op_type_totals
from timelineview.analysis.diff.run_matching import BY_RANK, PAIRS_NAMED, match_cards, rank_renaming
from timelineview.analysis.diff.step_breakdown import StepBreakdownDiff, step_breakdown_diff
from timelineview.analysis.findings.marks import CardChange, card_changes, change_order
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.steps import PHASE_KEYS as STEP_PHASE_KEYS
from timelineview.analysis.steps import WHOLE_TRACE
from timelineview.analysis.window import METRIC_KEYS

NS_PER_US = 1000.0
STEP_TIME = "step_time_us"  # the mean of the steps' span_us
PHASE_KEYS = (STEP_TIME, *STEP_PHASE_KEYS)  # the step phases known here; others of the steps flow too
STEP_FRAME_KEYS = ("start_ns", "dur_us", "span_us")  # where a step is, not a phase
WHOLE_CARD_KEYS = tuple(k for k in METRIC_KEYS if k.endswith("_us"))  # over the whole run
COMM_KEYS = ("transit_us", "wait_us", "synchronization_us", "idle_us")  # a card's communication totals (§6)
# a card's device memory (§11): the allocated peak of the component the peak is judged on (PTA's when the
# capture has it) and the peak reserved memory of the card
MEMORY_KEYS = ("memory_peak_allocated_mb", "memory_peak_reserved_mb")
# a name's status (metrics.md §9): only in the new run, only in the base run, in both with another total or
# count, or in both with the same total (to the ns: totals are sums of integer ns) and the same count
ADDED, REMOVED, CHANGED, UNCHANGED = "added", "removed", "changed", "unchanged"
NAME_STATUSES = (ADDED, REMOVED, CHANGED, UNCHANGED)  # every status a name's row can have
DIFF_SCHEMA = "timelineview.diff/2"  # the document's format: raised when a key changes meaning or goes


@dataclass(frozen=True)
class NameDelta:
    """One operator (or collective) name: its totals in both runs over the matched cards."""

    name: str
    base_total_us: float
    new_total_us: float
    base_count: int
    new_count: int
    shapes: str | None = None  # the input shapes of an (op type, input shapes) row; None for any other row

    @property
    def delta_us(self) -> float:
        return self.new_total_us - self.base_total_us

    @property
    def status(self) -> str:
        if not self.base_count:
            return ADDED
        if not self.new_count:
            return REMOVED
        same = self.base_total_us == self.new_total_us and self.base_count == self.new_count
        return UNCHANGED if same else CHANGED

    @property
    def changed(self) -> bool:
        """Whether the name differs between the runs: added, removed or changed."""
        return self.status != UNCHANGED

    def document(self) -> dict:
        doc = {"name": self.name, "base_total_us": self.base_total_us, "new_total_us": self.new_total_us,
               "delta_us": self.delta_us, "base_count": self.base_count, "new_count": self.new_count,
               "status": self.status}
        if self.shapes is not None:
            doc["input_shapes"] = self.shapes
        return doc


@dataclass
class CardDelta:
    """One matched card: its metrics in both runs and new − base. ``card`` names the base card,
    ``new_card`` the new one (another name when the cards were matched in rank order)."""

    card: str
    base_number: int
    new_number: int
    base: dict
    new: dict
    new_card: str = ""

    def __post_init__(self) -> None:
        self.new_card = self.new_card or self.card

    @property
    def delta(self) -> dict:
        """new − base of every number of either run (None where a run lacks it)."""
        keys = [*self.base, *(k for k in self.new if k not in self.base)]
        return {k: (self.new[k] - self.base[k]) if _number(self.new.get(k)) and _number(self.base.get(k))
                else None for k in keys}

    @property
    def step_time_change_us(self) -> float | None:
        return self.delta.get(STEP_TIME)

    def document(self) -> dict:
        return {"card": self.card, "new_card": self.new_card, "base": self.base, "new": self.new,
                "delta": self.delta}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class RunDiff:
    """Everything that changed between two runs: cards by the change of their own compute and step
    interval (``changes``, one per card in the same order; verdicts first), operators, collectives and
    links by the size of their change, and differences in shape in words."""

    cards: list[CardDelta]
    operators: list[NameDelta]
    communication: list[NameDelta]
    notes: list[str] = field(default_factory=list)  # differences in shape, in words
    links: list[LinkDelta] = field(default_factory=list)
    phase_keys: tuple[str, ...] = PHASE_KEYS  # the step phases of the cards, in order
    matched_by: str = BY_RANK  # one of MATCHINGS (run_matching)
    changes: list[CardChange] = field(default_factory=list)  # per card of ``cards``: why it is where it is
    op_types: list[NameDelta] = field(default_factory=list)  # the compute operators by op type (§7.1)
    op_shapes: list[NameDelta] = field(default_factory=list)  # by (op type, input shapes): ``shapes`` set
    framework_operators: list[FrameworkOperatorDelta] = field(default_factory=list)  # §13, by |Δ device time|
    step_breakdown: StepBreakdownDiff | None = None  # §13: the mean step of both runs, as compare breaks it down

    def document(self) -> dict:
        """The ``diff --json`` document (metrics.md §9; its schema: ``timelineview/schemas/diff.schema.json``)."""
        doc = {"schema": DIFF_SCHEMA,
               "cards": [c.document() for c in self.cards], "operators": [o.document() for o in self.operators],
               "communication": [c.document() for c in self.communication],
               "links": [x.document() for x in self.links], "matched_by": self.matched_by,
               "notes": list(self.notes), "op_types": [o.document() for o in self.op_types],
               "op_shapes": [o.document() for o in self.op_shapes]}
        if self.framework_operators:  # runs of a framework (PyTorch) profiler: its operators side by side
            doc["framework_operators"] = [f.document() for f in self.framework_operators]
        if self.step_breakdown is not None:
            doc["step_breakdown"] = self.step_breakdown.document()
        return doc


def step_phase_keys(steps: list[dict]) -> list[str]:
    """The phases of ``steps`` to average: :data:`PHASE_KEYS`, then any other per-step time that is not a
    §2 window metric (so a phase added to the steps flows through)."""
    keys = list(PHASE_KEYS)
    for step in steps:
        for k in step:
            if k.endswith("_us") and k not in keys and k not in METRIC_KEYS and k not in STEP_FRAME_KEYS:
                keys.append(k)
    return keys


def _card_metrics(doc: dict) -> dict:
    """The step phases (mean over steps), the whole-card metrics and the communication totals of a §5
    card object (µs); the communication totals are None without plane tasks."""
    steps = doc.get("steps") or []

    def mean(key: str) -> float | None:
        values = [s[key] for s in steps if _number(s.get(key))]
        return float(np.mean(values)) if values else None

    out = {k: mean("span_us" if k == STEP_TIME else k) for k in step_phase_keys(steps)}
    out["steps"] = len(steps)
    out.update({k: doc.get(k) for k in WHOLE_CARD_KEYS})
    comm = doc.get("communication") or {}
    out.update({k: comm.get(k) for k in COMM_KEYS})
    out.update(_memory_peaks(doc.get("memory")))
    return out


def _memory_peaks(memory: dict | None) -> dict:
    """``MEMORY_KEYS`` of a card's §11 memory object (None without memory records)."""
    if not memory:
        return dict.fromkeys(MEMORY_KEYS)
    component = (memory.get("components") or {}).get(memory.get("live_at_peak_component")) or {}
    return {"memory_peak_allocated_mb": component.get("peak_allocated_mb"),
            "memory_peak_reserved_mb": memory.get("peak_reserved_mb")}


def _name_totals(session: AnalysisSession, numbers: list[int], communication: bool) -> dict[str, list[int]]:
    """{name: [total ns, count]} over the cards ``numbers``: compute operators (§7) or, with
    ``communication``, communication operators grouped by the collective they call."""
    out: dict[str, list[int]] = {}
    for i in numbers:
        a = session.analyse(i, ("classification",) if communication else ("operators",))
        if a.error:
            continue
        if not communication:
            table = a.operators.by_name
            for label, total, count in zip(table.labels, table.total_ns.tolist(), table.count.tolist(), strict=True):
                acc = out.setdefault(label, [0, 0])
                acc[0] += total
                acc[1] += count
            continue
        store = session.stores[i]
        mask = a.classification.communication
        names, durations = store.slices.name[mask], store.slices.dur[mask]
        if not len(names):
            continue
        totals = np.bincount(names + 1, weights=durations)
        counts = np.bincount(names + 1)
        for slot in np.flatnonzero(counts):
            label = operator_kind(store.strings[slot - 1]) if slot else "(unnamed)"
            acc = out.setdefault(label, [0, 0])
            acc[0] += int(totals[slot])
            acc[1] += int(counts[slot])
    return out


def _name_deltas(base: dict, new: dict) -> list[NameDelta]:
    """The rows of two {key: [total ns, count]}; a key is a name, or (op type, input shapes)."""
    rows = []
    for key in base.keys() | new.keys():
        b, n = base.get(key, [0, 0]), new.get(key, [0, 0])
        name, shapes = key if isinstance(key, tuple) else (key, None)
        rows.append(NameDelta(name, b[0] / NS_PER_US, n[0] / NS_PER_US, b[1], n[1], shapes))
    rows.sort(key=lambda r: (-abs(r.delta_us), r.name, r.shapes or ""))
    return rows


def _marks_no_steps(doc: dict) -> bool:
    """Whether the card's one step is the whole trace (no step markers)."""
    steps = doc.get("steps") or []
    return len(steps) == 1 and steps[0].get("window") == WHOLE_TRACE


def diff_runs(base: AnalysisSession, new: AnalysisSession) -> RunDiff:
    """What changed from ``base`` to ``new`` (metrics.md §9)."""
    match = match_cards(base, new)
    pairs, notes = match.pairs, list(match.notes)
    base_docs = {i: d for i, d in zip(base.order, base.card_documents, strict=True)}
    new_docs = {i: d for i, d in zip(new.order, new.card_documents, strict=True)}
    cards = []
    for b, n in pairs:
        bm, nm = _card_metrics(base_docs[b]), _card_metrics(new_docs[n])
        if bm["steps"] != nm["steps"]:
            notes.append(f"{base_docs[b]['card']}: {bm['steps']} step(s) in the base run, {nm['steps']} in the new")
        unmarked = [side for side, doc in (("base", base_docs[b]), ("new", new_docs[n])) if _marks_no_steps(doc)]
        if len(unmarked) == 1:  # its "step" holds its warm-up and set-up idle time too, the other's does not
            notes.append(f"{new_docs[n]['card'] if unmarked[0] == 'new' else base_docs[b]['card']}: the "
                         f"{unmarked[0]} run marks no steps; its step is its whole trace")
        cards.append(CardDelta(base_docs[b]["card"], b, n, bm, nm, new_docs[n]["card"]))
    steps = [d.get("steps") or [] for b, n in pairs for d in (base_docs[b], new_docs[n])]
    phases = tuple(dict.fromkeys(k for s in steps for k in step_phase_keys(s))) or PHASE_KEYS
    matched_base, matched_new = [b for b, _ in pairs], [n for _, n in pairs]
    operators = _name_deltas(_name_totals(base, matched_base, False), _name_totals(new, matched_new, False))
    communication = _name_deltas(_name_totals(base, matched_base, True), _name_totals(new, matched_new, True))
    renaming = rank_renaming([(base.stores[b].rank, new.stores[n].rank) for b, n in pairs])
    links = link_deltas(base.communication.links, new.communication.links, renaming)
    if renaming and links:
        renamed = [f"{b}→{n}" for b, n in sorted(renaming.items())]
        more = f", … ({len(renamed)} ranks)" if len(renamed) > PAIRS_NAMED else ""
        notes.append("links matched with the base run's ranks renamed as its cards were matched ("
                     + ", ".join(renamed[:PAIRS_NAMED]) + more + ")")
    changes = card_changes([base_docs[b] for b, _ in pairs], [new_docs[n] for _, n in pairs])
    order = change_order(changes)
    op_types = _name_deltas(op_type_totals(base, matched_base), op_type_totals(new, matched_new))
    op_shapes = _name_deltas(op_type_totals(base, matched_base, by_shape=True),
                             op_type_totals(new, matched_new, by_shape=True))
    framework = framework_operator_deltas(base, new, matched_base, matched_new)
    # the step as compare breaks it down, beside the framework operators: runs of a framework profiler
    breakdown = step_breakdown_diff(base, new, matched_base, matched_new) if framework else None
    return RunDiff([cards[i] for i in order], operators, communication, notes, links, phases, match.by,
                   [changes[i] for i in order], op_types, op_shapes, framework, breakdown)
