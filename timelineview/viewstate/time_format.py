"""Readable times and axis ticks, from integer nanoseconds (no Qt)."""

from __future__ import annotations

UNITS = ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "µs"), (1, "ns"))
MAX_PLAIN_LABEL = 10  # longer tick labels switch the axis to "base + offset" labels


def unit_for(ns: int) -> tuple[int, str]:
    """Largest unit not bigger than ``|ns|`` (ns for 0)."""
    a = abs(int(ns))
    for div, name in UNITS:
        if a >= div:
            return div, name
    return 1, "ns"


def format_exact(ns: int, unit: tuple[int, str] | None = None) -> str:
    """All digits, no rounding: ``12.345678 ms``, ``850 ns``, ``-3 µs``."""
    ns = int(ns)
    div, name = unit or unit_for(ns)
    sign = "-" if ns < 0 else ""
    whole, frac = divmod(abs(ns), div)
    if div == 1 or frac == 0:
        return f"{sign}{whole:,} {name}".replace(",", " ")
    digits = len(str(div)) - 1
    text = f"{frac:0{digits}d}".rstrip("0")
    return f"{sign}{whole:,}.{text} {name}".replace(",", " ")


def format_duration(ns: float, significant: int = 4) -> str:
    """Short: ``1.235 ms``, ``12.5 µs``, ``850 ns`` (rounded to ``significant`` digits)."""
    ns = float(ns)
    div, name = unit_for(int(ns))
    value = ns / div
    if div == 1:
        return f"{ns:.0f} ns"
    decimals = max(0, significant - len(str(int(abs(value)))))
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{value:.0f}"
    return f"{text} {name}"


def format_raw_us(abs_ns: int) -> str:
    """An absolute time as the producer writes it: microseconds with 3 decimals."""
    abs_ns = int(abs_ns)
    sign = "-" if abs_ns < 0 else ""
    us, rest = divmod(abs(abs_ns), 1000)
    return f"{sign}{us}.{rest:03d}"


def tick_step(span_ns: int, width_px: int, min_px: float = 100.0) -> int:
    """Smallest 1/2/5 × 10^k ns step whose ticks are at least ``min_px`` apart."""
    if span_ns <= 0 or width_px <= 0:
        return 1
    target = span_ns * min_px / width_px
    k = 1
    while True:
        for m in (1, 2, 5):
            if m * k >= target:
                return m * k
        k *= 10


def ticks(t0: int, t1: int, width_px: int, min_px: float = 100.0) -> tuple[list[int], list[str], int]:
    """Tick times (multiples of a 1/2/5 step inside [t0, t1]), their labels, and a label base.

    ``base`` is 0 when plain labels are short enough. Deep zooms far from the origin would need
    long labels (``12.000000002 s``), so the axis then shows a round ``base`` once and labels the
    ticks as offsets from it (``+2 ns``).
    """
    step = tick_step(t1 - t0, width_px, min_px)
    first = -(-t0 // step) * step
    times = list(range(first, t1 + 1, step))
    div = unit_for(max(abs(t0), abs(t1), step))[0]
    labels = [tick_label(t, step, div) for t in times]
    base = 0
    if labels and max(len(x) for x in labels) > MAX_PLAIN_LABEL:
        big = step * 100  # offsets stay below ~100 steps: "+850 ns", not "+4.85 µs"
        base = (t0 // big) * big
        div = unit_for(step)[0]
        labels = ["+" + tick_label(t - base, step, div) for t in times]
    return times, labels, base


def tick_label(t: int, step: int, div: int) -> str:
    """``t`` in the unit ``div`` with just the decimals that ``step`` needs."""
    name = dict(UNITS)[div]
    decimals = 0
    while (step * 10**decimals) % div and decimals < 9:
        decimals += 1
    whole, frac = divmod(abs(t), div)
    sign = "-" if t < 0 else ""
    if decimals == 0:
        return f"{sign}{whole} {name}"
    digits = len(str(div)) - 1
    return f"{sign}{whole}.{f'{frac:0{digits}d}'[:decimals]} {name}"
