"""Producer-specific details of each layout (docs/trace-format.md §0, §3, §4)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

from timelineview.synthetic import CardSpec, WriteOptions, generate_card

from .tracecheck import load_events, ns, x_rows

_TS_TOKEN = re.compile(r'"ts": ("?)([0-9.]+)\1')


def _ts_tokens(path: Path) -> list[tuple[str, str]]:
    return _TS_TOKEN.findall(path.read_text())


def test_msprof_string_ts_have_three_decimals(cards) -> None:
    for layout in ("msprof", "object"):
        tokens = _ts_tokens(cards[layout].files[0])
        assert tokens and all(q == '"' for q, _ in tokens)
        assert all(re.fullmatch(r"\d{16}\.\d{3}", v) for _, v in tokens)


def test_msprof_pids_flows_and_metadata(cards) -> None:
    c = cards["msprof"]
    names = {}
    for e in c.events:
        if e["ph"] == "M" and e["name"] == "process_name":
            names.setdefault(e["pid"], []).append(e["args"]["name"])
    assert any(len(v) > 1 for v in names.values())  # a duplicated process_name
    npu = [p for p, v in names.items() if v[0] != "Python"]
    assert npu and all(p > 2**32 for p in npu)
    hw = next(p for p, v in names.items() if v[0] == "Ascend Hardware")
    starts = {(e["tid"], ns(e["ts"])) for e in c.events if e["ph"] == "X" and e["pid"] == hw}
    fin = [e for e in c.events if e["ph"] == "f"]
    assert fin and all(e["bp"] == "e" and (e["tid"], ns(e["ts"])) in starts for e in fin)
    torch = [e["id"] for e in c.events if e.get("cat") == "async_npu"]
    assert torch and all(isinstance(i, int) and i > 2**53 for i in torch)
    h2d = [e["id"] for e in c.events if e.get("cat") == "HostToDevice"]
    assert h2d and all(isinstance(i, str) for i in h2d)
    acl = {}
    for e in c.events:
        if e["ph"] == "X" and e["name"].startswith("AscendCL@"):
            acl.setdefault((e["pid"], e["tid"]), []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    for e in c.events:
        if e["ph"] == "s" and e["cat"] == "HostToDevice":
            t = ns(e["ts"])
            assert any(a <= t < b for a, b in acl[(e["pid"], e["tid"])])
    counters = [e for e in c.events if e["ph"] == "C"]
    assert {e["name"] for e in counters} >= {"AI Core Freq", "APP/HBM"}
    assert all(isinstance(e["ts"], str) for e in counters)


def test_object_layout_has_keys_around_the_array(cards) -> None:
    path = cards["object"].files[0]
    keys = list(json.loads(path.read_text()).keys())
    assert keys.index("traceEvents") not in (0, len(keys) - 1)
    assert x_rows(load_events(path)) == x_rows(cards["msprof"].events)


def test_gen_c_metadata_placement(cards) -> None:
    ev = cards["mindspore_gen_c"].events
    assert not any(e["ph"] == "M" and e["name"] == "process_name" for e in ev)
    first_x = next(i for i, e in enumerate(ev) if e["ph"] != "M")
    head = ev[:first_x]
    assert head and all(e["name"] == "thread_sort_index" and e["cat"] == "__metadata" for e in head)
    assert all(head[i] == head[i + 1] for i in range(0, len(head), 2))  # written twice each
    tail = []
    for e in reversed(ev):
        if e["ph"] != "M":
            break
        tail.append(e)
    labels = {e["pid"]: e["args"]["labels"] for e in tail if e["name"] == "process_labels"}
    assert labels[9000] == "AICPU OP" and labels[12000] == "Op Overlap Analyse"
    assert all(e["ts"] == 0 and e["cat"] == "__metadata" for e in tail)
    xs = [e for e in ev if e["ph"] == "X"]
    assert min(Decimal(e["ts"]) for e in xs) == 0
    assert {e["tid"] for e in xs if e["pid"] == 12000} == {7999, 8000, 8001, 8002}
    assert {e["name"] for e in xs if e["pid"] == 12000} == {
        "computation_op", "communication_not_overlapped", "communication", "free_time"}
    assert [e["name"] for e in xs if e["tid"] == 100000] == ["1", "2", "3"]
    assert all("scope_level" in e for e in xs if e["tid"] == 100001)
    assert any("_AllReduce-op" in e["name"] for e in xs if e["pid"] == 10000)


def test_gen_b_has_no_metadata_and_string_tids(cards) -> None:
    ev = cards["mindspore_gen_b"].events
    assert not any(e["ph"] == "M" for e in ev)
    assert all(isinstance(e["tid"], str) for e in ev)
    assert {e["pid"] for e in ev} <= {1, 9000, 10000, 11000}
    assert {e["tid"] for e in ev if e["pid"] == 9000} == {"0"}
    assert min(Decimal(e["ts"]) for e in ev if e["ph"] == "X") == 0


def test_per_iteration_folder(cards) -> None:
    c = cards["msprof_per_iteration"]
    timeline = c.files[0].parent
    device = timeline.parent
    assert device.name == "device_1" and device.parent.name.startswith("PROF_000001_")
    assert json.loads((device / "info.json.1").read_text())["rank_id"] == 1
    assert (device / "start_info.1").exists() and (device / "end_info.1").exists()
    aux = {"task_time": 0, "hccl": 0, "step_trace": 0}
    metas = []
    for k, path in enumerate(c.files, start=1):
        assert path.name == f"msprof_1_2_{k}.json"
        main = load_events(path)
        metas.append(sorted(json.dumps(e, sort_keys=True) for e in main if e["ph"] == "M"))
        rows = x_rows(main)
        for kind in ("task_time", "hccl"):
            sub = x_rows(load_events(timeline / f"{kind}_1_2_{k}.json"))
            assert not sub - rows  # a subset of the msprof file of the same iteration
            aux[kind] += sum(sub.values())
        st = load_events(timeline / f"step_trace_1_2_{k}.json")
        pids = {e["pid"] for e in st if e["ph"] == "X"}
        assert pids == {next(e["pid"] for e in st if e.get("args", {}).get("name") == "Step Trace")}
        aux["step_trace"] += sum(1 for e in st if e["ph"] == "X")
        assert all(5e10 < float(e["ts"]) < 6e10 for e in main if e["ph"] == "X")
    assert all(m == metas[0] for m in metas)  # full metadata repeated in every file
    assert aux == c.truth.aux_x_events


def test_pretty_output(tmp_path) -> None:
    spec = CardSpec(steps=2, tasks_per_step=30, with_duplicates=True)
    for layout in ("msprof", "mindspore_gen_c"):
        path = tmp_path / f"{layout}.json"
        truth = generate_card(path, spec, layout, options=WriteOptions(pretty=True))
        text = path.read_text()
        assert text.startswith("[\n  {\n    ") and text.count("\n") > truth.x_events
        assert sum(x_rows(load_events(path)).values()) == truth.x_events
