"""Slow links (§6), the cluster union of links and the collective waits, on hand-made numbers."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.communication.links import Links, cluster_links, slow_links
from timelineview.analysis.communication.operators import CommOps
from timelineview.analysis.communication.waits import collective_waits


def _links(rows: list[tuple]) -> Links:
    """rows: (src, dst, transport, link_type, bytes, transit_ns, count)."""
    cols = list(zip(*rows, strict=True)) if rows else [()] * 7
    return Links(np.array(cols[0], np.int64), np.array(cols[1], np.int64), list(cols[2]), list(cols[3]),
                 np.array(cols[4], np.int64), np.array(cols[5], np.int64), np.array(cols[6], np.int64))


def _reference_slow(bw_by_transport: dict[str, list[float]]) -> set[tuple[str, int]]:
    out = set()
    for t, values in bw_by_transport.items():
        if len(values) < 3:
            continue
        v = sorted(values)
        n = len(v)
        median = (v[n // 2] + v[(n - 1) // 2]) / 2
        dev = sorted(abs(x - median) for x in values)
        mad = (dev[n // 2] + dev[(n - 1) // 2]) / 2
        limit = median - max(0.2 * median, 3 * 1.4826 * mad)
        out |= {(t, i) for i, x in enumerate(values) if x < limit}
    return out


def test_slow_links_by_transport() -> None:
    sdma = [18.0, 17.5, 18.2, 17.9, 9.0, 18.1]  # one at half speed
    rdma = [11.0, 10.5, 8.0]  # 8.0 is 27 % below the median 10.5 > 20 %: slow
    local = [1.0, 0.1]  # fewer than 3 links: never slow
    rows = [(0, i + 1, "SDMA", "HCCS", int(b * 1000), 1000, 1) for i, b in enumerate(sdma)]
    rows += [(i, 8 + i, "RDMA", "ROCE", int(b * 1000), 1000, 1) for i, b in enumerate(rdma)]
    rows += [(i, 20 + i, "PCIE", "PCIE", int(b * 1000), 1000, 1) for i, b in enumerate(local)]
    slow = slow_links(_links(rows))
    expected = _reference_slow({"SDMA": sdma, "RDMA": rdma, "PCIE": local})
    got = set()
    for i in np.flatnonzero(slow).tolist():
        t = rows[i][2]
        got.add((t, [r for r in rows if r[2] == t].index(rows[i])))
    assert got == expected == {("SDMA", 4), ("RDMA", 2)}


def test_a_spread_out_transport_widens_the_threshold() -> None:
    # MAD dominates: 3 × 1.4826 × MAD exceeds 20 % of the median, so 12 is not slow.
    values = [20.0, 30.0, 12.0, 25.0, 35.0]
    rows = [(0, i + 1, "SDMA", "HCCS", int(b * 1000), 1000, 1) for i, b in enumerate(values)]
    assert not slow_links(_links(rows)).any()
    assert _reference_slow({"SDMA": values}) == set()


def test_links_without_transit_time_are_not_judged() -> None:
    rows = [(0, i + 1, "SDMA", "HCCS", 18000, 1000, 1) for i in range(3)] + [(0, 9, "SDMA", "HCCS", 5, 0, 1)]
    links = _links(rows)
    assert np.isnan(links.bandwidth_gbps[3])
    assert not slow_links(links).any()


def test_cluster_union_takes_each_link_from_its_sender() -> None:
    card0 = _links([(0, 1, "SDMA", "HCCS", 100, 10, 1), (1, 0, "SDMA", "HCCS", 7, 1, 1)])  # 1-0 seen by rank 0
    card1 = _links([(1, 0, "SDMA", "HCCS", 200, 20, 2)])
    outsider = _links([(5, 6, "RDMA", "ROCE", 50, 5, 1)])  # rank 5 is not in the cluster
    union = cluster_links([card0, card1, outsider, _links([(5, 6, "RDMA", "ROCE", 60, 6, 1)])], [0, 1, 2, 3])
    got = {union.key(i): (int(union.bytes[i]), int(union.count[i])) for i in range(len(union))}
    assert got == {"0-1": (100, 1), "1-0": (200, 2), "5-6": (50, 1)}  # never summed across cards


def _ops(names: list[str], waits: list[int]) -> CommOps:
    n = len(names)
    z = np.zeros(n, np.int64)
    return CommOps(np.arange(n), names, z, z, z, np.array(waits, np.int64), z, z, z, np.full(n, -1, np.int32))


def test_collective_waits_name_the_card_the_others_wait_for() -> None:
    names = ["hcom_allReduce__1_0_1", "hcom_send__2_1_1", "hcom_allReduce__1_0_1", "hcom_allGather__1_2_1"]
    us = 1000  # waits apart by less than 1 µs name nobody (see the test below)
    cards = [_ops(names, [500 * us, 1, 400 * us, 300 * us]), _ops(names, [20 * us, 900, 10 * us, 400 * us]),
             _ops(names[:3], [600 * us, 5, 500 * us])]
    waits = collective_waits(["rank 0", "rank 1", "rank 2"], cards)
    assert waits.name == ["hcom_allReduce__1_0_1", "hcom_allReduce__1_0_1", "hcom_allGather__1_2_1"]
    assert waits.occurrence.tolist() == [0, 1, 0]
    assert np.isnan(waits.wait[2, 2])  # rank 2 has no all-gather
    # Who the others wait for is a verdict (metrics.md §4): rank 1's lateness (the collectives' median wait
    # minus its own: 480 + 390 - 50 = 820 µs, against 50 and -200 µs) has a robust z of 820 - 50 over
    # 1.4826 x 250 = 2.1, below z_3 = 2.7 for three cards: so few cards name nobody from one step.
    assert waits.flags == []
    assert waits.waited_for.tolist() == [-1, -1, -1]
    assert waits.least_wait_counts().tolist() == [0, 0, 0]
    assert waits.mean_wait()[2] == 550.0 * us


def test_a_large_cluster_waits_for_its_planted_slow_card(tmp_path) -> None:
    """32 cards, one computing 1.6x as long: every collective in which the cards waited differently
    names that card as the one the others waited for, and no collective names another card."""
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load
    from timelineview.synthetic import cluster_specs, generate_cluster

    generate_cluster(tmp_path, cluster_specs(32, seed=2, steps=2, tasks_per_step=200, slow_card=20), "msprof")
    waits = AnalysisSession(load(tmp_path)).communication.waits
    named = waits.waited_for[waits.waited_for >= 0]
    assert len(named) >= 2 and set(named.tolist()) == {20}
