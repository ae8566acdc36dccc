"""The real torch_npu captures in ../shared/samples (skipped when absent): per-link byte totals and
transfer times against a plain ``json`` pass over the files; each collective's figures, its bandwidth per
transport and the LOCAL link against the producer's ``communication.json`` and
``communication_matrix.json`` beside each capture."""

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
# communication.json's time keys -> an operator's headline keys (the producer's figures)
PRODUCER_TIMES = {"Transit Time(ms)": "transit_us", "Wait Time(ms)": "wait_us",
                  "Synchronization Time(ms)": "synchronization_us", "Idle Time(ms)": "idle_us"}
TOTAL = "Total Op Info"


BYTES_PER_MB = 1e6  # the producer's MB
BANDWIDTH_INFO = "Communication Bandwidth Info"


def _stats_communication(out: Path, capsys) -> dict:
    from timelineview import cli

    assert cli.stats_main([str(out / "trace_view.json"), "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)["cards"][0]["communication"]


def _producer_step(out: Path, name: str) -> dict:
    [step] = json.loads((out / name).read_text()).values()
    return step


@pytest.mark.parametrize("rank", (0, 1))
def test_the_figures_equal_the_producers_communication_json(rank, capsys) -> None:
    """``stats --json`` on a JSON capture: each collective's transit, wait, synchronisation, idle and wait
    ratio are those of the producer's ``communication.json`` beside it (names there carry an ``@group``
    suffix), and the card's are its "Total Op Info"."""
    out = SAMPLES / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    comm = _stats_communication(out, capsys)
    step = _producer_step(out, "communication.json")
    theirs = {name.split("@")[0]: v["Communication Time Info"] for name, v in step["collective"].items()
              if name != TOTAL}
    assert len(theirs) == len(comm["comm_ops"]) == 4
    for op in comm["comm_ops"]:
        want = theirs[op["name"]]
        assert op["elapse_us"] == pytest.approx(want["Elapse Time(ms)"] * US_PER_MS, rel=REL)
        for their_key, key in PRODUCER_TIMES.items():
            assert op[key] == pytest.approx(want[their_key] * US_PER_MS, rel=REL, abs=ABS_US), (op["name"], key)
        assert op["wait_ratio"] == pytest.approx(want["Wait Time Ratio"], abs=1e-3)  # rounded to 4 digits there
    total = step["collective"][TOTAL]["Communication Time Info"]
    for their_key, key in PRODUCER_TIMES.items():
        assert comm[key] == pytest.approx(total[their_key] * US_PER_MS, rel=REL, abs=ABS_US)
    assert comm["wait_ratio"] == pytest.approx(total["Wait Time Ratio"], abs=1e-3)


@pytest.mark.parametrize("rank", (0, 1))
def test_the_bandwidth_per_transport_equals_the_producers_communication_json(rank, capsys) -> None:
    """Each collective's "Communication Bandwidth Info": per transport with transfers, the bytes, time,
    bandwidth, large-packet ratio and size distribution; a transport the producer lists at 0 has no row."""
    out = SAMPLES / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    comm = _stats_communication(out, capsys)
    step = _producer_step(out, "communication.json")
    checked = 0
    for op in comm["comm_ops"]:
        [info] = [v[BANDWIDTH_INFO] for name, v in step["collective"].items() if name.split("@")[0] == op["name"]]
        ours = {b["transport"]: b for b in op["bandwidth"]}
        assert set(ours) == {t for t, v in info.items() if v["Transit Size(MB)"] > 0} == {"HCCS", "SDMA"}
        for transport, b in ours.items():
            want = info[transport]
            assert b["bytes"] == pytest.approx(want["Transit Size(MB)"] * BYTES_PER_MB, rel=REL)
            assert b["transit_us"] == pytest.approx(want["Transit Time(ms)"] * US_PER_MS, rel=REL)
            assert b["bandwidth_gbps"] == pytest.approx(want["Bandwidth(GB/s)"], rel=REL)
            assert b["large_packet_ratio"] == want["Large Packet Ratio"]
            sizes = {round(float(mb) * BYTES_PER_MB): (n, ms * US_PER_MS)
                     for mb, (n, ms) in want["Size Distribution"].items()}
            assert {p["size_bytes"]: p["count"] for p in b["packets"]} == {k: v[0] for k, v in sizes.items()}
            for p in b["packets"]:
                assert p["transit_us"] == pytest.approx(sizes[p["size_bytes"]][1], rel=REL)
            checked += 1
    assert checked == 8


@pytest.mark.parametrize("rank", (0, 1))
def test_the_local_link_equals_the_producers_communication_matrix(rank, capsys) -> None:
    """The producer's LOCAL link "r-r" (its "…-total" entry of communication_matrix.json)."""
    out = SAMPLES / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    comm = _stats_communication(out, capsys)
    step = _producer_step(out, "communication_matrix.json")
    [total] = [v for name, v in step["collective"].items() if name.split("@")[0].endswith("-total")]
    theirs = {k: v for k, v in total.items() if v["Transport Type"] == "LOCAL"}
    assert list(theirs) == [f"{rank}-{rank}"]
    [link] = comm["local_links"]
    want = theirs[link["link"]]
    assert link["transport"] == "LOCAL"
    assert link["bytes"] == pytest.approx(want["Transit Size(MB)"] * BYTES_PER_MB, rel=REL)
    assert link["transit_us"] == pytest.approx(want["Transit Time(ms)"] * US_PER_MS, rel=REL)
    assert link["bandwidth_gbps"] == pytest.approx(want["Bandwidth(GB/s)"], rel=REL)
