"""The load report keeps each warning once and counts drops by reason, in time linear in their number."""

from __future__ import annotations

from collections import Counter

from timelineview.model.store.report import MAX_EXAMPLES, LoadReport


def test_warn_all_keeps_each_warning_once_in_order():
    rep = LoadReport()
    rep.warn("b")
    rep.warn_all(["a", "b", "c", "a"])
    rep.warn("c")
    assert rep.warnings == ["b", "a", "c"]


def test_merging_many_warnings_keeps_each_once():
    one, other = LoadReport(), LoadReport()
    one.warn_all([f"w{i}" for i in range(0, 3000, 2)])
    other.warn_all([f"w{i}" for i in range(3000)])
    one.merge(other)
    assert sorted(one.warnings) == sorted(f"w{i}" for i in range(3000))
    assert one.warnings[:3] == ["w0", "w2", "w4"]


def test_counted_drops_add_to_the_reasons_without_examples():
    rep = LoadReport()
    for k in range(MAX_EXAMPLES):
        rep.drop("unreadable", "t.json", 10 * k, k)
    rep.count_dropped(Counter({"unreadable": 40_000, "negative 'dur'": 2}))
    assert rep.dropped == Counter({"unreadable": MAX_EXAMPLES + 40_000, "negative 'dur'": 2})
    assert rep.dropped_events == MAX_EXAMPLES + 40_002
    assert len(rep.examples) == MAX_EXAMPLES
