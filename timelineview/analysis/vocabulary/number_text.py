"""How a number reads, on every surface that prints one for a person (the text tables of ``stats``, ``diff`` and
``query``, and the window): digits grouped in threes with a space, a fixed number of decimals per unit. JSON,
CSV and SQL keep full numbers; only what a person reads goes through here."""

from __future__ import annotations

from numbers import Integral

from timelineview.analysis.vocabulary.quantity import (
    AS_METRIC,
    BYTES,
    COUNT,
    GIGABYTES_PER_SECOND,
    INDEX,
    MEGABYTES,
    MICROSECONDS,
    NANOSECONDS,
    RATIO,
    SHARE,
    TFLOPS,
    Z_SCORE,
)

GROUP = " "  # the thousands separator: a space (ISO 80000), never a comma or a point, so no locale misreads it
DEFAULT_DECIMALS = 3  # µs with three decimals is exact to the ns the times are computed in
# the same precision everywhere a unit is printed: whole units for what is counted, three decimals otherwise
DECIMALS = {MICROSECONDS: 3, NANOSECONDS: 0, MEGABYTES: 3, GIGABYTES_PER_SECOND: 3, BYTES: 0, COUNT: 0,
            INDEX: 0, RATIO: 3, SHARE: 3, AS_METRIC: 3, Z_SCORE: 1, TFLOPS: 3}
MISSING = "—"


def format_number(value: float | int | None, decimals: int = DEFAULT_DECIMALS, *, sign: bool = False) -> str:
    """``value`` with its digits grouped (``12 345.678``); integers without decimals; None as a dash. ``sign``:
    always show + or − (a change)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if value != value:  # NaN: a figure the input never gave
        return MISSING
    plus = "+" if sign else ""
    if isinstance(value, Integral):
        return f"{int(value):{plus},d}".replace(",", GROUP)
    text = f"{float(value):{plus},.{decimals}f}".replace(",", GROUP)
    if text.startswith("-") and not text.strip("-0. "):  # a tiny negative reads 0.000, never -0.000
        text = text[1:]
    return text


def format_in_unit(value: float | int | None, unit: str, *, sign: bool = False) -> str:
    """``format_number`` with the decimals of ``unit`` (a unit of the vocabulary)."""
    return format_number(value, DECIMALS.get(unit, DEFAULT_DECIMALS), sign=sign)
