"""A finding's value against its reference as the Diagnosis tab shows it, in the unit of its metric (no Qt).

A finding's ``metric`` names its unit (``metric_unit``): a duration, a size (MB = 2^20 bytes, as the memory
records count), a bandwidth or a share.
"""

from __future__ import annotations

from timelineview.analysis.findings.records import BANDWIDTH, DURATION, MB_PER_GB, SIZE, metric_unit
from timelineview.viewstate.time_format import format_duration

NS_PER_US = 1000.0
SIGNIFICANT = 3  # digits a value keeps: enough to compare it with its reference


def duration_text(us: float) -> str:
    """``6.04 s``, ``18.1 ms``, ``850 ns``: the largest unit not bigger than the value, never an exponent."""
    return format_duration(us * NS_PER_US, SIGNIFICANT)


def size_text(mb: float) -> str:
    """``49.1 MB``, ``1.16 GB``, ``7.31 MB``: three significant digits, never an exponent."""
    if abs(mb) >= MB_PER_GB:
        return f"{_significant(mb / MB_PER_GB)} GB"
    return f"{_significant(mb)} MB"


def share_text(share: float) -> str:
    """``41 %`` (a share of 0.41); below 1 % one more decimal, so a small share does not read 0 %."""
    pct = 100.0 * share
    return f"{pct:.1f} %" if 0 < abs(pct) < 1 else f"{pct:.0f} %"


def _significant(value: float) -> str:
    """``value`` with ``SIGNIFICANT`` significant digits in plain notation (``6040``, ``49.1``, ``0.731``)."""
    if value == 0:
        return "0"
    whole = len(str(int(abs(value)))) if abs(value) >= 1 else 0
    decimals = max(0, SIGNIFICANT - whole)
    if abs(value) < 1:  # 0.0731: the zeros after the point are not significant
        lead = 0
        v = abs(value)
        while v < 0.1 and lead < 9:
            v *= 10
            lead += 1
        decimals = SIGNIFICANT + lead
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def metric_text(metric: str, value: float) -> str:
    """One figure of ``metric`` in its unit."""
    unit = metric_unit(metric)
    if unit == DURATION:
        return duration_text(value)
    if unit == SIZE:
        return size_text(value)
    if unit == BANDWIDTH:
        return f"{_significant(value)} GB/s"
    return share_text(value)


def finding_value_text(metric: str, value: float, reference: float) -> str:
    """``49.1 MB against 7.31 MB``: the finding's value and its reference, both in the metric's unit."""
    return f"{metric_text(metric, value)} against {metric_text(metric, reference)}"
