"""Per link, what changed between two runs (metrics.md §9), on hand-made links."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.communication.links import Links
from timelineview.analysis.diff.link_diff import link_deltas


def links(rows: list[tuple[int, int, str, int, int]]) -> Links:
    """Links from (src, dst, transport, bytes, transit ns) rows, one transfer each."""
    col = lambda i: np.array([r[i] for r in rows], dtype=np.int64)  # noqa: E731
    return Links(col(0), col(1), [r[2] for r in rows], ["HCCS"] * len(rows), col(3), col(4),
                 np.ones(len(rows), dtype=np.int64))


def test_links_ordered_by_the_cost_of_their_change_of_bandwidth():
    base = links([(0, 1, "SDMA", 1000, 1000), (0, 2, "SDMA", 1000, 1000)])
    # 0-1: a third of the bandwidth, fewer bytes, transit +0.5 µs; 0-2: the same bandwidth, twice the bytes,
    # transit +1 µs; 0-3: new
    new = links([(0, 1, "SDMA", 500, 1500), (0, 2, "SDMA", 2000, 2000), (0, 3, "RDMA", 100, 500)])
    got = link_deltas(base, new)
    assert [x.key for x in got] == ["0-1", "0-3", "0-2"]
    slow, added, more = got
    assert slow.bandwidth_cost_us == pytest.approx(1000 / (500 / 1500) / 1000 - 1.0)  # 2 µs
    assert slow.delta == pytest.approx({"bytes": -500, "transit_us": 0.5, "bandwidth_gbps": 1 / 3 - 1})
    assert more.bandwidth_cost_us == pytest.approx(0.0) and more.delta["transit_us"] == pytest.approx(1.0)
    assert added.base is None and added.bandwidth_cost_us is None
    assert added.delta == {"bytes": 100, "transit_us": 0.5, "bandwidth_gbps": None}
    assert added.document()["base"] is None and added.document()["new"]["bandwidth_gbps"] == pytest.approx(0.2)


def test_rows_of_one_pair_are_summed_and_renamed_ranks_meet():
    base = links([(0, 1, "SDMA", 1000, 1000), (0, 1, "RDMA", 3000, 1000), (0, 2, "SDMA", 10, 10)])
    new = links([(1, 0, "SDMA", 4000, 2000), (1, 2, "SDMA", 10, 10)])
    got = {x.key: x for x in link_deltas(base, new, {0: 1, 1: 0})}
    assert set(got) == {"0-1", "0-2"}
    assert (got["0-1"].new_key, got["0-2"].new_key) == ("1-0", "1-2")
    assert (got["0-1"].base.bytes, got["0-1"].base.transit_us, got["0-1"].base.count) == (4000, 2.0, 2)
    assert got["0-1"].base.transport == "SDMA/RDMA"
    assert got["0-1"].delta["bandwidth_gbps"] == pytest.approx(0.0)


def test_no_links_and_odd_ranks_do_not_raise():
    assert link_deltas(Links.empty(), Links.empty()) == []
    (x,) = link_deltas(links([(-1, 2, "SDMA", 5, 0)]), Links.empty())  # no transit: no bandwidth
    assert x.key == "-1-2" and x.base.bandwidth_gbps is None and x.new is None
