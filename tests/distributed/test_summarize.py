"""``summarize`` on a real local Dask cluster: the summary's metrics are ``stats``' on the traces, a corrupt
card fails alone, a killed worker loses no card, a rerun redoes only the cards that changed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import orjson

from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summaries.card_summary import read_card_summary
from timelineview.analysis.summaries.summary_session import SummarySession, is_summary_folder
from timelineview.distributed.summarize import LOCK_FILE, local_client, summarize
from timelineview.model import load

from .conftest import CARDS


def _trace_of(folder: Path, rank: int) -> Path:
    return next((folder / f"rank{rank}_ascend_pt").rglob("trace_view.json"))


def _stats_on_traces(folder: Path) -> dict:
    """What ``timelineview stats --json`` prints for the traces (the JSON round trip included)."""
    return orjson.loads(orjson.dumps(AnalysisSession(load(folder)).stats_document(),
                                     option=orjson.OPT_SERIALIZE_NUMPY))


def _without_workers(doc: dict) -> dict:
    doc = orjson.loads(orjson.dumps(doc, option=orjson.OPT_SERIALIZE_NUMPY))
    for card in doc["cards"]:
        card.pop("worker")
    return doc


def test_summary_metrics_equal_stats_on_the_traces(traces, dask_client, tmp_path):
    index = summarize(traces, tmp_path / "s", client=dask_client, progress=None)
    assert [c["status"] for c in index["cards"]] == ["ok"] * CARDS
    assert is_summary_folder(tmp_path / "s")
    summary = SummarySession(tmp_path / "s").stats_document()
    expected = _stats_on_traces(traces)
    assert _without_workers(summary) == expected  # every per-card metric, slow cards, links, findings
    # the planted problems are there, so the equality above compared something
    assert any(f["card"] == "rank 3" for f in expected["slow_cards"])
    assert "4-5" in expected["slow_links"]
    assert {"slow_link", "slow_compute"} <= {f["rule"] for f in expected["findings"]}
    # the producer's bandwidth per transport and LOCAL links are kept too (compared above, not null)
    assert all(c["communication"]["local_links"] and c["communication"]["comm_ops"][0]["bandwidth"]
               for c in expected["cards"])
    # each card names the worker that made it: one of the cluster's two processes, "<name> <address>"
    workers = {f"{info['name']} {addr}" for addr, info in dask_client.scheduler_info()["workers"].items()}
    assert {c["worker"] for c in summary["cards"]} <= workers
    assert index["clock_offsets_us"] == {c["card"]: c["clock_offset_us"] for c in expected["cards"]}
    assert index["slow_cards"] == expected["slow_cards"] and index["findings"] == expected["findings"]


def test_stats_cli_on_a_summary_folder(traces, dask_client, tmp_path):
    summarize(traces, tmp_path / "s", client=dask_client, progress=None)
    run = subprocess.run([sys.executable, "-m", "timelineview.cli", str(tmp_path / "s"), "--json"],
                         capture_output=True, check=True)
    printed = orjson.loads(run.stdout)
    assert all(c["worker"] for c in printed["cards"])
    assert _without_workers(printed) == _stats_on_traces(traces)


def test_summary_holds_what_the_desktop_draws(traces, dask_client, tmp_path):
    summarize(traces, tmp_path / "s", client=dask_client, progress=None)
    store = load(_trace_of(traces, 2))[0]
    a = AnalysisSession([store]).analyse(0, ("derived", "steps"))
    card = read_card_summary(tmp_path / "s" / "rank_2")
    assert np.array_equal(card.derived.pure_communication.starts, a.derived.pure_communication.starts)
    assert np.array_equal(card.derived.idle_gaps.ends, a.derived.idle_gaps.ends)
    assert [(s.step, s.start, s.end, s.fp, s.bp) for s in card.steps] == \
        [(s.step, s.start, s.end, s.fp, s.bp) for s in a.steps]
    pyr = card.pyramid()
    compute = pyr.levels[0][pyr.rows.index("Compute")].astype(np.float64) / 255
    width = (pyr.t1 - pyr.t0) / pyr.levels[0].shape[1]
    # occupancy rounds each bucket up: the covered time lies within one 255th of a bucket per bucket
    covered = a.derived.compute.total()
    assert compute.sum() * width >= covered
    assert compute.sum() * width - covered <= pyr.levels[0].shape[1] * width / 255


def test_corrupt_card_is_reported_and_the_others_are_summarised(traces_copy, dask_client, tmp_path):
    _trace_of(traces_copy, 5).write_bytes(b"\x00\x17 this is not a trace at all " * 100)
    index = summarize(traces_copy, tmp_path / "s", client=dask_client, progress=None)
    status = {c["card"]: c for c in index["cards"]}
    assert status["rank 5"]["status"] == "failed" and status["rank 5"]["error"]
    assert [c for c, e in status.items() if e["status"] == "ok"] == [f"rank {r}" for r in range(CARDS) if r != 5]
    doc = SummarySession(tmp_path / "s").stats_document()
    assert len(doc["cards"]) == CARDS - 1
    fresh = AnalysisSession([s for s in load(traces_copy) if s.card != "rank 5"]).stats_document()
    fresh = orjson.loads(orjson.dumps(fresh, option=orjson.OPT_SERIALIZE_NUMPY))
    assert _without_workers(doc)["cards"] == fresh["cards"]


def test_a_killed_worker_loses_no_card(traces, tmp_path):
    client = local_client(2)
    try:
        pids = client.run(os.getpid)  # {worker address: process id}
        killed = []

        in_flight = []

        def kill_one(done: int, total: int, result) -> None:
            if not killed and done == 2:  # 14 cards still to go, one running on each worker
                address = next(a for a in pids if not result.worker.endswith(a))
                in_flight.extend(str(k) for k in client.processing()[address])
                os.kill(pids[address], signal.SIGKILL)
                killed.extend([address, time.time_ns()])

        # one card per task, as a large card's batch is: the checks below name each card's task
        index = summarize(traces, tmp_path / "s", client=client, progress=kill_one, batch_cards=1)
        assert killed
        assert [c["status"] for c in index["cards"]] == ["ok"] * CARDS
        assert killed[0] not in client.scheduler_info()["workers"]  # the nanny started a new one instead
        # the cards the killed worker held (running or queued there) were made by other workers, but for one
        # it had written before it died whose result had not reached the scheduler: that one is kept, not
        # made twice (its task, rerun, finds it made by this run)
        lost = [c for c in index["cards"] if any(k.startswith(f"summarize-{c['dir']}-") for k in in_flight)]
        written_before = [c for c in lost if (tmp_path / "s" / c["dir"] / "card.json").stat().st_mtime_ns <= killed[1]]
        assert lost and len(written_before) <= 1 and not any(c["reused"] for c in index["cards"])
        assert not any(c["worker"].endswith(killed[0]) for c in lost if c not in written_before)
        assert _without_workers(SummarySession(tmp_path / "s").stats_document()) == _stats_on_traces(traces)
        assert not [p for p in (tmp_path / "s").iterdir() if p.name.startswith(".") and p.name != LOCK_FILE]
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()


def test_rerun_redoes_only_the_changed_card(traces_copy, dask_client, tmp_path):
    first = summarize(traces_copy, tmp_path / "s", client=dask_client, progress=None)
    assert not any(c["reused"] for c in first["cards"])
    with _trace_of(traces_copy, 9).open("ab") as f:  # same events, one more byte: a new size and content
        f.write(b"\n")
    second = summarize(traces_copy, tmp_path / "s", client=dask_client, progress=None)
    redone = [c["card"] for c in second["cards"] if not c["reused"]]
    assert redone == ["rank 9"]
    assert all(c["status"] == "ok" for c in second["cards"])
    third = summarize(traces_copy, tmp_path / "s", client=dask_client, progress=None)
    assert all(c["reused"] for c in third["cards"])
    assert _without_workers(SummarySession(tmp_path / "s").stats_document()) == _stats_on_traces(traces_copy)
