"""Per link, what changed between two runs (metrics.md §9): bytes, transit and bandwidth of the
cluster's links (§6) in both runs, matched by ``"src-dst"``.

A link that became slow changes no operator's name or count, only its bandwidth (and the others'
wait); its transit time need not grow with it, since a producer (or the generator) may move fewer
bytes over every link of a collective that has to wait for the slow one. The links are therefore
ordered by the transit time their change of bandwidth costs at the base run's bytes
(``bandwidth_cost_us`` = base bytes ÷ new bandwidth − base transit): a link 3× slower costs twice its
base transit, a link that only carries more bytes costs nothing. Links in one run only, or without a
bandwidth, are ordered by their |Δ transit|. No Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from timelineview.analysis.communication.links import Links

NS_PER_US = 1000.0
LINK_KEYS = ("bytes", "transit_us", "bandwidth_gbps")


@dataclass(frozen=True)
class LinkTotals:
    """One ``"src-dst"`` link of a run: its transfer tasks summed over transports (§6)."""

    bytes: int
    transit_us: float
    count: int
    transport: str  # the transports of its rows, "/"-joined

    @property
    def bandwidth_gbps(self) -> float | None:
        """bytes / transit ns (10⁹ bytes per second); None when its transfers take no time."""
        return self.bytes / (self.transit_us * NS_PER_US) if self.transit_us > 0 else None

    def document(self) -> dict:
        return {"bytes": self.bytes, "transit_us": self.transit_us, "bandwidth_gbps": self.bandwidth_gbps,
                "count": self.count, "transport": self.transport}


@dataclass(frozen=True)
class LinkDelta:
    """One link in both runs (None in the run that lacks it); ``new_key`` differs from ``key`` when
    the cards were matched across ranks (see ``run_matching.rank_renaming``)."""

    key: str
    new_key: str
    base: LinkTotals | None
    new: LinkTotals | None

    @property
    def delta(self) -> dict:
        """new − base of :data:`LINK_KEYS` (a run without the link counts 0 bytes and 0 µs; no bandwidth
        change without a bandwidth in both)."""
        b = self.base.document() if self.base else {"bytes": 0, "transit_us": 0.0, "bandwidth_gbps": None}
        n = self.new.document() if self.new else {"bytes": 0, "transit_us": 0.0, "bandwidth_gbps": None}
        return {k: (n[k] - b[k]) if n[k] is not None and b[k] is not None else None for k in LINK_KEYS}

    @property
    def changed(self) -> bool:
        """Whether the link differs between the runs: in one run only, or other bytes, transit or count."""
        return self.base != self.new

    @property
    def bandwidth_cost_us(self) -> float | None:
        """Transit time the change of bandwidth alone adds at the base run's bytes (negative: saves); 0 for
        an unchanged link (not the float noise of bytes ÷ (bytes ÷ transit) − transit)."""
        if self.base is None or self.new is None or not self.new.bandwidth_gbps or self.base.bandwidth_gbps is None:
            return None
        if not self.changed:
            return 0.0
        return self.base.bytes / (self.new.bandwidth_gbps * NS_PER_US) - self.base.transit_us

    @property
    def order_key(self) -> float:
        cost = self.bandwidth_cost_us
        return abs(cost) if cost is not None else abs(self.delta["transit_us"] or 0.0)

    def document(self) -> dict:
        return {"key": self.key, "new_key": self.new_key, "base": self.base.document() if self.base else None,
                "new": self.new.document() if self.new else None,
                "delta": {**self.delta, "bandwidth_cost_us": self.bandwidth_cost_us}}


Pair = tuple[int, int]  # (src rank, dst rank)


def _key(pair: Pair) -> str:
    return f"{pair[0]}-{pair[1]}"


def link_totals(links: Links) -> dict[Pair, LinkTotals]:
    """{(src, dst): totals} of a cluster's links (rows of one pair with other transports summed)."""
    acc: dict[Pair, list] = {}
    for i in range(len(links)):
        row = acc.setdefault((int(links.src[i]), int(links.dst[i])), [0, 0, 0, []])
        row[0] += int(links.bytes[i])
        row[1] += int(links.transit[i])
        row[2] += int(links.count[i])
        if links.transport[i] not in row[3]:
            row[3].append(links.transport[i])
    return {k: LinkTotals(b, t / NS_PER_US, c, "/".join(tr)) for k, (b, t, c, tr) in acc.items()}


def link_deltas(base: Links, new: Links, renaming: dict[int, int] | None = None) -> list[LinkDelta]:
    """Every link of either run, the base run's ranks renamed by ``renaming`` (base rank -> new rank) to
    meet the new run's, ordered by the cost of their change (module docstring), largest first."""
    renaming = renaming or {}
    b, n = link_totals(base), link_totals(new)
    base_of = {(renaming.get(s, s), renaming.get(d, d)): (s, d) for s, d in b}  # new-run pair -> base pair
    rows = []
    for pair in sorted(base_of.keys() | n.keys()):
        own = base_of.get(pair)
        rows.append((pair, LinkDelta(_key(own or pair), _key(pair), b[own] if own else None, n.get(pair))))
    rows.sort(key=lambda r: (-r[1].order_key if math.isfinite(r[1].order_key) else 0.0, r[0]))
    return [row for _, row in rows]
