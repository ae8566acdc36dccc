"""The §6 fields of ``stats --json`` and their text tables."""

from __future__ import annotations

import math

import numpy as np

from timelineview.analysis.communication.bandwidth import OperatorBandwidth
from timelineview.analysis.communication.card import CardCommunication, ClusterCommunication
from timelineview.analysis.communication.links import Links
from timelineview.analysis.communication.main_plane import MainPlane, MainPlaneTotals
from timelineview.analysis.communication.operators import OpTotals
from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary import header, label, quantity

NS_PER_US = 1000.0
PRODUCER_FIGURES = ("transit_us", "wait_us", "synchronization_us", "idle_us")  # a card's headline, the producer's
LINK_FIGURES = ("bytes", "transit_us", "count", "bandwidth_gbps")  # a link's columns, as the vocabulary heads them


def _us(ns) -> float:
    return float(ns) / NS_PER_US


def _number(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def links_json(links: Links, slow: np.ndarray | None = None) -> list[dict]:
    """Link objects; with ``slow``, each carries ``"slow": true/false``."""
    bw = links.bandwidth_gbps
    out = []
    for i in range(len(links)):
        row = {"link": links.key(i), "src": int(links.src[i]), "dst": int(links.dst[i]),
               "transport": links.transport[i], "link_type": links.link_type[i],
               "bytes": int(links.bytes[i]), "transit_us": _us(links.transit[i]), "count": int(links.count[i]),
               "bandwidth_gbps": _number(bw[i])}
        if slow is not None:
            row["slow"] = bool(slow[i])
        out.append(row)
    return out


def _times(transit: int, wait: int, synchronization: int, idle: int) -> dict:
    """The four §6 times (µs) and the wait ratio of one set of figures."""
    both = wait + transit
    return {"transit_us": _us(transit), "wait_us": _us(wait), "synchronization_us": _us(synchronization),
            "idle_us": _us(idle), "wait_ratio": float(wait / both) if both else None}


NO_FIGURES = dict.fromkeys(("transit_us", "wait_us", "synchronization_us", "idle_us", "wait_ratio"))


def producer_times_json(main: MainPlane | None, i: int) -> dict:
    """Operator ``i``'s headline figures: the producer's, measured on its main plane ``plane`` (all
    null when it has none: no wait task, or a source that does not say)."""
    if main is None or main.plane[i] < 0:
        return {"plane": None, **NO_FIGURES}
    return {"plane": int(main.plane[i]),
            **_times(main.transit[i], main.wait[i], main.synchronization[i], main.idle[i])}


def producer_totals_json(t: MainPlaneTotals | None) -> dict:
    """A card's headline figures: the producer's summed over the ``measured_operators`` that have
    them (all null for none)."""
    if t is None or not t.count:
        return {"measured_operators": 0, **NO_FIGURES}
    return {"measured_operators": t.count, **_times(t.transit, t.wait, t.synchronization, t.idle)}


def all_planes_json(t: OpTotals) -> dict:
    """The ``"all_planes"`` object: the unions over every plane of §6 (µs) and their wait ratio."""
    return _times(t.transit, t.wait, t.synchronization, t.idle)


def bandwidth_json(bw: OperatorBandwidth | None, op: int) -> list[dict] | None:
    """Operator ``op``'s ``"bandwidth"``: the producer's figures per transport with its packet sizes
    (None: not known)."""
    if bw is None:
        return None
    rate, ratio = bw.bandwidth_gbps, bw.large_packet_ratio
    out = []
    for r in bw.rows_of(op).tolist():
        sizes = np.flatnonzero(bw.packets.row == r)
        out.append({"transport": bw.transport[r], "bytes": int(bw.bytes[r]), "transit_us": _us(bw.transit[r]),
                    "count": int(bw.count[r]), "bandwidth_gbps": _number(rate[r]),
                    "large_packet_ratio": float(ratio[r]),
                    "packets": [{"size_bytes": int(bw.packets.size[k]), "count": int(bw.packets.count[k]),
                                 "transit_us": _us(bw.packets.transit[k])} for k in sizes.tolist()]})
    return out


def card_json(cc: CardCommunication | None) -> dict | None:
    """A card's ``"communication"`` object (None when it has no plane tasks)."""
    if cc is None:
        return None
    ops = cc.ops
    comm_ops = [{"name": ops.name[i], "start_ns": int(ops.start[i]), "elapse_us": _us(ops.elapse[i]),
                 **producer_times_json(ops.main, i),
                 "all_planes": _times(ops.transit[i], ops.wait[i], ops.synchronization[i], ops.idle[i]),
                 "bandwidth": bandwidth_json(cc.bandwidth, i)}
                for i in range(len(ops))]
    return {"comm_ops": comm_ops, "links": links_json(cc.links),
            "local_links": links_json(cc.local_links) if cc.local_links is not None else None,
            **producer_totals_json(cc.main_totals), "all_planes": all_planes_json(cc.totals)}


def cluster_json(cluster: ClusterCommunication) -> dict:
    """The top-level ``"links"`` and ``"slow_links"``."""
    return {"links": links_json(cluster.links, cluster.slow), "slow_links": cluster.slow_keys}


def format_text(doc: dict) -> str:
    """Per card communication totals, the cluster's links and its slow links ("" without plane tasks)."""
    cards = [c for c in doc.get("cards", []) if c.get("communication")]
    links = doc.get("links") or []
    if not cards and not links:
        return ""
    parts = []
    if cards:
        rows = [[c["card"], len(c["communication"]["comm_ops"]), c["communication"].get("measured_operators"),
                 *(c["communication"].get(k) for k in PRODUCER_FIGURES), c["communication"]["all_planes"]["wait_us"]]
                for c in cards]
        note = "\n".join(f"{label(k)}: {quantity(k).tooltip}." for k in (*PRODUCER_FIGURES, "all_planes_wait_us"))
        columns = ("communication_operators", "measured_operators", *PRODUCER_FIGURES, "all_planes_wait_us")
        parts.append("Communication (µs)\n" + format_table(["card", *(label(k) for k in columns)], rows) + "\n" + note)
    if links:
        rows = [[x["link"], x["transport"], x["link_type"], x["bytes"], x["transit_us"], x["count"],
                 x["bandwidth_gbps"], "yes" if x.get("slow") else ""] for x in links]
        parts.append("Links\n" + format_table(
            ["link", "transport", "link type", *(header(k) for k in LINK_FIGURES), "slow"], rows))
    local = [[c["card"], x["link"], x["link_type"], x["bytes"], x["transit_us"], x["count"], x["bandwidth_gbps"]]
             for c in cards for x in c["communication"].get("local_links") or []]
    if local:
        parts.append("Local links (the producer's LOCAL: bytes moved on the card itself)\n" + format_table(
            ["card", "link", "link type", *(header(k) for k in LINK_FIGURES)], local))
    per_op = [[c["card"], op["name"], b["transport"], b["bytes"], b["transit_us"], b["count"], b["bandwidth_gbps"],
               b["large_packet_ratio"], len(b["packets"])]
              for c in cards for op in c["communication"]["comm_ops"] for b in op.get("bandwidth") or []]
    if per_op:
        parts.append("Bandwidth per operator and transport (the producer's; SDMA: its link types together)\n"
                     + format_table(["card", "operator", "transport", *(header(k) for k in LINK_FIGURES),
                                     label("large_packet_ratio"), "Transfer sizes"], per_op))
    slow = doc.get("slow_links") or []
    parts.append("Slow links: " + (", ".join(slow) if slow else "none."))
    return "\n\n".join(parts)
