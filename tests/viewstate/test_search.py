"""Name search (Qt-free): substring matching, next/previous order, one mask over many slices."""

from __future__ import annotations

import numpy as np

from timelineview.viewstate.timeline.search import CardMatches, NameSearch, match_key_before, step_match


def test_substring_case_insensitive():
    s = NameSearch(["MatMul", "aclnnMatMul", "Add", "matmul_grad"])
    assert s.name_ids("MATMUL").tolist() == [0, 1, 3]
    assert s.name_ids("  ").tolist() == []
    mask = s.slice_mask(np.array([2, 0, -1, 3], np.int32), "mul")
    assert mask.tolist() == [False, True, False, True]


def test_a_mask_over_many_slices_equals_the_names_matched_one_by_one():
    """The mask a keystroke makes over a large card (its speed is benchmarks/bench_search.py's)."""
    rng = np.random.default_rng(0)
    strings = [f"op_{i}_{['MatMul', 'Add', 'Conv2D'][i % 3]}" for i in range(5_000)]
    names = rng.integers(0, len(strings), 200_000).astype(np.int32)
    search = NameSearch(strings)
    mask = search.slice_mask(names, "conv2d")
    expected = np.array(["conv2d" in strings[k].lower() for k in names])
    assert np.array_equal(mask, expected) and 60_000 < mask.sum() < 70_000


def cm(card, starts, slices=None):
    starts = np.asarray(starts, np.int64)
    slices = np.arange(len(starts)) if slices is None else np.asarray(slices)
    return CardMatches(card, slices, starts, np.ones(len(starts), bool))


def test_step_order_is_time_then_card_then_index_and_wraps():
    matches = [cm(0, [10, 30, 30]), cm(1, [20, 30])]
    seq, key = [], (-1, -1, -1)
    for _ in range(6):
        card, idx = step_match(matches, *key, 1)
        t = int(next(m for m in matches if m.card == card).starts[list(
            next(m for m in matches if m.card == card).slices).index(idx)])
        key = (t, card, idx)
        seq.append((t, card, idx))
    assert seq[:5] == [(10, 0, 0), (20, 1, 0), (30, 0, 1), (30, 0, 2), (30, 1, 1)]
    assert seq[5] == (10, 0, 0)  # wrapped
    assert step_match(matches, 30, 0, 1, -1) == (1, 0)
    assert step_match(matches, 10, 0, 0, -1) == (1, 1)  # wraps backwards to the last
    assert match_key_before(matches, 30, 0, 2) == 3
