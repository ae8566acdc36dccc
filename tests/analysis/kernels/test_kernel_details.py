"""A JSON card with a hand-built ``kernel_details.csv`` beside it: descriptions matched to their tasks, the
tables by op type and by shape against plain Python sums, FLOPs and MFU per step."""

import csv
import random
from collections import defaultdict

import numpy as np
import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.kernels import card_kernels
from timelineview.analysis.kernels.card_object import kernels_document
from timelineview.analysis.kernels.document import with_peak
from timelineview.analysis.kernels.table import SOURCE_KERNEL_DETAILS, SOURCE_NAME
from timelineview.analysis.steps import StepWindow

from ..factory import HW, HW2, Layout, Sl, build_store

HEADER = ["Step Id", "Task ID", "Stream ID", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)",
          "Block Dim", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "aic_mac_ratio"]
KINDS = [("MatMulV2", "AI_CORE", "64,32;32,16", "ND;ND", 2 * 64 * 16 * 32),
         ("MatMulV2", "AI_CORE", "128,32;16,32", "ND;ND", 2 * 128 * 16 * 32),
         ("TransData", "AI_VECTOR_CORE", "32,3,224,224", "NCHW", None),
         ("Add", "AI_VECTOR_CORE", "1024;1024", "ND;ND", None)]
EPOCH_NS = 1_736_408_883_000_000_000


def _card(tmp_path, seed=3, undescribed=2):
    rng = random.Random(seed)
    slices, rows, truth = [], [], []
    t = EPOCH_NS
    for k in range(300):
        lane = rng.choice([HW, HW2])
        op, core, shapes, formats, flops = rng.choice(KINDS)
        dur = rng.randint(1_000, 90_000)
        slices.append(Sl(lane, f"aclnn_{op}_{k}", t, dur, core))
        if k >= undescribed:  # the first tasks are missing from the table: named only
            stream = 2 if lane == HW else 3
            rows.append([1, k, stream, f"{op}_{k}", op, core, f"{t // 1000}.{t % 1000:03d}\t", dur / 1000,
                         rng.choice([8, 20, 40]), f'"{shapes}"', "FLOAT16", formats, '"1"', rng.random()])
        truth.append((op, core, shapes, dur, flops if k >= undescribed else None, t))
        t += dur + rng.randint(0, 5_000)
    slices.append(Sl(HW, "Notify_Wait", t, 500, "NOTIFY_WAIT"))  # not compute: never matched
    rng.shuffle(rows)
    trace = tmp_path / "trace_view.json"
    trace.write_text("[]")
    with open(tmp_path / "kernel_details.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        w.writerows(rows)
    store = build_store(slices, Layout(tids={HW: "2", HW2: "3"}), paths=(str(trace),))
    return store, truth, rows


def test_descriptions_come_from_the_table_and_fall_back_to_names(tmp_path):
    store, truth, rows = _card(tmp_path)
    table = card_kernels(store, classify(store))
    assert table.source == SOURCE_KERNEL_DETAILS
    assert len(table) == len(truth) and table.described == len(rows)
    g = table.groups
    for k, (op, core, shapes, _, _, _) in enumerate(truth):
        group = table.group[k]
        assert g.text(g.op_type[[group]]) == [op] and g.text(g.core_type[[group]]) == [core]
        assert g.text(g.shapes[[group]]) == [shapes if k >= 2 else ""]
    block = {int(r[1]): r[8] for r in rows}
    assert [int(b) for b in table.block_dim] == [block.get(k, -1) for k in range(len(truth))]
    mac = {int(r[1]): r[13] for r in rows}
    assert np.isnan(table.pmu["aic_mac_ratio"][:2]).all()
    assert table.pmu["aic_mac_ratio"][2:] == pytest.approx([mac[k] for k in range(2, len(truth))], rel=1e-6)


def test_tables_by_op_type_and_shape_against_plain_sums(tmp_path):
    store, truth, _ = _card(tmp_path)
    middle, after = truth[150][5], truth[-1][5] + 10**9
    steps = [StepWindow(1, EPOCH_NS, middle, 0, 0, "test"), StepWindow(2, middle, after, 0, 0, "test")]
    doc = kernels_document(store, card_kernels(store, classify(store)), steps)
    by_type = defaultdict(list)
    for op, core, _shapes, dur, _flops, _t in truth:
        by_type[(op, core)].append(dur)
    total = sum(d for *_, d, _f, _t in truth)
    got = {(r["op_type"], r["core_type"]): r for r in doc["by_op_type"]}
    assert got.keys() == by_type.keys()
    for key, durs in by_type.items():
        r = got[key]
        assert r["count"] == len(durs) and r["total_us"] == pytest.approx(sum(durs) / 1000)
        assert r["min_us"] == min(durs) / 1000 and r["max_us"] == max(durs) / 1000
        assert r["share"] == pytest.approx(sum(durs) / total)
    matmul = got[("MatMulV2", "AI_CORE")]
    matmul_flops = sum(f for op, *_, f, _t in truth if op == "MatMulV2" and f is not None)
    assert matmul["flops"] == matmul_flops
    assert matmul["tflops"] == pytest.approx(matmul_flops / (matmul["total_us"] * 1e6))
    assert got[("TransData", "AI_VECTOR_CORE")]["flops"] is None and "TransData" in doc["not_counted"]
    by_shape = defaultdict(list)  # the first two tasks are described by name only: no shapes
    for k, (op, _core, shapes, dur, _flops, _t) in enumerate(truth):
        by_shape[(op, shapes if k >= 2 else "")].append(dur)
    rows = {(r["op_type"], r["input_shapes"]): r for r in doc["by_shape"]}
    assert rows.keys() == by_shape.keys()
    for key, r in rows.items():
        durs = by_shape[key]
        assert r["count"] == len(durs)
        assert r["p50_us"] == pytest.approx(np.percentile(durs, 50) / 1000)
        assert r["p90_us"] == pytest.approx(np.percentile(durs, 90) / 1000)
    for w, row in zip(steps, doc["steps"], strict=True):
        flops = sum(f for *_, f, t in truth if f is not None and w.start <= t < w.end)
        assert row["flops"] == flops
        assert row["tflops"] == pytest.approx(flops / (w.end - w.start) / 1e3)
        assert row["mfu"] is None  # the capture names no chip
    assert doc["note"]
    repeaked = with_peak(doc, 100.0)
    for row in repeaked["steps"]:
        assert row["mfu"] == pytest.approx(row["tflops"] / 100.0)
    assert repeaked["by_op_type"][0]["mfu"] == (None if doc["by_op_type"][0]["tflops"] is None
                                                else pytest.approx(doc["by_op_type"][0]["tflops"] / 100.0))


def test_without_a_table_op_types_come_from_names(tmp_path):
    store, truth, _ = _card(tmp_path)
    (tmp_path / "kernel_details.csv").unlink()
    table = card_kernels(store, classify(store))
    assert table.source == SOURCE_NAME and table.described == 0
    g = table.groups
    assert g.text(g.op_type[table.group]) == [op for op, *_ in truth]


def test_sql_tables_hold_the_tasks_and_the_documents_rows(tmp_path):
    """``kernels`` joins ``slices`` on (card, id) and sums to the document's ``op_types``."""
    pytest.importorskip("duckdb")
    from timelineview.api.session import Session

    store, truth, _ = _card(tmp_path)
    session = Session([store])
    rows = session.sql("select k.op_type, count(*) n, sum(s.dur_ns) total from kernels k join slices s "
                       "on s.card = k.card and s.id = k.id group by k.op_type")
    got = {r.op_type: (r.n, int(r.total)) for r in rows.itertuples()}
    expected = defaultdict(lambda: [0, 0])
    for op, _core, _shapes, dur, _flops, _t in truth:
        expected[op][0] += 1
        expected[op][1] += dur
    assert got == {k: tuple(v) for k, v in expected.items()}
    by_type = session.sql("select op_type, sum(count) n from op_types group by op_type")
    assert {r.op_type: r.n for r in by_type.itertuples()} == {k: v[0] for k, v in expected.items()}
    flops = session.sql("select sum(flops) f from kernels where op_type = 'MatMulV2'").f[0]
    assert flops == sum(f for op, *_, f, _t in truth if op == "MatMulV2" and f is not None)
