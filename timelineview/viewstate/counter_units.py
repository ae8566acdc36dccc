"""Units of counter series, read from what the producers write (no Qt).

msprof writes the unit as the args key (``{"MHz": 1800}``, ``{"KB": 2160232.0}``) or in parentheses
after it (``"Read(MB/s)"``, ``"Hit Rate(%)"``); some series carry it in their name instead
(``"HBM Read (GB/s)"``). Memory sizes are shown in bytes with a binary prefix.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_IN_PARENTHESES = re.compile(r"\(([^()]*)\)\s*$")
BYTES = "bytes"
_BYTE_UNITS = {"B": 1.0, "BYTE": 1.0, "BYTES": 1.0, "KB": 1024.0, "MB": 1024.0 ** 2, "GB": 1024.0 ** 3}
_FREQUENCY = {"HZ": "Hz", "KHZ": "kHz", "MHZ": "MHz", "GHZ": "GHz"}
_BINARY_PREFIXES = (("TiB", 1024.0 ** 4), ("GiB", 1024.0 ** 3), ("MiB", 1024.0 ** 2), ("KiB", 1024.0))


class CounterUnit(NamedTuple):
    """What a series' values mean: ``unit`` ("" when unknown) and the factor to that unit."""

    unit: str
    scale: float = 1.0


def _known(text: str) -> CounterUnit | None:
    t = text.strip()
    if "(" in t:
        return None  # "Read(MB/s)": the unit is the part in parentheses, tried next
    up = t.upper()
    if up in _BYTE_UNITS:
        return CounterUnit(BYTES, _BYTE_UNITS[up])
    if up in _FREQUENCY:
        return CounterUnit(_FREQUENCY[up])
    if t == "%" or "/S" in up or up in ("US", "MS", "NS", "W", "°C", "C"):
        return CounterUnit(t)
    return None


def counter_unit(name: str, key: str) -> CounterUnit:
    """The unit of a series named ``name`` whose values came under args key ``key``."""
    for text in (key, *(m.group(1) for m in (_IN_PARENTHESES.search(key), _IN_PARENTHESES.search(name)) if m)):
        unit = _known(text)
        if unit is not None:
            return unit
    return CounterUnit("")


def format_bytes(value: float) -> str:
    """'2.06 GiB', '512 B'."""
    for prefix, size in _BINARY_PREFIXES:
        if abs(value) >= size:
            return f"{value / size:.3g} {prefix}"
    return f"{value:.3g} B"


def format_compact(value: float) -> str:
    """Compact number: 1800, 12.3k, 3.4M, 0.25."""
    a = abs(value)
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e4, "k")):
        if a >= div:
            return f"{value / (div if suffix != 'k' else 1e3):.3g}{suffix}"
    return f"{value:.4g}"


def format_counter(value: float, unit: CounterUnit) -> str:
    """A value of a series in its unit: '1800 MHz', '2.06 GiB', '84 %', '12.5' (unknown unit)."""
    if unit.unit == BYTES:
        return format_bytes(value * unit.scale)
    text = format_compact(value * unit.scale)
    return f"{text} {unit.unit}" if unit.unit else text
