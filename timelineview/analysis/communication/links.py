"""Per link: bytes, transit time, count and bandwidth, per card and for a cluster; slow links (§6).

A link is (src rank, dst rank, transport type, link type) over the transfer tasks of a card; a transfer
that names no transport is in no link.
``bandwidth_gbps`` = bytes / transit ns (10⁹ bytes per second); a link whose transfers all take
0 ns has no bandwidth (NaN, null in JSON) and takes no part in the slow-link rule.

A cluster's links are the union of its cards' links. A link is reported by the card that sends
it (rank = src); when no card of the cluster has that rank (a capture of part of a job), it is
taken from the first card, in the order given, that reports it — never summed over cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.communication import names as nm
from timelineview.analysis.communication.plane_tasks import PlaneTasks
from timelineview.analysis.worst_of_many import median_and_sigma, z_threshold

MIN_LINKS_FOR_SLOW = 3  # links of one transport needed before any is called slow
SLOW_RELATIVE_DEFICIT = 0.20  # below median by more than 20 % of it (the practical size) ...
# ... and by more than z_N robust standard deviations (1.4826 × MAD), N the links of the transport:
# the slowest of many healthy links is judged by the correction for N (metrics.md §4, §6).


@dataclass
class Links:
    """One row per link, ordered by (src, dst, transport, link type)."""

    src: np.ndarray  # int64
    dst: np.ndarray  # int64
    transport: list[str]
    link_type: list[str]
    bytes: np.ndarray  # int64
    transit: np.ndarray  # int64 ns, Σ transfer durations
    count: np.ndarray  # int64 transfer tasks

    def __len__(self) -> int:
        return len(self.src)

    @property
    def bandwidth_gbps(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.transit > 0, self.bytes / np.maximum(self.transit, 1), np.nan)

    def key(self, i: int) -> str:
        """``"<src>-<dst>"``."""
        return f"{int(self.src[i])}-{int(self.dst[i])}"

    def take(self, rows: np.ndarray | list[int]) -> Links:
        rows = np.asarray(rows, dtype=np.int64)
        return Links(self.src[rows], self.dst[rows], [self.transport[i] for i in rows.tolist()],
                     [self.link_type[i] for i in rows.tolist()], self.bytes[rows], self.transit[rows],
                     self.count[rows])

    @staticmethod
    def empty() -> Links:
        z = np.zeros(0, dtype=np.int64)
        return Links(z, z, [], [], z, z, z)


def card_links(tasks: PlaneTasks) -> Links:
    """The links of one card's transfer tasks that name their transport (``names.NO_TRANSPORT``: none)."""
    named = np.array([t not in nm.NO_TRANSPORT for t in tasks.transports], dtype=bool)
    x = np.flatnonzero(tasks.transfer & named[tasks.transport]) if len(named) else np.zeros(0, np.int64)
    return _links(tasks, x, tasks.dst[x])


def local_tasks(tasks: PlaneTasks) -> np.ndarray:
    """bool per task: it moves bytes on the card itself (the producer's ``LOCAL`` link): a plane task
    with bytes from a real rank to itself, to no rank (an on-chip reduce), or over an ``ON_CHIP`` link."""
    on_chip = np.array([lt == nm.LINK_ON_CHIP for lt in tasks.link_types], dtype=bool)
    over_chip = on_chip[tasks.link_type] if len(tasks.link_types) else np.zeros(len(tasks), bool)
    real_src = (tasks.src >= 0) & (tasks.src < nm.INVALID_RANK)
    no_dst = (tasks.dst < 0) | (tasks.dst >= nm.INVALID_RANK)
    return (tasks.size > 0) & real_src & ~tasks.transfer & ((tasks.dst == tasks.src) | no_dst | over_chip)


def local_links(tasks: PlaneTasks) -> Links:
    """The producer's ``LOCAL`` links of one card: its local tasks (:func:`local_tasks`) per sending
    rank, keyed ``"<src>-<src>"`` with transport ``LOCAL`` and the tasks' link type."""
    x = np.flatnonzero(local_tasks(tasks))
    links = _links(tasks, x, tasks.src[x])
    links.transport = [nm.TRANSPORT_LOCAL] * len(links)
    return links


def _links(tasks: PlaneTasks, x: np.ndarray, dst: np.ndarray) -> Links:
    """The links of tasks ``x`` with their ``dst`` ranks given."""
    if not len(x):
        return Links.empty()
    src = tasks.src[x]
    tr, lt = tasks.transport[x].astype(np.int64), tasks.link_type[x].astype(np.int64)
    # Sort the text codes by their text so rows come out in a stable, readable order.
    tr_rank = np.argsort(np.argsort(tasks.transports, kind="stable"))
    lt_rank = np.argsort(np.argsort(tasks.link_types, kind="stable"))
    keys = np.stack((src, dst, tr_rank[tr], lt_rank[lt]), axis=1)
    uniq, first, inv = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    n = len(uniq)
    dur = tasks.end[x] - tasks.start[x]
    return Links(
        src=uniq[:, 0].copy(), dst=uniq[:, 1].copy(),
        transport=[tasks.transports[tr[i]] for i in first.tolist()],
        link_type=[tasks.link_types[lt[i]] for i in first.tolist()],
        bytes=np.bincount(inv, weights=tasks.size[x], minlength=n).round().astype(np.int64),
        transit=np.bincount(inv, weights=dur, minlength=n).round().astype(np.int64),
        count=np.bincount(inv, minlength=n).astype(np.int64),
    )


def cluster_links(per_card: list[Links], ranks: list[int | None]) -> Links:
    """Union of the cards' links, each from its sender (see the module docstring)."""
    chosen: dict[tuple, tuple[int, int, bool]] = {}  # key -> (card, row, from the sender)
    for c, (links, rank) in enumerate(zip(per_card, ranks, strict=True)):
        for i in range(len(links)):
            key = (int(links.src[i]), int(links.dst[i]), links.transport[i], links.link_type[i])
            sender = rank is not None and key[0] == rank
            if key not in chosen or (sender and not chosen[key][2]):
                chosen[key] = (c, i, sender)
    if not chosen:
        return Links.empty()
    rows = [per_card[c].take([i]) for _, (c, i, _) in sorted(chosen.items())]
    return Links(np.concatenate([r.src for r in rows]), np.concatenate([r.dst for r in rows]),
                 [r.transport[0] for r in rows], [r.link_type[0] for r in rows],
                 np.concatenate([r.bytes for r in rows]), np.concatenate([r.transit for r in rows]),
                 np.concatenate([r.count for r in rows]))


def slow_link_threshold(values: np.ndarray) -> float:
    """median − max(20 % of the median, z_N × 1.4826 × MAD) of the bandwidths of N links."""
    median, sigma = median_and_sigma(values)
    return median - max(SLOW_RELATIVE_DEFICIT * median, z_threshold(len(values)) * sigma)


def slow_links(links: Links) -> np.ndarray:
    """Per link: is its bandwidth below :func:`slow_link_threshold` of the links of its transport (at
    least 3 of them with a bandwidth)."""
    bw = links.bandwidth_gbps
    slow = np.zeros(len(links), dtype=bool)
    transports = np.array(links.transport, dtype=object)
    for t in sorted(set(links.transport)):
        rows = np.flatnonzero((transports == t) & np.isfinite(bw))
        if len(rows) < MIN_LINKS_FOR_SLOW:
            continue
        values = bw[rows]
        slow[rows[values < slow_link_threshold(values)]] = True
    return slow
