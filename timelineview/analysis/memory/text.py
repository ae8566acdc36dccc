"""The memory part of the readable ``stats`` output: a few lines per card, then the imbalance."""

from __future__ import annotations

from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary import label
from timelineview.analysis.vocabulary.number_text import format_number

NS_PER_US = 1000.0


def _since(at_ns: int | None, start_ns: int) -> float | None:
    """An instant of the document (ns on the card's clock) as µs after the card's start, as a reader wants it."""
    return None if at_ns is None else (at_ns - start_ns) / NS_PER_US


def _when(at_us: float | None) -> str:
    return "held to the end" if at_us is None else f"released at {format_number(at_us)} µs"


def card_memory_text(card: str, memory: dict | None, start_ns: int = 0) -> str:
    """Peaks per component, the largest block and the blocks alive at the peak ("" without memory); times in
    µs after the card's start ``start_ns``."""
    if not memory:
        return ""
    lines = [f"Memory of {card} (MB; times in µs from the trace start)"]
    comps = memory.get("components") or {}
    if comps:
        rows = [[name, c["peak_allocated_mb"], _since(c.get("peak_allocated_at_ns"), start_ns), c["peak_reserved_mb"],
                 c["peak_active_mb"], c["unallocated_at_peak_mb"]] for name, c in comps.items()]
        lines.append(format_table(["component", *(label(k) for k in ("peak_allocated_mb", "peak_allocated_at_ns",
                                   "peak_reserved_mb", "peak_active_mb", "unallocated_at_peak_mb"))], rows))
    largest = memory.get("largest_allocations") or []
    if largest:
        a = largest[0]
        lines.append(f"largest block: {a['name']} {format_number(a['size_mb'])} MB, allocated at "
                     f"{format_number(_since(a.get('allocated_at_ns'), start_ns))} µs, "
                     f"{_when(_since(a.get('released_at_ns'), start_ns))}")
    if memory.get("live_at_peak_component"):
        lines.append(f"alive at {memory['live_at_peak_component']}'s allocated peak "
                     f"({format_number(_since(memory.get('live_at_peak_at_ns'), start_ns))} µs): "
                     f"{memory['live_at_peak_count']} blocks, "
                     f"{format_number(memory['live_at_peak_mb'])} MB")
    load = memory.get("load") or {}
    if load.get("dropped_rows"):
        reasons = ", ".join(f"{n} {r}" for r, n in load["dropped_by_reason"].items())
        lines.append(f"{load['dropped_rows']} memory row(s) dropped ({reasons})")
    lines.extend(load.get("warnings", [])[:5])
    return "\n".join(lines)


def memory_text(doc: dict) -> str:
    """Every card's memory lines and the cards flagged by ``memory_imbalance`` ("" when no card has memory)."""
    parts = [t for t in (card_memory_text(c["card"], c.get("memory"), c.get("start_ns") or 0)
                         for c in doc.get("cards", [])) if t]
    if not parts:
        return ""
    flags = doc.get("memory_imbalance") or []
    if flags:
        rows = [[f["card"], f["value"], f["median"], f["z"]] for f in flags]
        parts.append("Memory imbalance (peak reserved)\n" + format_table(["card", "MB", "median MB", "z"], rows))
    elif len(doc.get("cards", [])) >= 3:
        parts.append("Memory imbalance: none.")
    return "\n\n".join(parts)
