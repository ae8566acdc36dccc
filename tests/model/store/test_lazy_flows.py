"""``LazyFlowTable``: built once, whoever asks first and however many ask at once."""

from __future__ import annotations

import threading
import time

import pytest

from timelineview.model.store.store_factory import empty_flows
from timelineview.model.store.trace_store import FlowTable, LazyFlowTable

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
