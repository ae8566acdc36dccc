"""Rules that pick the worst of many, corrected for how many (metrics.md §4, §6, §8): the widened z, slow
links, and the order of findings (anomalies first, then where the time goes). Slow steps: test_step_verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.communication.links import Links, slow_links
from timelineview.analysis.findings.evaluate import Finding, order_findings
from timelineview.analysis.findings.rules import ANOMALY, METHOD_MEMORY, RULES, WHERE_TIME_GOES
from timelineview.analysis.findings.text import findings_text
from timelineview.analysis.worst_of_many import required_z, widened, z_threshold


def test_widened_z_tends_to_z_n_with_many_values():
    z = z_threshold(64)
    assert widened(z, 1e6) == pytest.approx(z, rel=1e-5)
    assert z < widened(z, 100) < widened(z, 10)
    assert required_z(64) == pytest.approx(widened(z, 0.37 * 63))

# ------------------------------------------------------------------------------------------ slow links
def links_with(bandwidths: list[float], transport: str = "RDMA") -> Links:
    n = len(bandwidths)
    transit = np.full(n, 1_000_000, dtype=np.int64)  # 1 ms each: bytes = bandwidth (GB/s) x 10^6
    return Links(np.arange(n, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64), [transport] * n, ["ROCE"] * n,
                 (np.asarray(bandwidths) * 1_000_000).round().astype(np.int64), transit,
                 np.ones(n, dtype=np.int64))

def test_slow_link_threshold_uses_z_n_for_the_links_of_a_transport():
    # 64 links: median 20 GB/s, MAD 1 -> spread 1.4826; z_64 = 3.60 -> 20 - 5.34 = 14.66 (the 20 %
    # floor, 16, is nearer the median). The former 3 MADs gave 20 - 4.45 = 15.55.
    healthy = [19.0] * 16 + [20.0] * 30 + [21.0] * 17
    bandwidth = healthy + [15.0]
    assert np.median(bandwidth) == 20.0 and np.median(np.abs(np.array(bandwidth) - 20.0)) == 1.0
    assert not slow_links(links_with(bandwidth)).any()  # 15.0 was slow under 3 MADs
    slow = slow_links(links_with(healthy + [14.0]))
    assert np.flatnonzero(slow).tolist() == [63]

def test_slow_link_keeps_the_practical_floor_of_20_percent():
    # MAD 0: a link 10 % below its peers is not slow, one 25 % below is
    assert not slow_links(links_with([20.0] * 9 + [18.0])).any()
    assert np.flatnonzero(slow_links(links_with([20.0] * 9 + [15.0]))).tolist() == [9]

# ------------------------------------------------------------------------------------------ ordering
def finding(rule: str, severity: str, kind: str, value: float = 2.0, reference: float = 1.0) -> Finding:
    return Finding(rule, severity, "method", ["rank 0"], None, "m", value, reference, "advice", [], kind)

def test_every_rule_says_whether_it_is_an_anomaly():
    kinds = {r.name: r.kind for r in RULES}
    assert {n for n, k in kinds.items() if k == ANOMALY} == {
        "slow_data", "slow_compute", "slow_link", "slow_step", "pipeline_stage_imbalance", "flops_imbalance",
        "memory_imbalance", "slow_operator"}
    assert set(kinds.values()) == {ANOMALY, WHERE_TIME_GOES}
    for r in RULES:
        if r.kind == WHERE_TIME_GOES:  # a share of the job's time, or of a card's memory (§11)
            assert r.advice.startswith("Where the memory goes" if r.method == METHOD_MEMORY else "Where the time goes")

def test_anomalies_come_first_then_severity_then_excess():
    found = order_findings([
        finding("data_bound", "high", WHERE_TIME_GOES, 3.0),
        finding("slow_step", "low", ANOMALY),
        finding("small_operators", "low", WHERE_TIME_GOES),
        finding("slow_compute", "high", ANOMALY, 1.5),
        finding("slow_data", "high", ANOMALY, 4.0),
        finding("pure_communication_high", "medium", WHERE_TIME_GOES),
    ])
    assert [f.rule for f in found] == ["slow_data", "slow_compute", "slow_step", "data_bound",
                                       "pure_communication_high", "small_operators"]
    assert found[0].document()["kind"] == ANOMALY

def test_the_text_heads_anomalies_and_where_the_time_goes():
    found = order_findings([finding("data_bound", "high", WHERE_TIME_GOES), finding("slow_step", "low", ANOMALY)])
    text = findings_text([f.document() for f in found])
    assert text.index("Anomalies") < text.index("slow_step") < text.index("Where the time goes") \
        < text.index("data_bound")


@pytest.mark.parametrize(("population", "successes", "draws", "k"), [(12, 4, 3, 2), (10, 3, 5, 1), (9, 9, 3, 3),
                                                                      (24, 3, 3, 3), (8, 2, 4, 3)])
def test_hypergeometric_tail_counts_the_draws_that_hold_k_successes(population, successes, draws, k):
    from itertools import combinations

    from timelineview.analysis.worst_of_many import hypergeometric_tail

    # every draw of ``draws`` of the values 0..population-1, the first ``successes`` of them successes
    draws_all = list(combinations(range(population), draws))
    holding = sum(sum(v < successes for v in d) >= k for d in draws_all)
    assert hypergeometric_tail(population, successes, draws, k) == pytest.approx(holding / len(draws_all))
