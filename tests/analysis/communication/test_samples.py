"""The real torch_npu captures in ../shared/samples (skipped when absent): per-link byte totals and
transfer times against a plain ``json`` pass over the files."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from timelineview.analysis.communication import analyse_card, analyse_cluster
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples" / "torch_npu"
pytestmark = [pytest.mark.samples, pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")]
INVALID = 4294967295


def _plain_links(path: Path) -> dict[tuple, list[float]]:
    """(src, dst, transport, link type) -> [bytes, transit µs, count] over the HCCL Plane tasks."""
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    hccl = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
            and e["args"].get("name") == "HCCL"}
    planes = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
              and e["pid"] in hccl and e["args"]["name"].startswith("Plane ")}
    out: dict[tuple, list[float]] = defaultdict(lambda: [0, 0.0, 0])
    for e in events:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in planes:
            continue
        a = e["args"]
        src, dst, size = a["src rank"], a["dst rank"], a["size(Byte)"]
        if size > 0 and src != dst and src != INVALID and dst != INVALID:
            row = out[(src, dst, a["transport type"], a["link type"])]
            row[0] += size
            row[1] += float(e["dur"])
            row[2] += 1
    return dict(out)


def test_per_link_bytes_of_the_real_captures() -> None:
    files = sorted(SAMPLES.glob("rank*_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"))
    assert len(files) == 2
    stores = sorted(load([str(f) for f in files]), key=lambda s: s.rank)
    comms = [analyse_card(s) for s in stores]
    for f, cc in zip(files, comms, strict=True):
        expected = _plain_links(f)
        assert len(expected) >= 7
        links = cc.links
        got = {(int(links.src[i]), int(links.dst[i]), links.transport[i], links.link_type[i]):
               (int(links.bytes[i]), int(links.count[i]), links.transit[i] / 1000.0) for i in range(len(links))}
        assert {k: v[:2] for k, v in got.items()} == {k: (v[0], v[2]) for k, v in expected.items()}
        for k, v in expected.items():
            assert got[k][2] == pytest.approx(v[1], abs=1e-3 * v[2])  # ns rounding of each duration
    cluster = analyse_cluster(comms)
    assert len(cluster.links) == sum(len(c.links) for c in comms)  # each card sends its own links
    assert cluster.slow_keys == []


US_PER_MS = 1000.0
REL = 0.005
ABS_US = 0.1  # sub-µs figures (a 20 ns synchronisation) are compared to 0.1 µs
# communication.json's time keys -> the keys of an operator's main_plane object
PRODUCER_TIMES = {"Transit Time(ms)": "transit_us", "Wait Time(ms)": "wait_us",
                  "Synchronization Time(ms)": "synchronization_us", "Idle Time(ms)": "idle_us"}
TOTAL = "Total Op Info"


@pytest.mark.parametrize("rank", (0, 1))
def test_main_plane_figures_equal_the_producers_communication_json(rank, capsys) -> None:
    """``stats --json`` on a JSON capture: each collective's main-plane figures are those of the
    producer's ``communication.json`` beside it (names there carry an ``@group`` suffix)."""
    from timelineview import cli

    out = SAMPLES / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    assert cli.stats_main([str(out / "trace_view.json"), "--json", "--quiet"]) == 0
    comm = json.loads(capsys.readouterr().out)["cards"][0]["communication"]
    producer = json.loads((out / "communication.json").read_text())
    [step] = producer.values()
    theirs = {name.split("@")[0]: v["Communication Time Info"] for name, v in step["collective"].items()
              if name != TOTAL}
    assert len(theirs) == len(comm["comm_ops"]) == 4
    for op in comm["comm_ops"]:
        assert op["elapse_us"] == pytest.approx(theirs[op["name"]]["Elapse Time(ms)"] * US_PER_MS, rel=REL)
        for their_key, key in PRODUCER_TIMES.items():
            assert op["main_plane"][key] == pytest.approx(theirs[op["name"]][their_key] * US_PER_MS, rel=REL,
                                                          abs=ABS_US), (op["name"], key)
    total = step["collective"][TOTAL]["Communication Time Info"]
    for their_key, key in PRODUCER_TIMES.items():
        assert comm["main_plane"][key] == pytest.approx(total[their_key] * US_PER_MS, rel=REL, abs=ABS_US)
