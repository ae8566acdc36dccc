"""The readable output of §7.1: each card's top op types with FLOPs and MFU, what carries each slow card's
excess, and the FLOPs of each pipeline stage."""

from __future__ import annotations

from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary import declared, header, label, quantity
from timelineview.analysis.vocabulary.flops_units import flops_unit

TEXT_ROWS = 10  # op types per card


def _percent(x: float | None) -> str | None:
    return None if x is None else f"{100 * x:.1f} %"


def kernels_text(doc: dict, rows: int = TEXT_ROWS) -> str:
    """Per card the top op types by total (source, MFU per step), then the slow cards' op types."""
    parts = []
    for card in doc.get("cards", []):
        kernels = card.get("kernels")
        if not kernels or not kernels.get("by_op_type"):
            continue
        table = [[r["op_type"], r["core_type"], r["count"], r["total_us"], _percent(r["share"]),
                  None if r["tflops"] is None else round(r["tflops"], 2), _percent(r["mfu"])]
                 for r in kernels["by_op_type"][:rows]]
        peak = (f"peak {kernels['peak_tflops']:g} TFLOPS, MFU {_percent(kernels['mfu'])}"
                if kernels.get("peak_tflops") else kernels.get("note") or "")
        parts.append(f"Top op types of {card['card']} (from {kernels['source']}; {peak})\n"
                     + format_table(["op type", "core", label("count"), header("total_us"), label("share"),
                                                   label("tflops"), label("mfu")], table))
    for slow in doc.get("slow_cards", []):
        excess = slow.get("by_op_type")
        if excess:
            table = [[r["op_type"], r["us_per_step"], r["median_us_per_step"], r["excess_us_per_step"],
                      _percent(r["share_of_excess"])] for r in excess]
            metric = quantity(slow["metric"]).label if declared(slow["metric"]) else slow["metric"]  # labels, not keys
            parts.append(f"What {slow['card']} spends more on ({metric}), per step\n"
                         + format_table(["op type", "µs", "others' median µs", "excess µs", "of the excess"],
                                        table))
    return "\n\n".join(parts)


def pipeline_stages_text(stages: list[dict]) -> str:
    """The table of ``pipeline_stages``: each stage card's FLOPs per step (TFLOP) and MFU ('' without one)."""
    if not stages:
        return ""
    size, unit = flops_unit(s["flops_per_step"] for s in stages)
    rows = [[s["card"], None if s["flops_per_step"] is None else round(s["flops_per_step"] / size, 3),
             _percent(s["mfu"])] for s in stages]
    return "FLOPs per pipeline stage (mean per step)\n" + format_table(["card", f"{unit} per step", "MFU"], rows)
