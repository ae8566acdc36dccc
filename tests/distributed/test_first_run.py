"""A first ``summarize`` never waits for the compiler: with the
scanner not in numba's cache no worker readies it (a compile), the cards are read with the typed decode
and equal a warm run's, the console says so once, and one compile for next time starts after the cards."""

from __future__ import annotations

import fcntl

from timelineview.analysis.summaries.summary_session import SummarySession
from timelineview.distributed import card_task, first_run
from timelineview.distributed import summarize as summarize_module
from timelineview.distributed.summarize import local_client, summarize
from timelineview.model.load import jit

from .conftest import CARDS
from .test_summarize import _without_workers


def test_a_first_run_reads_typed_and_compiles_once_afterwards(traces, dask_client, tmp_path, monkeypatch, request):
    if not jit.scanner_available():
        return  # no numba: nothing is ever compiled, there is no first run to test
    cached = jit.scanner_cached()  # when this machine's cache holds the scanner, the shared cluster's run is warm
    warm = summarize(traces, tmp_path / "warm", client=dask_client, progress=None, note=None)
    # an empty numba cache for the new cluster's workers; the compile lock taken as if a compile ran, so
    # the test starts none (compile_in_background then says one is under way)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    lock = jit._compile_lock()
    lock.parent.mkdir(parents=True)
    held = open(lock, "w")  # noqa: SIM115 - held until the test ends, like a compile's lock
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    request.addfinalizer(held.close)
    assert not jit.scanner_cached()
    done: list[int] = []
    notes: list[str] = []
    compiles: list[tuple[int, dict]] = []
    real_start = first_run.start_compile

    def start_compile(client, workers):
        answers = real_start(client, workers)
        compiles.append((len(done), answers))
        return answers

    monkeypatch.setattr(summarize_module.first_run, "start_compile", start_compile)
    client = local_client(2)
    try:
        cold = summarize(traces, tmp_path / "cold", client=client, note=notes.append,
                         progress=lambda d, t, r: done.append(d))
        workers_warm = client.run(jit.scanner_is_warm)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    assert notes == [first_run.FIRST_RUN_NOTE]
    assert len(workers_warm) == 2 and not any(workers_warm.values())  # neither preload nor task readied it
    # once, after every card was done, on both workers: each says a compile is under way (the lock's)
    assert len(compiles) == 1 and compiles[0][0] == CARDS and list(compiles[0][1].values()) == [True, True]
    assert not jit._marker().exists() and lock.read_bytes() == b""  # nothing compiled, no compile spawned
    assert [c["status"] for c in cold["cards"]] == ["ok"] * CARDS
    assert _without_workers(SummarySession(tmp_path / "cold").stats_document()) == _without_workers(
        SummarySession(tmp_path / "warm").stats_document())
    assert list(dask_client.run(jit.scanner_is_warm).values()) == [cached, cached]
    assert [c["status"] for c in warm["cards"]] == ["ok"] * CARDS


def test_a_warm_cluster_says_nothing_and_compiles_nothing(traces, dask_client, tmp_path, monkeypatch):
    if not jit.scanner_cached():
        return  # this machine's cache is cold: the test above covers it
    notes: list[str] = []
    monkeypatch.setattr(summarize_module.first_run, "start_compile",
                        lambda client, workers: notes.append(f"compile on {workers}") if workers else {})
    summarize(traces, tmp_path / "s", client=dask_client, progress=None, note=notes.append)
    assert notes == []


def test_a_card_task_readies_only_a_cached_scanner(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(jit, "scanner_is_warm", lambda: bool(calls))
    monkeypatch.setattr(jit, "warm_scanner", lambda: calls.append("warm"))
    monkeypatch.setattr(jit, "scanner_cached", lambda: False)
    assert card_task.ready_cached_scanner() is False and calls == []
    monkeypatch.setattr(jit, "scanner_cached", lambda: True)
    assert card_task.ready_cached_scanner() is True and calls == ["warm"]
    assert card_task.ready_cached_scanner() is True and calls == ["warm"]  # between cards: once
