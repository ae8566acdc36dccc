"""Framework operators of two runs side by side (metrics.md §13): each ``aten::`` operator matched by
name and input shapes, with the device time of what it launched in both runs, over the matched cards.
An NPU run against a GPU run, or two runs of one device. No Qt.

Two captures of one model often differ in batch size, or one recorded no shapes: an operator whose
shapes find no partner is then paired by name alone, one row per name holding the rest of its calls in
both runs with each run's shapes, marked as matched by name (its shapes differ), rather than left as two
one-sided rows that compare nothing."""

from __future__ import annotations

from dataclasses import dataclass

from timelineview.analysis.diff.framework_operators import OperatorKey, OperatorTotal, framework_operators
from timelineview.analysis.session import AnalysisSession

NS_PER_US = 1000.0
PAIRED_BY_SHAPES = "name_and_shapes"
PAIRED_BY_NAME = "name"  # the shapes differ between the runs (or one run recorded none)
SHAPE_SETS_JOIN = " | "  # between the shape sets of a row matched by name ("[32, 9216], [9216, 4096] | …")
NO_SHAPES = "no shapes"  # a run that recorded none (Kineto without record_shapes)


def _shape_sets_text(shapes: str, compact: bool) -> str:
    if not shapes:
        return NO_SHAPES
    count = shapes.count(SHAPE_SETS_JOIN) + 1
    return f"{count} shapes" if compact and count > 1 else shapes


@dataclass(frozen=True)
class FrameworkOperatorDelta:
    """One framework operator (name, input shapes) in both runs: calls and device time (µs)."""

    name: str
    input_shapes: str
    base_device_us: float
    new_device_us: float
    base_count: int
    new_count: int
    new_input_shapes: str | None = None  # the new run's shapes when they differ from ``input_shapes``
    paired_by: str | None = PAIRED_BY_SHAPES  # None: in one run only

    @property
    def new_shapes(self) -> str:
        """The new run's input shapes (those of the base when the row matched by shapes)."""
        return self.input_shapes if self.new_input_shapes is None else self.new_input_shapes

    def shapes_text(self, compact: bool = False) -> str:
        """The shapes as a reader sees them: the matched shapes, or for a row matched by name both runs'
        (``by name: base ≠ new``; ``compact``: a run with several shape sets as their count)."""
        if self.paired_by != PAIRED_BY_NAME:
            return self.input_shapes
        # the mark first: a long list of shapes is elided at its end in a narrow column
        return f"by name: {_shape_sets_text(self.input_shapes, compact)} ≠ {_shape_sets_text(self.new_shapes, compact)}"

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
                "base_count": self.base_count, "new_count": self.new_count, "new_input_shapes": self.new_shapes,
                "paired_by": self.paired_by}


def _totals(session: AnalysisSession, numbers: list[int]) -> dict[OperatorKey, OperatorTotal]:
    out: dict[OperatorKey, OperatorTotal] = {}
    for i in numbers:
        for key, total in framework_operators(session.stores[i]).items():
            acc = out.setdefault(key, OperatorTotal())
            acc.count += total.count
            acc.device_ns += total.device_ns
    return out


@dataclass
class _Unpaired:
    """One run's calls of an operator name whose shapes found no partner in the other run."""

    shape_sets: list[str]
    total: OperatorTotal


def _unpaired_by_name(totals: dict[OperatorKey, OperatorTotal], other: dict[OperatorKey, OperatorTotal]
                      ) -> dict[str, _Unpaired]:
    """{name: its calls with device time whose (name, shapes) the other run lacks}, shape sets sorted."""
    out: dict[str, _Unpaired] = {}
    for key in sorted(totals, key=lambda k: (k.name, k.input_shapes)):
        t = totals[key]
        if key in other or not t.device_ns:
            continue
        acc = out.setdefault(key.name, _Unpaired([], OperatorTotal()))
        acc.shape_sets.append(key.input_shapes)
        acc.total.count += t.count
        acc.total.device_ns += t.device_ns
    return out


def _row(name: str, shapes: str, bt: OperatorTotal, nt: OperatorTotal, paired_by: str | None,
         new_shapes: str | None = None) -> FrameworkOperatorDelta:
    return FrameworkOperatorDelta(name, shapes, bt.device_ns / NS_PER_US, nt.device_ns / NS_PER_US, bt.count,
                                  nt.count, new_shapes, paired_by)


def framework_operator_deltas(base: AnalysisSession, new: AnalysisSession, base_cards: list[int],
                              new_cards: list[int]) -> list[FrameworkOperatorDelta]:
    """Operators that launched device work in either run: those with device time in both runs first (the
    pairs to compare: by name and shapes, or by name where the shapes found no partner), then those of one
    run only, each group by |Δ device time|, largest first."""
    b, n = _totals(base, base_cards), _totals(new, new_cards)
    none = OperatorTotal()
    rows = [_row(k.name, k.input_shapes, b[k], n[k], PAIRED_BY_SHAPES)
            for k in b.keys() & n.keys() if b[k].device_ns or n[k].device_ns]
    lone_b, lone_n = _unpaired_by_name(b, n), _unpaired_by_name(n, b)
    for name in lone_b.keys() & lone_n.keys():  # the rest of a name's calls, in both runs: paired by name
        ub, un = lone_b.pop(name), lone_n.pop(name)
        rows.append(_row(name, SHAPE_SETS_JOIN.join(ub.shape_sets), ub.total, un.total, PAIRED_BY_NAME,
                         SHAPE_SETS_JOIN.join(un.shape_sets)))
    rows += [_row(k.name, k.input_shapes, b[k], none, None) for k in b.keys() - n.keys() if k.name in lone_b
             and b[k].device_ns]
    rows += [_row(k.name, k.input_shapes, none, n[k], None) for k in n.keys() - b.keys() if k.name in lone_n
             and n[k].device_ns]
    rows.sort(key=lambda r: (not (r.base_device_us and r.new_device_us), -abs(r.delta_us), r.name, r.input_shapes))
    return rows
