"""The records of the findings: a ``Finding`` (a fired rule) and its ``Evidence`` (spans on a card), and how
one is made from a rule's advice template. Every findings module imports them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from timelineview.analysis.findings.rules import WHERE_TIME_GOES, Rule

NS_PER_US = 1000
# Who a finding without a card list is about: a step of the job, slow on most or all cards (metrics.md §4).
ALL_CARDS = "all cards"


def cards_words(cards: list[str], shown: int, more: str = " +{n}") -> str:
    """The cards a finding names, the first ``shown`` of them and how many more; ``ALL_CARDS`` for a finding
    about the whole job (no card list)."""
    if not cards:
        return ALL_CARDS
    return ", ".join(cards[:shown]) + (more.format(n=len(cards) - shown) if len(cards) > shown else "")


@dataclass(frozen=True)
class Evidence:
    """A span of one card that shows the finding: its instants in ns on the card's own clock, as its slices
    carry them (the one time base of every document, metrics.md §5)."""

    card: str
    start_ns: int
    end_ns: int
    lane: str | None = None  # "<process>/<lane>" of a trace lane, or the title of a derived lane
    name: str | None = None  # the operator, when the span is one of its slices

    @classmethod
    def from_document(cls, doc: dict, origin_ns: int) -> Evidence:
        """A span as ``document`` wrote it; one kept by an earlier version gave µs after the card's start
        ``origin_ns`` (``start_us``, ``end_us``), read as the same instants."""
        if "start_ns" in doc:
            start, end = int(doc["start_ns"]), int(doc["end_ns"])
        else:
            start, end = (origin_ns + int(round(float(doc[k]) * NS_PER_US)) for k in ("start_us", "end_us"))
        return cls(doc["card"], start, end, doc.get("lane"), doc.get("name"))

    def document(self) -> dict:
        doc = {"card": self.card, "start_ns": self.start_ns, "end_ns": self.end_ns}
        if self.lane is not None:
            doc["lane"] = self.lane
        if self.name is not None:
            doc["name"] = self.name
        return doc


@dataclass(frozen=True)
class FindingCost:
    """What a finding costs (metrics.md §12): the mean step time the what-if that answers it would save
    (None: no what-if answers it), that change, and in how many of the steps its card or link is on the
    critical path (None: it names neither)."""

    gain_us: float | None = None
    what_if: str = ""
    steps_on_path: int | None = None
    steps: int = 0

    def document(self) -> dict:
        return {"gain_us": round(self.gain_us, 3) if self.gain_us is not None else None,
                "what_if": self.what_if or None, "steps_on_critical_path": self.steps_on_path,
                "steps_priced": self.steps if self.steps_on_path is not None else None}

    def words(self) -> str:
        """'fixing it saves 0.12 ms a step (if …); on the critical path in 6 of 8 steps' ("" when nothing)."""
        parts = []
        if self.gain_us is not None:
            parts.append(f"fixing it saves {fmt_us(self.gain_us)} a step ({self.what_if})")
        if self.steps_on_path is not None:
            parts.append(f"on the critical path in {self.steps_on_path} of {self.steps} steps")
        return "; ".join(parts)


@dataclass(frozen=True)
class Finding:
    """One fired rule: where, how much against what, the evidence, and what to do."""

    rule: str
    severity: str
    method: str
    cards: list[str]
    step: int | None
    metric: str
    value: float
    reference: float
    advice: str
    evidence: list[Evidence] = field(default_factory=list)
    kind: str = WHERE_TIME_GOES  # the rule's kind: an anomaly, or where the time goes
    cost: FindingCost | None = None  # what it costs, once the critical path priced it

    @property
    def excess(self) -> float:
        """How far past its reference, relative (for ordering findings of one severity)."""
        return (self.value - self.reference) / abs(self.reference) if self.reference else float(self.value > 0)

    def document(self) -> dict:
        return {"rule": self.rule, "severity": self.severity, "cards": list(self.cards), "step": self.step,
                "metric": self.metric, "value": self.value, "reference": self.reference,
                "evidence": [e.document() for e in self.evidence], "advice": self.advice,
                "method": self.method, "kind": self.kind, **(self.cost or FindingCost()).document()}


DURATION, SIZE, BANDWIDTH, SHARE = "us", "mb", "gbps", "share"
MB_PER_GB = 1024.0  # the memory records' MB is 2^20 bytes, their GB 2^30


def metric_unit(metric: str) -> str:
    """The unit a finding's ``metric`` is in, named by its suffix: ``_us`` a duration (µs), ``_mb`` a size
    (MB), ``_gbps`` a bandwidth (GB/s); any other metric is a share (0.25 = 25 %)."""
    for unit in (DURATION, SIZE, BANDWIDTH):
        if metric.endswith("_" + unit):
            return unit
    return SHARE


def figure_text(metric: str, value: float) -> str:
    """One figure of a finding's ``metric`` for advice text, three significant digits in its unit."""
    unit = metric_unit(metric)
    if unit == DURATION:
        return fmt_us(value)
    if unit == SIZE:
        return fmt_mb(value)
    if unit == BANDWIDTH:
        return fmt_gbps(value)
    return f"{100 * value:.0f} %"


def fmt_mb(mb: float) -> str:
    """A size for advice text: MB, or GB from 1024 MB, with three significant digits."""
    return f"{mb / MB_PER_GB:.3g} GB" if mb >= MB_PER_GB else f"{mb:.3g} MB"


def fmt_gbps(value: float) -> str:
    """A bandwidth for advice text, three significant digits."""
    return f"{value:.3g} GB/s"


def fmt_us(us: float) -> str:
    """A duration for advice text: µs, ms or s with three significant digits."""
    if abs(us) >= 1e6:
        return f"{us / 1e6:.3g} s"
    if abs(us) >= 1e3:
        return f"{us / 1e3:.3g} ms"
    return f"{us:.3g} µs"


def make_finding(rule: Rule, cards: list[str], metric: str, amount: float, against: float,
          evidence: list[Evidence], step: int | None = None, **words: str) -> Finding:
    """A finding of ``rule``: ``metric`` is ``amount`` against the reference ``against``; ``words`` fill
    the advice template (``value`` and ``reference`` as the user reads them)."""
    words.setdefault("card", ", ".join(cards))
    words.setdefault("step", str(step))
    words.setdefault("how_sure", "")
    words.setdefault("where", "")
    text = rule.advice.format(**words)
    return Finding(rule.name, rule.severity, rule.method, cards, step, metric, float(amount), float(against),
                   text, evidence, rule.kind)
