"""``LazyFlowTable``: built once, whoever asks first and however many ask at once, and a store holding one
(a database card's) survives pickling with its flows still to be made."""

from __future__ import annotations

import pickle
import threading
import time

import numpy as np
import pytest

from timelineview.model import load
from timelineview.model.store.store_factory import empty_flows
from timelineview.model.store.trace_store import FlowTable, LazyFlowTable
from timelineview.synthetic import CardSpec, generate_card
from timelineview.synthetic.database import write_database

FLOW_COLUMNS = ("src_event", "cat", "flow_id", "src_ts", "src_lane", "src_slice", "dst_ts", "dst_lane", "dst_slice")
BUILD_SECONDS = 0.3  # long enough for a second thread to ask while the first builds


def test_two_threads_asking_at_once_build_the_flows_once():
    calls = []

    def build() -> FlowTable:
        calls.append(threading.get_ident())
        time.sleep(BUILD_SECONDS)
        return empty_flows()

    table = LazyFlowTable(build)
    got: list[FlowTable] = []
    threads = [threading.Thread(target=lambda: got.append(table.resolve())) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(got) == 2 and got[0] is got[1]


def test_an_unresolved_table_asked_for_a_missing_attribute_says_so():
    table = LazyFlowTable(empty_flows)
    with pytest.raises(AttributeError):
        table.no_such_column  # noqa: B018 - the attribute access is the test
    assert len(table) == 0


@pytest.fixture(scope="module")
def database_card(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lazy-flows")
    generate_card(folder / "json" / "trace_view.json", CardSpec(steps=2, seed=3), "msprof")
    [from_json] = load(folder / "json" / "trace_view.json", cache=False)
    write_database(from_json, folder / "db" / "ascend_pytorch_profiler_0.db")
    [store] = load(folder / "db", cache=False)
    return store


def test_a_database_card_survives_pickling_with_its_flows_unmade(database_card):
    """As before its flows were made lazily: a store sent to another process keeps its lazy args, and now its
    flows, still to be made, and its index reading the copy's own columns."""
    store = database_card
    assert isinstance(store.flows, LazyFlowTable) and store.flows._table is None
    copy = pickle.loads(pickle.dumps(store))
    assert isinstance(copy.flows, LazyFlowTable) and copy.flows._table is None  # still made on first use
    assert copy.index._start is copy.slices.start  # not a second copy of the slices' starts
    flows, again = store.flows.resolve(), copy.flows.resolve()
    assert len(flows) > 0
    for name in FLOW_COLUMNS:
        assert np.array_equal(getattr(again, name), getattr(flows, name)), name
    assert np.array_equal(copy.index.starts, store.index.starts)
    assert np.array_equal(copy.index.ends, store.index.ends)
    some = np.arange(min(len(store.slices), 50))
    assert copy.args_many(some) == store.args_many(some)
