"""One card's analysis: every per-card result the CLI and the views show, each computed once.

A :class:`CardAnalysis` has one field per result; :data:`CARD_STAGES` names the function that fills
each field and the fields it needs. :func:`ensure` fills the fields asked for (and what they need)
from the card's store alone, so cards can be analysed one by one, on any worker. A per-card result of
rows is declared once (``analysis/card_results``): its stage here, its value in ``results``, its kept
encoding and its place in the card object are derived from the declaration. No Qt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from timelineview.analysis.card_results.declaration import CardResult, checked_rows
from timelineview.analysis.card_results.kept_columns import kept_form, rows_of
from timelineview.analysis.card_results.registry import CARD_RESULTS, placed_results, when_declared
from timelineview.analysis.card_results.section import place
from timelineview.analysis.classify import Classification, classify
from timelineview.analysis.cluster.clock_offsets import collective_ends
from timelineview.analysis.cluster.comparison import step_rows
from timelineview.analysis.communication import CardCommunication
from timelineview.analysis.communication import analyse_card as analyse_communication
from timelineview.analysis.communication.document import card_json as communication_json
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS, DerivedIntervals, derive
from timelineview.analysis.file_overlap import file_overlap
from timelineview.analysis.findings.signal_facts import signal_facts
from timelineview.analysis.kept.results import MISSING, KeptResults, SiblingFailed
from timelineview.analysis.kernels import KernelTable, card_kernels
from timelineview.analysis.kernels.declared_results import BY_OP_TYPE, STEP_FLOPS
from timelineview.analysis.kernels.document import kernels_header
from timelineview.analysis.memory.card import CardMemory
from timelineview.analysis.memory.stage import card_memory
from timelineview.analysis.operators import CardOperators, card_operators
from timelineview.analysis.pipeline import PipelineIntervals, derive_pipeline
from timelineview.analysis.steps import StepWindow, find_steps, step_metrics
from timelineview.analysis.window import card_metrics
from timelineview.model.store.trace_store import TraceStore


@dataclass
class CardAnalysis:
    """What the analysis found on one card (``number``: its position in the loaded list).

    A field holds its result once its name is in ``done``; ``error`` tells why the analysis of
    a card stopped (tolerant runs only), fields not computed by then stay None.
    """

    number: int
    card: str
    rank: int | None
    min_gap_ns: int = DEFAULT_MIN_GAP_NS
    classification: Classification | None = None  # compute / communication masks, lane roles (§1)
    derived: DerivedIntervals | None = None  # whole-card interval sets (§2)
    steps: list[StepWindow] | None = None  # step windows and phase points (§3)
    step_stats: list[dict] | None = None  # step_metrics of each step: the §5 "steps"
    pipeline: PipelineIntervals | None = None  # receive-only time; None without pipeline parallelism
    comparison_steps: list[dict] | None = None  # each step's row of the cluster comparison
    file_overlap: dict | None = None  # totals of the producer's overlap lanes, None without them
    operators: CardOperators | None = None  # operator tables by name and by task type (§7)
    kernels: KernelTable | None = None  # each compute task's op type, shapes, block dim, PMU figures (§7.1)
    communication: CardCommunication | None = None  # collectives and links (§6); None without plane tasks
    memory: CardMemory | None = None  # device memory (§11); None without memory records
    document: dict | None = None  # the §5 card object (``clock_offset_us`` 0 until a cluster sets it)
    finding_facts: dict | None = None  # what the finding rules read of the slices (``signal_facts``)
    collectives: tuple[list[str], np.ndarray] | None = None  # names and ends of its collectives (clock offsets)
    results: dict[str, list[dict]] = field(default_factory=dict)  # the rows of each declared result computed
    # the shared inputs of declared results made so far (never kept: made again when a result is computed again)
    inputs: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    done: set[str] = field(default_factory=set)
    error: str = ""
    kept: KeptResults | None = field(default=None, repr=False, compare=False)  # fields kept by an earlier open

    @classmethod
    def of(cls, store: TraceStore, number: int = 0, min_gap_ns: int = DEFAULT_MIN_GAP_NS) -> CardAnalysis:
        """An empty analysis of ``store``; a card from the card cache reads back what an earlier open kept."""
        return cls(number, store.card, store.rank, min_gap_ns, kept=KeptResults.of(store, min_gap_ns))

    def set(self, name: str, value: Any) -> None:
        """Record a result computed elsewhere (it is not computed again)."""
        if name in CARD_RESULTS:
            self.results[name] = value
        else:
            setattr(self, name, value)
        self.done.add(name)

    def __getattr__(self, name: str) -> Any:
        """A declared result reads as a field: its rows, None until computed."""
        if name in CARD_RESULTS:
            return self.__dict__.get("results", {}).get(name)
        raise AttributeError(name)


@dataclass(frozen=True)
class CardStage:
    """The function that fills one field of :class:`CardAnalysis` from the store and the fields it needs."""

    compute: Callable[[TraceStore, CardAnalysis], Any]
    needs: tuple[str, ...] = ()


def _card_path(store: TraceStore) -> str:
    """The card's file, or the folder holding all of its files (per-iteration exports)."""
    paths = [str(p) for p in store.paths]
    if not paths:
        return ""
    if len(paths) == 1:
        return paths[0]
    return os.path.commonpath([os.path.dirname(p) for p in paths])


def _document(store: TraceStore, a: CardAnalysis) -> dict:
    sl = store.slices
    lanes_used = int(np.count_nonzero(np.bincount(sl.lane, minlength=len(store.lanes)))) if len(sl) else 0
    doc = {"card": store.card, "rank": store.rank, "path": _card_path(store), "events": len(sl),
           "start_ns": int(store.t_origin), "lanes": lanes_used}
    doc.update(card_metrics(a.derived, a.min_gap_ns))
    doc["clock_offset_us"] = 0.0
    doc["steps"] = list(a.step_stats)
    doc["file_overlap"] = a.file_overlap
    doc["load"] = store.report.to_json()
    doc["communication"] = communication_json(a.communication)
    doc["operators"] = a.operators.document()
    doc["kernels"] = kernels_header(store, a.kernels, a.steps, a.results[BY_OP_TYPE.name],
                                    a.results[STEP_FLOPS.name])
    doc["memory"] = a.memory.document() if a.memory is not None else None
    for result in placed_results():  # a list of its own: the card object stays plain JSON when kept
        place(doc, result, list(a.results[result.name]))
    return doc


def _comparison_steps(store: TraceStore, a: CardAnalysis) -> list[dict]:
    return step_rows(a.derived, a.steps, a.step_stats, a.pipeline, a.results[STEP_FLOPS.name])


CARD_STAGES: dict[str, CardStage] = {
    "classification": CardStage(lambda store, a: classify(store)),
    "derived": CardStage(lambda store, a: derive(store, a.min_gap_ns, a.classification), ("classification",)),
    "steps": CardStage(lambda store, a: find_steps(store, a.derived), ("derived",)),
    "step_stats": CardStage(lambda store, a: [step_metrics(store, a.derived, s) for s in a.steps],
                            ("derived", "steps")),
    "pipeline": CardStage(lambda store, a: derive_pipeline(store, a.derived), ("derived",)),
    "comparison_steps": CardStage(_comparison_steps, ("derived", "steps", "step_stats", "pipeline",
                                                     STEP_FLOPS.name)),
    "file_overlap": CardStage(lambda store, a: file_overlap(store, a.classification), ("classification",)),
    "operators": CardStage(lambda store, a: card_operators(store, a.classification), ("classification",)),
    "kernels": CardStage(lambda store, a: card_kernels(store, a.classification), ("classification",)),
    "communication": CardStage(lambda store, a: analyse_communication(store, a.classification, a.steps),
                               ("classification", "steps")),
    "memory": CardStage(lambda store, a: card_memory(store, a.steps), ("steps",)),
    "finding_facts": CardStage(signal_facts, ("derived", "steps", "operators", "communication", "kernels")),
    "collectives": CardStage(lambda store, a: collective_ends(store, a.classification), ("classification",)),
}
DOCUMENT_NEEDS = ("derived", "step_stats", "file_overlap", "communication", "operators", "memory", "kernels")


def _document_stage() -> CardStage:
    """The card object's stage: it needs every result placed in it."""
    return CardStage(_document, (*DOCUMENT_NEEDS, *(r.name for r in placed_results())))


def _result_stage(result: CardResult) -> CardStage:
    def compute(store: TraceStore, a: CardAnalysis) -> list[dict]:
        for shared in result.inputs:  # made by the first result that reads it, here and not as a stage of its
            if shared.name not in a.inputs:  # own: a result read back from the kept pack makes none
                a.inputs[shared.name] = shared.compute(store, a)
        return checked_rows(result, result.compute(store, a))

    return CardStage(compute, result.stage_needs)


def _declared(result: CardResult) -> None:
    CARD_STAGES[result.name] = _result_stage(result)
    CARD_STAGES["document"] = _document_stage()


def _withdrawn(result: CardResult) -> None:
    CARD_STAGES.pop(result.name, None)
    CARD_STAGES["document"] = _document_stage()


when_declared(_declared, _withdrawn)


def ensure(store: TraceStore, analysis: CardAnalysis, fields: Iterable[str], tolerant: bool = False) -> CardAnalysis:
    """Compute the ``fields`` of ``analysis`` not computed yet, and the fields they need, once each.

    ``tolerant``: a failing stage does not raise; its message goes to ``analysis.error`` and nothing
    more is computed for that card (what was computed before stays).
    """
    try:
        for name in fields:
            if analysis.error:
                break
            try:
                _compute(store, analysis, name)
            except Exception:
                if not tolerant:
                    raise
    finally:
        if analysis.kept is not None:  # the fields computed here, written together (one write per card)
            analysis.kept.flush()
    return analysis


def _compute(store: TraceStore, analysis: CardAnalysis, name: str) -> None:
    if name in analysis.done:
        return
    stage = CARD_STAGES[name]
    for need in stage.needs:  # also before a kept field: what it needs is there, as when computed
        _compute(store, analysis, need)
    if _restore(store, analysis, name):
        return
    try:
        value = stage.compute(store, analysis)
    except Exception as exc:
        analysis.error = f"{name} unavailable: {exc}"
        raise
    analysis.set(name, value)
    if analysis.kept is not None:
        declared = CARD_RESULTS.get(name)
        if declared is not None:
            if declared.kept:
                analysis.kept.keep(name, kept_form(declared, value), {})  # its own columns, no other field
            return
        siblings = {id(getattr(analysis, other)): other for other in analysis.done if other != name}
        analysis.kept.keep(name, value, siblings)


def _restore(store: TraceStore, analysis: CardAnalysis, name: str) -> bool:
    """Whether field ``name`` was read back from what an earlier open kept."""
    if analysis.kept is None:
        return False
    declared = CARD_RESULTS.get(name)
    if declared is not None and not declared.kept:
        return False

    def sibling(other: str) -> Any:
        try:
            _compute(store, analysis, other)
        except Exception as exc:
            raise SiblingFailed(exc) from exc
        return getattr(analysis, other)

    try:
        value = analysis.kept.restore(name, sibling)
    except SiblingFailed as failed:
        raise failed.cause from None
    if value is MISSING:
        return False
    if declared is not None:
        try:
            value = rows_of(declared, value)
        except (ValueError, TypeError, KeyError):  # kept under another declaration: computed instead
            return False
    analysis.set(name, value)
    return True


def analyse_card(store: TraceStore, fields: Iterable[str], number: int = 0,
                 min_gap_ns: int = DEFAULT_MIN_GAP_NS, tolerant: bool = False) -> CardAnalysis:
    """A new analysis of one card with ``fields`` (and what they need) computed."""
    return ensure(store, CardAnalysis.of(store, number, min_gap_ns), fields, tolerant)
