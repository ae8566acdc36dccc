"""Framework operators of two runs side by side (metrics.md §13): each ``aten::`` operator matched by
name and input shapes, with the device time of what it launched in both runs, over the matched cards.
An NPU run against a GPU run, or two runs of one device. No Qt."""

from __future__ import annotations

from dataclasses import dataclass

from timelineview.analysis.diff.framework_operators import OperatorKey, OperatorTotal, framework_operators
from timelineview.analysis.session import AnalysisSession

NS_PER_US = 1000.0


@dataclass(frozen=True)
class FrameworkOperatorDelta:
    """One framework operator (name, input shapes) in both runs: calls and device time (µs)."""

    name: str
    input_shapes: str
    base_device_us: float
    new_device_us: float
    base_count: int
    new_count: int

    @property
    def delta_us(self) -> float:
        return self.new_device_us - self.base_device_us

    @property
    def ratio(self) -> float | None:
        """new / base device time; None when the base run gave it none."""
        return self.new_device_us / self.base_device_us if self.base_device_us else None

    def document(self) -> dict:
        return {"name": self.name, "input_shapes": self.input_shapes, "base_device_us": self.base_device_us,
                "new_device_us": self.new_device_us, "delta_us": self.delta_us, "ratio": self.ratio,
                "base_count": self.base_count, "new_count": self.new_count}


def _totals(session: AnalysisSession, numbers: list[int]) -> dict[OperatorKey, OperatorTotal]:
    out: dict[OperatorKey, OperatorTotal] = {}
    for i in numbers:
        for key, total in framework_operators(session.stores[i]).items():
            acc = out.setdefault(key, OperatorTotal())
            acc.count += total.count
            acc.device_ns += total.device_ns
    return out


def framework_operator_deltas(base: AnalysisSession, new: AnalysisSession, base_cards: list[int],
                              new_cards: list[int]) -> list[FrameworkOperatorDelta]:
    """Operators that launched device work in either run: those with device time in both runs first (the
    pairs to compare), then those of one run only, each group by |Δ device time|, largest first."""
    b, n = _totals(base, base_cards), _totals(new, new_cards)
    none = OperatorTotal()
    rows = []
    for key in b.keys() | n.keys():
        bt, nt = b.get(key, none), n.get(key, none)
        if bt.device_ns or nt.device_ns:
            rows.append(FrameworkOperatorDelta(key.name, key.input_shapes, bt.device_ns / NS_PER_US,
                                               nt.device_ns / NS_PER_US, bt.count, nt.count))
    rows.sort(key=lambda r: (not (r.base_device_us and r.new_device_us), -abs(r.delta_us), r.name, r.input_shapes))
    return rows
