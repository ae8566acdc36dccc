"""The producer's bandwidth per transport with its packet sizes, and its LOCAL links (metrics.md §6):
on a hand-made card whose every expected value is worked out by hand below, and on a generated
cluster (network links included) against a plain ``json`` pass over the files it wrote."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests.analysis.factory import COMM, HW, Sl, build_store
from timelineview.analysis.communication import analyse_card
from timelineview.analysis.communication.document import card_json
from timelineview.analysis.summary import format_text, stats_document
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster

PLANE0, PLANE1 = "HCCL/Plane 0", "HCCL/Plane 1"
INVALID = 4294967295
MB = 1_000_000


def task(size: int, transport: str = "SDMA", link: str = "HCCS", name: str = "Memcpy", dst: int = 1,
         src: int = 0) -> dict:
    return {"task type": name, "src rank": src, "dst rank": dst, "transport type": transport, "size(Byte)": size,
            "link type": link, "bandwidth(GB/s)": 1.0}


def wait() -> dict:
    return task(0, "LOCAL", "INVALID_TYPE", "Notify_Wait")


OPS = [("hcom_allReduce__1_0_1", 1000, 2000), ("hcom_allGather__1_1_1", 4000, 2000)]
TASKS = [
    # op 0: copy-engine transfers over three link types, on two planes, and the card's own copies
    (PLANE0, "Notify_Wait", 1000, 50, wait()),
    (PLANE0, "Reduce_Inline", 1060, 10, task(4, link="ON_CHIP", name="Reduce_Inline", dst=INVALID)),  # local
    (PLANE0, "Memcpy", 1080, 20, task(2000, link="ON_CHIP", dst=0)),  # local: to itself
    (PLANE0, "Memcpy", 1100, 100, task(2 * MB)),  # HCCS 2 MB
    (PLANE0, "Memcpy", 1210, 100, task(2 * MB, dst=2)),  # HCCS 2 MB
    (PLANE0, "Memcpy", 1320, 300, task(3 * MB, link="PCIE", dst=3)),  # PCIE 3 MB
    (PLANE1, "Notify_Wait", 1000, 80, wait()),
    (PLANE1, "Reduce_Inline", 1100, 150, task(2 * MB, name="Reduce_Inline", dst=4)),  # HCCS 2 MB
    (PLANE1, "Memcpy", 1300, 60, task(1 * MB, link="SIO", dst=5)),  # SIO 1 MB
    (PLANE1, "Notify_Record", 1400, 5, task(0, link="INVALID_TYPE", name="Notify_Record")),  # no bytes
    # op 1: network transfers, one copy-engine transfer and a local copy
    (PLANE0, "Notify_Wait", 4000, 30, wait()),
    (PLANE0, "RDMASend", 4100, 400, task(4 * MB, "RDMA", "ROCE", "RDMASend", dst=8)),  # RDMA 4 MB
    (PLANE0, "RDMASend", 4510, 10, task(4, "RDMA", "ROCE", "RDMASend", dst=8)),  # RDMA 4 B (a notify)
    (PLANE0, "Notify_Wait", 4530, 20, wait()),
    (PLANE1, "Notify_Wait", 4000, 30, wait()),
    (PLANE1, "Memcpy", 4100, 250, task(5 * MB, dst=1)),  # HCCS 5 MB
    (PLANE1, "Memcpy", 4400, 40, task(8000, link="ON_CHIP", dst=0)),  # local
]
# (operator, transport) -> (bytes, transit ns, count, {size: (count, transit ns)}), by hand from TASKS
EXPECTED = {
    (0, "HCCS"): (6 * MB, 350, 3, {2 * MB: (3, 350)}),
    (0, "PCIE"): (3 * MB, 300, 1, {3 * MB: (1, 300)}),
    (0, "SIO"): (1 * MB, 60, 1, {1 * MB: (1, 60)}),
    (0, "SDMA"): (10 * MB, 710, 5, {}),  # the copy-engine total: HCCS + PCIE + SIO, no distribution of its own
    (1, "RDMA"): (4 * MB + 4, 410, 2, {4 * MB: (1, 400), 4: (1, 10)}),
    (1, "HCCS"): (5 * MB, 250, 1, {5 * MB: (1, 250)}),
    (1, "SDMA"): (5 * MB, 250, 1, {}),
}
# the RDMA transfer of 4 MB is a large packet (>= 1 MB), the 4-byte one not; no copy reaches 32 MB
LARGE = {(1, "RDMA"): 0.5}
LOCAL = (4 + 2000 + 8000, 10 + 20 + 40, 3)  # bytes, transit ns, tasks of the LOCAL link 0-0


def _store():
    slices = [Sl(COMM, name, s, d) for name, s, d in OPS] + [Sl(HW, "MatMul", 0, 50, "AI_CORE")]
    slices += [Sl(lane, name, s, d, args=dict(args)) for lane, name, s, d, args in TASKS]
    return build_store(slices)


def test_bandwidth_per_transport_and_packet_sizes_by_hand() -> None:
    cc = analyse_card(_store())
    bw = cc.bandwidth
    rate = bw.bandwidth_gbps
    got = {}
    for r in range(len(bw)):
        rows = [k for k in range(len(bw.packets.row)) if bw.packets.row[k] == r]
        got[(int(bw.op[r]), bw.transport[r])] = (
            int(bw.bytes[r]), int(bw.transit[r]), int(bw.count[r]),
            {int(bw.packets.size[k]): (int(bw.packets.count[k]), int(bw.packets.transit[k])) for k in rows})
        assert rate[r] == pytest.approx(bw.bytes[r] / bw.transit[r])  # bytes per ns = GB/s
        assert bw.large_packet_ratio[r] == LARGE.get((int(bw.op[r]), bw.transport[r]), 0.0)
    assert got == EXPECTED


def test_the_local_link_by_hand_and_not_among_the_links() -> None:
    cc = analyse_card(_store())
    local = cc.local_links
    assert [(local.key(i), local.transport[i], local.link_type[i]) for i in range(len(local))] == \
        [("0-0", "LOCAL", "ON_CHIP")]
    assert (int(local.bytes[0]), int(local.transit[0]), int(local.count[0])) == LOCAL
    links = cc.links
    assert all(links.src[i] != links.dst[i] for i in range(len(links)))
    assert int(links.bytes.sum()) == sum(v[0] for k, v in EXPECTED.items() if k[1] != "SDMA")


def test_the_json_and_the_text_carry_them() -> None:
    doc = card_json(analyse_card(_store()))
    op1 = {b["transport"]: b for b in doc["comm_ops"][1]["bandwidth"]}
    assert op1["RDMA"] == {"transport": "RDMA", "bytes": 4 * MB + 4, "transit_us": 0.41, "count": 2,
                           "bandwidth_gbps": pytest.approx((4 * MB + 4) / 410), "large_packet_ratio": 0.5,
                           "packets": [{"size_bytes": 4, "count": 1, "transit_us": 0.01},
                                       {"size_bytes": 4 * MB, "count": 1, "transit_us": 0.4}]}
    assert doc["local_links"] == [{"link": "0-0", "src": 0, "dst": 0, "transport": "LOCAL", "link_type": "ON_CHIP",
                                   "bytes": LOCAL[0], "transit_us": LOCAL[1] / 1000, "count": LOCAL[2],
                                   "bandwidth_gbps": pytest.approx(LOCAL[0] / LOCAL[1])}]
    text = format_text(stats_document([_store()]))
    table = text.split("Bandwidth per operator and transport")[1].split("\n\n")[0]
    assert len([line for line in table.splitlines() if "hcom_" in line]) == len(EXPECTED)
    assert "Local links" in text and "0-0" in text.split("Local links")[1]


# ----- a generated cluster against a plain pass over its files -----

def _plain_reference(path: Path) -> tuple[dict, dict]:
    """(op name, transport key) -> [bytes, transit µs, count, {size: count}] and rank -> [local bytes,
    transit µs, count], from the HCCL events of one written trace file (no project code)."""
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    hccl = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
            and e["args"].get("name") == "HCCL"}
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M"
             and e.get("name") == "thread_name" and e["pid"] in hccl}
    xs = [e for e in events if e.get("ph") == "X" and e["pid"] in hccl]
    ops = [e for e in xs if not names[(e["pid"], e["tid"])].startswith("Plane ")]
    bands: dict = defaultdict(lambda: [0, 0.0, 0, defaultdict(int)])
    local: dict = defaultdict(lambda: [0, 0.0, 0])
    for e in xs:
        if not names[(e["pid"], e["tid"])].startswith("Plane "):
            continue
        a = e["args"]
        src, dst, size = int(a["src rank"]), int(a["dst rank"]), int(a["size(Byte)"])
        dur, start = float(e["dur"]), float(e["ts"])
        if size <= 0 or src == INVALID:
            continue
        if dst == src or dst == INVALID or a["link type"] == "ON_CHIP":
            row = local[src]
            row[0], row[1], row[2] = row[0] + size, row[1] + dur, row[2] + 1
            continue
        [op] = [o["name"] for o in ops if float(o["ts"]) <= start <= float(o["ts"]) + float(o["dur"])]
        keys = ["RDMA"] if a["transport type"] == "RDMA" else [a["link type"], "SDMA"]
        for k, key in enumerate(keys):
            row = bands[(op, key)]
            row[0], row[1], row[2] = row[0] + size, row[1] + dur, row[2] + 1
            if k == 0:
                row[3][size] += 1
    return dict(bands), dict(local)


def test_a_generated_cluster_meets_a_plain_pass_over_its_files(tmp_path) -> None:
    specs = cluster_specs(16, seed=5, steps=2, tasks_per_step=40)  # two nodes: HCCS within, RDMA between
    generate_cluster(tmp_path, specs, "msprof", options=WriteOptions())
    doc = stats_document(load(tmp_path))
    files = sorted(tmp_path.rglob("*.json"))
    seen = set()
    for card in doc["cards"]:
        [path] = [f for f in files if Path(card["path"]) in (f, f.parent) or str(f).startswith(card["path"])]
        bands, local = _plain_reference(path)
        comm = card["communication"]
        ours = {(op["name"], b["transport"]): b for op in comm["comm_ops"] for b in op["bandwidth"]}
        assert set(ours) == set(bands)
        for key, (size, transit_us, count, sizes) in bands.items():
            b = ours[key]
            seen.add(key[1])
            assert (b["bytes"], b["count"]) == (size, count), key
            assert b["transit_us"] == pytest.approx(transit_us, abs=1e-3 * count)
            assert {p["size_bytes"]: p["count"] for p in b["packets"]} == (dict(sizes) if key[1] != "SDMA" else {})
        assert {x["src"]: (x["bytes"], x["count"]) for x in comm["local_links"]} == \
            {r: (v[0], v[2]) for r, v in local.items()}
        for x in comm["local_links"]:
            assert x["transit_us"] == pytest.approx(local[x["src"]][1], abs=1e-3 * x["count"])
    assert seen == {"HCCS", "SDMA", "RDMA"}
