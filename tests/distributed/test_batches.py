"""Several cards to a task: the plan of the batches, one index entry per card whatever the batches, and a
lost worker's batch redone card by card (the cards it finished are kept) — on a real local cluster."""

from __future__ import annotations

import os
import signal
import threading
import time

import dask
import orjson
import pytest

from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summaries import code_stamp
from timelineview.analysis.summaries.summary_session import SummarySession
from timelineview.distributed.card_task import summary_key
from timelineview.distributed.summarize import (
    LOCK_FILE,
    QUIET_CLUSTER,
    card_bytes,
    local_client,
    plan_batches,
    summarize,
)
from timelineview.model import load
from timelineview.model.load.loader import card_sources

from .conftest import CARDS
from .test_summarize import _stats_on_traces, _without_workers

MB = 1 << 20


def _flat(batches: list[list[int]]) -> list[int]:
    return [k for b in batches for k in b]


def test_plan_batches_by_hand():
    # 20 cards of 4 MB, 2 workers, 16 MB a task: at most 4 cards (16 MB) and at most left // 6 of the cards left
    plan = plan_batches([4 * MB] * 20, workers=2, batch_bytes=16 * MB)
    assert [len(b) for b in plan] == [3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert _flat(plan) == list(range(20))  # every card once, in order
    # the byte limit binds when the cards left are many
    plan = plan_batches([4 * MB] * 200, workers=2, batch_bytes=16 * MB)
    assert [len(b) for b in plan[:3]] == [4, 4, 4] and _flat(plan) == list(range(200))
    # a card larger than a batch goes alone, and does not carry its neighbours
    plan = plan_batches([MB, 40 * MB] + [MB] * 62, workers=1, batch_bytes=16 * MB)
    assert plan[:3] == [[0], [1], list(range(2, 18))] and _flat(plan) == list(range(64))
    # fixed size on request; nothing to plan for no card
    assert plan_batches([MB] * 7, workers=2, batch_cards=3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert plan_batches([], workers=2) == []


def test_last_tasks_are_single_cards():
    plan = plan_batches([4 * MB] * 256, workers=2)
    sizes = [len(b) for b in plan]
    assert sizes == sorted(sizes, reverse=True)  # they shrink toward the end
    assert sizes[-6:] == [1] * 6  # the last 3 per worker are one card each
    assert len(plan) < 256 / 4  # far fewer tasks than cards


def test_batches_give_one_entry_per_card(traces, dask_client, tmp_path):
    index = summarize(traces, tmp_path / "s", client=dask_client, progress=None, batch_cards=5)
    sources = card_sources(traces)
    assert [c["card"] for c in index["cards"]] == [s.label for s in sources]
    assert [c["status"] for c in index["cards"]] == ["ok"] * CARDS
    assert len({c["dir"] for c in index["cards"]}) == CARDS
    for c in index["cards"]:
        manifest = orjson.loads((tmp_path / "s" / c["dir"] / "card.json").read_bytes())
        assert manifest["card"] == c["card"] and manifest["worker"] == c["worker"]
    assert _without_workers(SummarySession(tmp_path / "s").stats_document()) == _stats_on_traces(traces)
    assert all(card_bytes(s) > 0 for s in sources)


def test_a_corrupt_card_fails_alone_in_its_batch(traces_copy, dask_client, tmp_path):
    """The whole folder in one task, loaded by one load: the corrupt card is reported, every other is made."""
    (next((traces_copy / "rank5_ascend_pt").rglob("trace_view.json"))
     .write_bytes(b"\x00\x17 this is not a trace at all " * 100))
    index = summarize(traces_copy, tmp_path / "s", client=dask_client, progress=None, batch_cards=CARDS)
    status = {c["card"]: c for c in index["cards"]}
    assert status["rank 5"]["status"] == "failed" and "rank5_ascend_pt" in status["rank 5"]["error"]
    assert [c for c, e in status.items() if e["status"] == "ok"] == [f"rank {r}" for r in range(CARDS) if r != 5]
    assert len({c["worker"] for c in index["cards"] if c["status"] == "ok"}) == 1  # one task made them all
    fresh = [s for s in load(traces_copy) if s.card != "rank 5"]
    assert _without_workers(SummarySession(tmp_path / "s").stats_document())["cards"] == \
        orjson.loads(orjson.dumps(AnalysisSession(fresh).stats_document(), option=orjson.OPT_SERIALIZE_NUMPY))["cards"]


@pytest.mark.parametrize("allowed_failures", [3, 0], ids=["scheduler-reruns-the-batch", "client-splits-the-batch"])
def test_a_lost_workers_batch_is_redone_card_by_card(traces, tmp_path, allowed_failures):
    """Kill the worker that just wrote the first card of its 8-card batch. With the scheduler's retries the
    batch reruns elsewhere; with none, the client resubmits its cards one per task. Either way the cards
    the lost worker finished are kept (not made twice), the others are made by another worker."""
    out = tmp_path / "s"
    with dask.config.set({"distributed.scheduler.allowed-failures": allowed_failures}):
        client = local_client(2)
    try:
        warm = client.run(lambda: __import__("timelineview.model.load.jit", fromlist=["_"])._warm)
        # the preload readied each worker's scanner before any task when numba's cache holds it (never a compile)
        cached = __import__("timelineview.model.load.jit", fromlist=["_"]).scanner_cached()
        assert list(warm.values()) == [cached, cached]
        pids = client.run(os.getpid)  # {worker address: process id}
        killed: dict = {}

        def kill_after_first_card() -> None:
            while not killed:
                for manifest in out.glob("*/card.json"):
                    if manifest.parent.name.startswith("."):
                        continue  # a card being written
                    worker = orjson.loads(manifest.read_bytes())["worker"]
                    address = next(a for a in pids if worker.endswith(a))
                    os.kill(pids[address], signal.SIGKILL)
                    killed.update(address=address, at=time.time_ns(), card=manifest.parent.name)
                    return
                time.sleep(0.001)

        watcher = threading.Thread(target=kill_after_first_card, daemon=True)
        watcher.start()
        index = summarize(traces, out, client=client, progress=None, batch_cards=8)
        watcher.join(5)
        assert killed
        cards = index["cards"]
        assert [c["status"] for c in cards] == ["ok"] * CARDS
        assert not any(c["reused"] for c in cards)  # made in this run, those kept after the kill too

        def by_lost_worker(c: dict) -> bool:
            return c["worker"].endswith(killed["address"])

        first = next(k for k, c in enumerate(cards) if c["dir"] == killed["card"])
        assert by_lost_worker(cards[first])  # the card seen written before the kill was kept, not made again
        for c in filter(by_lost_worker, cards):  # and so was every card that worker finished
            assert (out / c["dir"] / "card.json").stat().st_mtime_ns <= killed["at"]
        batch = cards[first // 8 * 8:first // 8 * 8 + 8]
        assert not all(map(by_lost_worker, batch))  # the rest of its batch was made by another worker
        assert _without_workers(SummarySession(out).stats_document()) == _stats_on_traces(traces)
        assert not [p for p in out.iterdir() if p.name.startswith(".") and p.name != LOCK_FILE]
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()


def test_a_rerun_keeps_the_cards_of_an_earlier_run(traces, dask_client, tmp_path):
    """A card's run tag tells an earlier try of this run from an earlier run: a later run reports every
    unchanged card as reused."""
    first = summarize(traces, tmp_path / "s", client=dask_client, progress=None, batch_cards=8)
    again = summarize(traces, tmp_path / "s", client=dask_client, progress=None, batch_cards=8)
    assert not any(c["reused"] for c in first["cards"])
    assert all(c["reused"] and c["status"] == "ok" for c in again["cards"])
    assert [c["worker"] for c in again["cards"]] == [c["worker"] for c in first["cards"]]


def test_the_local_cluster_runs_without_dasks_diagnostics(dask_client):
    """The event-loop tick, the stack sampler and the resource monitor serve a dashboard nobody opens: the
    local cluster's workers run with them slowed or off (0.1 CPU second per second of a run otherwise)."""
    keys = list(QUIET_CLUSTER)
    seen = dask_client.run(lambda: {k: __import__("dask").config.get(k) for k in keys})
    assert len(seen) == 2 and all(v == QUIET_CLUSTER for v in seen.values())


def test_summaries_made_by_other_code_or_an_older_format_are_made_again(traces_copy, dask_client, tmp_path,
                                                                        monkeypatch):
    """A card summarised by another version of the code (its key names another code stamp) or in the
    previous format (no run tag, key of sampled blocks) is redone by a rerun, not reused: its numbers may
    not be what this code computes. Only the card left as it was is reused."""
    out = tmp_path / "s"
    summarize(traces_copy, out, client=dask_client, progress=None)
    sources = {s.label: s for s in card_sources(traces_copy)}
    real = code_stamp.current_stamp()
    monkeypatch.setattr(code_stamp, "current_stamp", lambda: code_stamp.CodeStamp(real.version, "0" * 16))
    for manifest_path in out.glob("*/card.json"):
        manifest = orjson.loads(manifest_path.read_bytes())
        if manifest["card"] == "rank 2":
            continue
        if manifest["rank"] % 2:  # the previous format
            del manifest["run"]
            manifest["format"] = 1
        else:  # what the same files give under another code stamp
            manifest["key"] = summary_key(sources[manifest["card"]], DEFAULT_MIN_GAP_NS)
            manifest["code"] = "0" * 16
        manifest_path.write_bytes(orjson.dumps(manifest))
    monkeypatch.undo()
    again = summarize(traces_copy, out, client=dask_client, progress=None)
    assert [c["card"] for c in again["cards"] if c["reused"]] == ["rank 2"]
    assert all(c["status"] == "ok" for c in again["cards"])
    assert {orjson.loads(p.read_bytes())["code"] for p in out.glob("*/card.json")} == {real.code}
