"""One quantity of the vocabulary: the key every table spells it with, the label every screen and text
table shows, its unit, its definition, and the producer's name when it is the producer's own figure."""

from __future__ import annotations

from dataclasses import dataclass

# units; a key says its unit in its suffix (``_us``, ``_ns``, ``_mb``, ``_gbps``), the unitless ones none
MICROSECONDS, NANOSECONDS, MEGABYTES, GIGABYTES_PER_SECOND = "µs", "ns", "MB", "GB/s"
BYTES, COUNT, RATIO, SHARE = "bytes", "count", "ratio", "share"
INDEX = "index"  # a number that names (a plane), neither counted nor measured
CATEGORY = "category"  # one word out of a fixed few (a name's status in a diff), no number
AS_METRIC = "the metric's unit"  # a verdict's figures: in the unit of the metric judged (µs for times)
Z_SCORE = "z-score"  # robust standard deviations (1.4826 × MAD)
TFLOPS = "TFLOPS"  # 10¹² floating-point operations per second
UNIT_SUFFIX = {MICROSECONDS: "_us", NANOSECONDS: "_ns", MEGABYTES: "_mb", GIGABYTES_PER_SECOND: "_gbps"}


def key_unit(key: str) -> str | None:
    """The unit a key says: one of its ``_``-separated parts is the unit's (``_us``: ``compute_us``,
    ``step_us_now``, ``us_per_step``); None when none is."""
    parts = key.split("_")
    return next((unit for unit, suffix in UNIT_SUFFIX.items() if suffix[1:] in parts), None)


@dataclass(frozen=True)
class Quantity:
    """A quantity, declared once (``vocabulary.declared``) and rendered from there into JSON keys, SQL columns,
    text-table headers, the window's headers and tooltips and the docs.

    ``producer`` is the name the producer's own tables give this very figure (MindStudio Insight,
    msprof-analyze, ``step_trace_time.csv``, ``CommAnalyzerTime``); empty when the producer has no such
    figure, and then no surface may use a producer's word for it."""

    key: str
    label: str
    unit: str
    definition: str
    producer: str = ""
    section: str = ""  # where docs/metrics.md defines it

    def __post_init__(self) -> None:
        if key_unit(self.key) != (self.unit if self.unit in UNIT_SUFFIX else None):
            raise ValueError(f"{self.key}: a key names its unit ({UNIT_SUFFIX.get(self.unit, 'none')}), and only its "
                             f"unit ({self.unit})")

    @property
    def header(self) -> str:
        """The label with its unit, as a text table's or the window's column header shows it."""
        return f"{self.label} ({self.unit})" if self.unit in UNIT_SUFFIX else self.label

    @property
    def tooltip(self) -> str:
        """The definition, with the producer's name when the figure is the producer's."""
        return f"{self.definition} (the producer's {self.producer})" if self.producer else self.definition
