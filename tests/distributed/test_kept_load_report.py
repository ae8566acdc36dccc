"""A card's load problems stay with its summary (walk-through defect 2): the manifest keeps the load
report, ``summarize``'s line says it, ``stats`` on the summary prints on stderr what it prints on the
traces; a reused card's line names no worker of an earlier run (defect 3)."""

from __future__ import annotations

from pathlib import Path

import orjson

from timelineview.analysis.summaries import kept_report
from timelineview.analysis.summaries.card_summary import MANIFEST
from timelineview.cli import stats_main
from timelineview.distributed.card_task import CardResult
from timelineview.distributed.summarize import progress_line, summarize
from timelineview.model import load

from .conftest import CARDS
from .test_summarize import _trace_of

DAMAGED = 1


def _damage(path: Path) -> None:
    """A deleted ``}`` a third of the way in (that event is lost) and a stray ``"`` two thirds in."""
    data = path.read_bytes()
    k = data.index(b"}", len(data) // 3)
    data = data[:k] + data[k + 1:]
    k = data.index(b"{", 2 * len(data) // 3)
    path.write_bytes(data[:k] + b'"' + data[k:])


def _stats(capsys, *args: str) -> tuple[dict, list[str]]:
    assert stats_main([*args, "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    doc = orjson.loads(out)
    for card in doc["cards"]:
        card.pop("worker", None)  # a summary names the worker that made each card (metrics.md §10)
    return doc, err.splitlines()


def test_a_damaged_cards_report_is_kept_printed_and_said_again_by_stats(traces_copy, dask_client, tmp_path,
                                                                         capsys):
    _damage(_trace_of(traces_copy, DAMAGED))
    direct = {s.card: s.report for s in load(traces_copy)}
    damaged = direct[f"rank {DAMAGED}"]
    n = damaged.dropped_events
    assert n >= 1 and damaged.warnings  # the damage cost events and left a stray
    remark = f"{n} event{'' if n == 1 else 's'} dropped"
    lines: list[str] = []
    out = tmp_path / "s"
    index = summarize(traces_copy, out, client=dask_client, progress=lambda d, t, r: lines.append(
        progress_line(d, t, r)))
    assert [c["status"] for c in index["cards"]] == ["ok"] * CARDS
    for c in index["cards"]:  # each manifest keeps the report of the card's load, as loading it here gives
        kept = orjson.loads((out / c["dir"] / MANIFEST).read_bytes())[kept_report.KEY]
        assert kept == {**direct[c["card"]].to_json(), "truncated_path": ""}
    # the progress line says what the load lost, and only for that card
    said = [line for line in lines if f" rank {DAMAGED}: " in line]
    assert len(said) == 1 and f"rank {DAMAGED}: ok, {remark} in " in said[0]
    assert sum(" dropped" in line for line in lines) == 1
    assert all(": ok in " in line for line in lines if line not in said)
    # stats on the summary: the same stderr lines as on the traces, and the same document
    traces_doc, traces_err = _stats(capsys, str(traces_copy))
    summary_doc, summary_err = _stats(capsys, str(out))
    assert traces_err == [f"rank {DAMAGED}: {damaged.overview(f'rank {DAMAGED}')}"]
    assert summary_err == traces_err
    assert summary_doc == traces_doc
    # a rerun reuses every card: the line says so without the worker of the first run, and keeps the remark
    again: list[str] = []
    summarize(traces_copy, out, client=dask_client, progress=lambda d, t, r: again.append(progress_line(d, t, r)))
    assert len(again) == CARDS and not any("tcp://" in line or " on " in line for line in again)
    assert sorted(line.split("] ", 1)[1] for line in again) == sorted(
        f"rank {r}: reused from the earlier summary" + (f" ({remark})" if r == DAMAGED else "")
        for r in range(CARDS))


def test_progress_lines():
    made = CardResult("rank 2", 2, "rank_2", "ok", worker="3 tcp://10.0.0.7:40121", seconds=0.214,
                      load="2 events dropped")
    assert progress_line(1, 16, made) == ("[1/16] rank 2: ok, 2 events dropped in 0.21 s on worker 3 "
                                          "(tcp://10.0.0.7:40121)")
    reused = CardResult("rank 0", 0, "rank_0", "ok", worker="0 tcp://127.0.0.1:36957", reused=True)
    assert progress_line(2, 16, reused) == "[2/16] rank 0: reused from the earlier summary"
    failed = CardResult("rank 5", 5, "rank_5", "failed", error="ValueError: no", worker="h-1 local", seconds=1.0)
    assert progress_line(3, 16, failed) == "[3/16] rank 5: failed in 1.00 s on worker h-1 (local) — ValueError: no"
