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
