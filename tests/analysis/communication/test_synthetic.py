"""Generated clusters end to end (file -> loader -> communication analysis) against the generator's
ground truth: every operator's times, every link's totals, the planted slow link and nothing else,
and the slow card as the one the others wait for."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.communication import analyse_card, analyse_cluster
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster


def _run(tmp_path, cards: int, seed: int, layout: str = "msprof", tasks: int = 60, **kw):
    specs = cluster_specs(cards, seed=seed, steps=2, tasks_per_step=tasks, **kw)
    truths = generate_cluster(tmp_path, specs, layout, options=WriteOptions())
    stores = sorted(load(tmp_path), key=lambda s: s.rank)
    comms = [analyse_card(s) for s in stores]
    return truths, comms, analyse_cluster(comms)


@pytest.mark.parametrize(("layout", "pipeline"), [("msprof", False), ("msprof", True), ("msprof_per_iteration", False)])
def test_operators_and_links_match_the_ground_truth(tmp_path, layout: str, pipeline: bool) -> None:
    # with pipeline parallelism, send / receive run on their own group thread and plane
    truths, comms, _ = _run(tmp_path, 8, seed=4, layout=layout, slow_card=3, slow_link=(1, 5), slow_link_factor=2.0,
                            pipeline=pipeline)
    for truth, cc in zip(truths, comms, strict=True):
        ops = cc.ops
        got = [{"name": ops.name[i], "start_ns": int(ops.start[i]), "end_ns": int(ops.start[i] + ops.elapse[i]),
                "transit_ns": int(ops.transit[i]), "wait_ns": int(ops.wait[i]),
                "synchronization_ns": int(ops.synchronization[i]), "idle_ns": int(ops.idle[i])}
               for i in range(len(ops))]
        assert got == [{k: v for k, v in op.items() if k != "producer"} for op in truth.comm_ops]
        # the producer's figures (main plane) against the generator's own account of them
        main = ops.main
        theirs = [op["producer"] for op in truth.comm_ops]
        assert all(t is not None for t in theirs)  # one node: copy-engine transfers only
        got_main = [{"plane": int(main.plane[i]), "transit_ns": int(main.transit[i]), "wait_ns": int(main.wait[i]),
                     "synchronization_ns": int(main.synchronization[i]), "idle_ns": int(main.idle[i])}
                    for i in range(len(ops))]
        assert got_main == theirs
        links = cc.links
        got_links = [{"src": int(links.src[i]), "dst": int(links.dst[i]), "transport": links.transport[i],
                      "link_type": links.link_type[i], "bytes": int(links.bytes[i]),
                      "transit_ns": int(links.transit[i]), "count": int(links.count[i])} for i in range(len(links))]
        assert got_links == truth.links
        assert (cc.task_op >= 0).all()


@pytest.mark.parametrize(("seed", "cards", "link"), [(0, 8, (2, 3)), (1, 8, (6, 0)), (2, 16, (3, 11)),
                                                     (3, 16, (9, 10)), (4, 8, (7, 1))])
def test_the_planted_slow_link_is_found_and_no_other(tmp_path, seed: int, cards: int, link) -> None:
    truths, _, cluster = _run(tmp_path, cards, seed, slow_link=link, slow_link_factor=2.0)
    assert truths[link[0]].slow_link == f"{link[0]}-{link[1]}"
    assert cluster.slow_keys == [f"{link[0]}-{link[1]}"]
    transports = set(cluster.links.transport)
    assert transports == ({"SDMA", "RDMA"} if cards > 8 else {"SDMA"})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_healthy_cluster_has_no_slow_link(tmp_path, seed: int) -> None:
    _, _, cluster = _run(tmp_path, 16, seed)
    assert cluster.slow_keys == []
    assert len(cluster.links) > 16 * 7


@pytest.mark.parametrize(("seed", "slow"), [(0, 2), (5, 6)])
def test_the_slow_card_waits_least(tmp_path, seed: int, slow: int) -> None:
    # enough compute per step that 1.6 x of it outweighs the cards' data-wait jitter
    _, _, cluster = _run(tmp_path, 8, seed, tasks=400, slow_card=slow, slow_factor=1.6)
    waits = cluster.waits
    counts = waits.least_wait_counts()
    assert int(np.argmax(counts)) == slow
    assert counts[slow] >= 0.7 * len(waits)
    mean = waits.mean_wait()
    assert mean[slow] == mean.min()
    assert (np.delete(mean, slow) > 5 * mean[slow]).all()
