"""The ``stats`` documents of metrics.md §5 and their readable text form."""

from __future__ import annotations

from timelineview.analysis.card_analysis import CardAnalysis, ensure
from timelineview.analysis.communication.document import format_text as communication_text
from timelineview.analysis.critical_path.text import critical_path_text
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS, DerivedIntervals
from timelineview.analysis.findings.text import findings_text
from timelineview.analysis.kernels.text import kernels_text, pipeline_stages_text
from timelineview.analysis.memory.text import memory_text
from timelineview.analysis.operators import operators_text
from timelineview.analysis.session import STATS_FIELDS, AnalysisSession
from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary import declared, header, label, quantity
from timelineview.analysis.window import METRIC_KEYS
from timelineview.model.store.report import listed_warnings
from timelineview.model.store.trace_store import TraceStore
from timelineview.terminal_text import terminal_safe


def card_document(store: TraceStore, min_gap_ns: int = DEFAULT_MIN_GAP_NS,
                  derived: DerivedIntervals | None = None) -> dict:
    """The card object of metrics.md §5 (``clock_offset_us`` is 0 until a cluster sets it)."""
    analysis = CardAnalysis.of(store, min_gap_ns=min_gap_ns)
    if derived is not None:
        analysis.set("classification", derived.classification)
        analysis.set("derived", derived)
    return ensure(store, analysis, STATS_FIELDS).document


def stats_document(stores: list[TraceStore], min_gap_ns: int = DEFAULT_MIN_GAP_NS) -> dict:
    """{"cards": [card objects by rank], "slow_cards": [...]} with clock offsets filled in."""
    return AnalysisSession(stores, min_gap_ns).stats_document()


_CARD_ROWS = (*METRIC_KEYS, "clock_offset_us")
# the step table's quantities, headed by their labels (the table's title says µs); a key no step has is left out
_STEP_KEYS = ("dur_us", "compute_us", "communication_us", "overlapped_us", "pure_communication_us", "stage_us",
              "free_us", "window_free_us", "idle_gap_count", "idle_gap_total_us", "step_interval_us", "fp_bp_us",
              "tail_us")
# a step's window length is the step time diff, the window and the comparison show: one name for it
STEP_LABEL_KEY = {"dur_us": "step_time_us"}
# which Free is which (metrics.md §3): the note under the step table says it in the vocabulary's words
_FREE_KEYS = ("stage_us", "free_us", "window_free_us")


def step_free_note(keys: tuple[str, ...]) -> str:
    """What each Free (and the Stage) of the step table is, from the vocabulary, for the ``keys`` shown."""
    return "\n".join(f"{label(k)}: {quantity(k).tooltip}." for k in _FREE_KEYS if k in keys)


def card_starts(doc: dict) -> dict[str, int]:
    """Each card's ``start_ns`` of a stats document: what its instants are read after."""
    return {c["card"]: c["start_ns"] for c in doc.get("cards", []) if c.get("start_ns") is not None}


def format_text(doc: dict) -> str:
    """Readable tables: per card (metrics as rows), per step of each card, then slow cards."""
    cards = doc.get("cards", [])
    parts = []
    if cards:
        columns = ["metric", *(c["card"] for c in cards)]
        rows = [[label("events"), *(c["events"] for c in cards)], [label("lanes"), *(c["lanes"] for c in cards)]]
        rows += [[header(key), *(c.get(key) for c in cards)] for key in _CARD_ROWS]
        if any(c.get("file_overlap") for c in cards):  # the producer's overlap lanes (§1): said as theirs
            for key in ("compute_us", "communication_us", "pure_communication_us", "free_us"):
                rows.append([f"file: {header(key)}", *((c.get("file_overlap") or {}).get(key) for c in cards)])
        parts.append("Cards\n" + format_table(columns, rows))
        lines = ["Files"]
        for c in cards:
            lines.append(f"  {terminal_safe(c['card'])}: {terminal_safe(c['path'])}")
            load = c.get("load") or {}
            if load.get("dropped_events"):
                lines.append(f"    {load['dropped_events']} event(s) dropped")
            lines.extend(f"    {terminal_safe(w)}" for w in listed_warnings(load.get("warnings", []), c["path"]))
        parts.append("\n".join(lines))
    shown: tuple[str, ...] = ()
    for c in cards:
        steps = c.get("steps") or []
        shown = tuple(k for k in _STEP_KEYS if any(k in s for s in steps)) or shown
        # a trace without step markers: one window named "whole trace", phases "-" (never measured)
        rows = [[s.get("window") or s.get("step"), *(s.get(key) for key in shown)] for s in steps]
        parts.append(f"Steps of {terminal_safe(c['card'])} (µs)\n"
                     + format_table(["Step", *(label(STEP_LABEL_KEY.get(k, k)) for k in shown)], rows))
    if any(c.get("steps") for c in cards):
        parts.append(step_free_note(shown))
    slow = doc.get("slow_cards", [])
    if len(cards) < 3:
        parts.append("Slow cards: needs at least 3 cards.")
    elif not slow:
        parts.append("Slow cards: none.")
    else:
        rows = [[f["card"], label(f["metric"]) if declared(f["metric"]) else f["metric"],
                 f["value"], f["median"], f.get("z"), f.get("z_required"),
                 f"{f['steps_above']}/{f['steps']}" if "steps_above" in f else None] for f in slow]
        parts.append("Slow cards (medians over steps; flagged above median + max(5 %, 1 % of step, z_N MADs))\n"
                     + format_table(["card", "metric", "value µs", "median µs", "z", "z needed", "steps above"], rows))
    communication = communication_text(doc)  # §6: per card totals, the links and the slow links
    if communication:
        parts.append(communication)
    parts += [t for t in (operators_text(c["card"], c.get("operators")) for c in cards) if t]  # §7
    parts += [t for t in (kernels_text(doc), pipeline_stages_text(doc.get("pipeline_stages") or [])) if t]  # §7.1
    parts += [t for t in (memory_text(doc),) if t]  # §11
    parts += [t for t in (critical_path_text(doc),) if t]  # §12
    if "findings" in doc:  # §8, in words, first
        parts.insert(0, findings_text(doc["findings"], card_starts(doc)))
    if doc.get("notes"):  # empty captures, trace files left aside: before the numbers they qualify
        parts.insert(0, "Notes\n" + "\n".join(f"  {terminal_safe(n)}" for n in doc["notes"]))
    return terminal_safe("\n\n".join(parts) + "\n", lines=True)  # the sections of other modules too
