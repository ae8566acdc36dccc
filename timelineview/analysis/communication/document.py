"""The §6 fields of ``stats --json`` and their text tables."""

from __future__ import annotations

import math

import numpy as np

from timelineview.analysis.communication.card import CardCommunication, ClusterCommunication
from timelineview.analysis.communication.links import Links
from timelineview.analysis.communication.main_plane import MainPlane, MainPlaneTotals
from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary import header

NS_PER_US = 1000.0


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


def main_plane_json(main: MainPlane | None, i: int) -> dict | None:
    """Operator ``i``'s ``"main_plane"`` object: the producer's figures (None without a main plane)."""
    if main is None or main.plane[i] < 0:
        return None
    return {"plane": int(main.plane[i]), "transit_us": _us(main.transit[i]), "wait_us": _us(main.wait[i]),
            "synchronization_us": _us(main.synchronization[i]), "idle_us": _us(main.idle[i])}


def main_totals_json(t: MainPlaneTotals | None) -> dict | None:
    """A card's ``"main_plane"`` object: the sums over its operators that have one (None for none)."""
    if t is None or not t.count:
        return None
    return {"count": t.count, "transit_us": _us(t.transit), "wait_us": _us(t.wait),
            "synchronization_us": _us(t.synchronization), "idle_us": _us(t.idle)}


def card_json(cc: CardCommunication | None) -> dict | None:
    """A card's ``"communication"`` object (None when it has no plane tasks)."""
    if cc is None:
        return None
    ops = cc.ops
    ratio = ops.wait_ratio
    comm_ops = [{"name": ops.name[i], "start_ns": int(ops.start[i]), "elapse_us": _us(ops.elapse[i]),
                 "transit_us": _us(ops.transit[i]), "wait_us": _us(ops.wait[i]),
                 "synchronization_us": _us(ops.synchronization[i]), "idle_us": _us(ops.idle[i]),
                 "wait_ratio": _number(ratio[i]), "main_plane": main_plane_json(ops.main, i)}
                for i in range(len(ops))]
    t = cc.totals
    return {"comm_ops": comm_ops, "links": links_json(cc.links), "transit_us": _us(t.transit),
            "wait_us": _us(t.wait), "synchronization_us": _us(t.synchronization), "idle_us": _us(t.idle),
            "main_plane": main_totals_json(cc.main_totals)}


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
        keys = ("transit_us", "wait_us", "synchronization_us", "idle_us")
        rows = [[c["card"], len(c["communication"]["comm_ops"]), *(c["communication"][k] for k in keys),
                 (c["communication"].get("main_plane") or {}).get("wait_us")]
                for c in cards]
        parts.append("Communication (µs)\n"
                     + format_table(["card", "operators", "transit", "wait", "sync", "idle", "main-plane wait"], rows)
                     + "\n(main-plane wait: the producer's own wait figure, summed on each operator's main plane)")
    if links:
        rows = [[x["link"], x["transport"], x["link_type"], x["bytes"], x["transit_us"], x["count"],
                 x["bandwidth_gbps"], "yes" if x.get("slow") else ""] for x in links]
        parts.append("Links\n" + format_table(
            ["link", "transport", "link type", *(header(k) for k in ("bytes", "transit_us", "count",
                                                                      "bandwidth_gbps")), "slow"], rows))
    slow = doc.get("slow_links") or []
    parts.append("Slow links: " + (", ".join(slow) if slow else "none."))
    return "\n\n".join(parts)
