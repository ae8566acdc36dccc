"""The unit FLOPs are shown in: the largest decimal prefix that leaves the largest value at 1 or more, so a
step's FLOPs read as "1.920 TFLOP" on a real model and "16.8 GFLOP" on a small one (the window, the findings and
the text tables alike)."""

from __future__ import annotations

from collections.abc import Iterable

FLOPS_UNITS = (("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6), ("FLOP", 1.0))


def flops_unit(values: Iterable[float | None]) -> tuple[float, str]:
    """(FLOPs per display unit, its name) for ``values`` (None and non-positive values ignored; TFLOP when
    there is none)."""
    largest = max((float(v) for v in values if v is not None and v > 0), default=None)
    if largest is None:
        return 1e12, "TFLOP"
    for name, size in FLOPS_UNITS:
        if largest >= size:
            return size, name
    return 1.0, "FLOP"


def flops_text(flops: float, unit: tuple[float, str] | None = None) -> str:
    """``flops`` in ``unit`` (default: the unit of that value alone), three decimals: "159.384 MFLOP"."""
    size, name = unit or flops_unit([flops])
    return f"{flops / size:.3f} {name}"
