"""The alive-at-t interval index against a plain scan, and its cost: nodes visited per query."""

from __future__ import annotations

import numpy as np

from timelineview.model.memory import NEVER
from timelineview.model.memory import alive_index as ai
from timelineview.model.memory.alive_index import AliveIndex


def scan(start, end, t):
    return np.flatnonzero((start <= t) & (end > t))


def test_matches_a_scan_on_random_blocks():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(0, 80))
        start = rng.integers(0, 60, n)
        end = start + rng.integers(0, 25, n)  # some released when allocated: alive at no instant
        end[rng.random(n) < 0.2] = NEVER
        index = AliveIndex.build(start, end)
        for t in range(-3, 95):
            assert np.array_equal(np.sort(index.alive_at(t)), scan(start, end, t)), t


def test_edges_hand_made():
    # [10, 20), [10, 10) (never alive), [15, never), [20, 30)
    start = np.array([10, 10, 15, 20])
    end = np.array([20, 10, NEVER, 30])
    index = AliveIndex.build(start, end)
    assert sorted(index.alive_at(9).tolist()) == []
    assert sorted(index.alive_at(10).tolist()) == [0]  # allocated at t: alive
    assert sorted(index.alive_at(19).tolist()) == [0, 2]
    assert sorted(index.alive_at(20).tolist()) == [2, 3]  # released at t: gone
    assert sorted(index.alive_at(10**18).tolist()) == [2]


def test_query_cost_grows_with_log_n_plus_k(monkeypatch):
    """Galloping probes per query stay within a small multiple of log2(n) + log2(k + 1) per node."""
    probes = []
    real = ai._prefix

    def counting(values, lo, hi, limit):
        probes.append(1)
        return real(values, lo, hi, limit)

    monkeypatch.setattr(ai, "_prefix", counting)
    rng = np.random.default_rng(1)
    for n in (1_000, 100_000):
        start = np.sort(rng.integers(0, 10**9, n))
        end = start + rng.integers(1, 10**5, n)
        index = AliveIndex.build(start, end)
        probes.clear()
        for t in rng.integers(0, 10**9, 50):
            index.alive_at(int(t))
        assert len(probes) / 50 <= index.levels  # at most one prefix search per node of the path
        assert index.levels <= int(np.log2(2 * n)) + 1
