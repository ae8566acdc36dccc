"""A load raises the threshold of Python's full collections, and never lowers one set higher."""

from __future__ import annotations

import gc

import pytest

from timelineview.model import load
from timelineview.model.load import collector

from ..tracefile import dump_events, x_event


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_a_load_makes_full_collections_rarer(tmp_path, thresholds):
    gc.set_threshold(700, 10, 10)
    trace = dump_events([x_event("a", 1, 1, 0.0, 5.0)], tmp_path / "ascend_timeline_display_0.json")
    [store] = load(trace, cache=False)
    assert len(store.slices) == 1
    assert gc.get_threshold() == (700, 10, collector.FULL_EVERY)


def test_a_higher_threshold_or_collection_off_is_left_as_it_is(thresholds):
    gc.set_threshold(700, 10, 5000)
    collector.fewer_full_collections()
    assert gc.get_threshold() == (700, 10, 5000)
    gc.set_threshold(0, 10, 10)
    collector.fewer_full_collections()
    assert gc.get_threshold() == (0, 10, 10)
