"""An NPU run compared with a GPU baseline in the window (metrics.md §13): the Compare tab's Framework
operators page pairs the operators by name and input shapes with device time on both sides and breaks the
mean step down in both runs; both runs share the timeline, each card in its own device's words."""

from __future__ import annotations

import json

import pytest

from tests.analysis.test_step_breakdown import EXPECTED as GPU_STEP
from tests.analysis.test_step_breakdown import kineto_run
from timelineview.views.analysis_tabs.compare.open_menu import compare_view, open_comparison

T0 = 1_700_000_000_000  # µs
PYTHON, HARDWARE, STREAM = 100, 200, 5
MM_DIMS = "32,64;\r\n64,16"  # torch_npu's spelling of the GPU trace's [[32, 64], [64, 16]]
# (launched at, start, dur) in µs from T0: one aten::mm per kernel, steps [0, 1000) and [1000, 2000)
NPU_KERNELS = [(10, 100, 300), (650, 700, 250), (1050, 1100, 400), (1900, 1950, 40)]
NPU_MM_US = sum(d for _, _, d in NPU_KERNELS)  # every kernel is an aten::mm's
GPU_MM_US = 200 + 100 + 200 + 300 + 400 + 50  # every launch of the GPU run is an aten::mm's, its NCCL kernel's too


def torch_npu_run() -> dict:
    """A torch_npu trace_view.json: a Python process whose aten::mm operators launch AI Core tasks on the
    Ascend Hardware process through async_npu flows, inside ProfilerStep#1 and #2."""
    events = [
        {"ph": "M", "name": "process_name", "pid": PYTHON, "tid": 0, "args": {"name": "Python"}},
        {"ph": "M", "name": "process_name", "pid": HARDWARE, "tid": 0, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "thread_name", "pid": HARDWARE, "tid": STREAM, "args": {"name": f"Stream {STREAM}"}},
    ]
    for number, start in ((1, 0), (2, 1000)):
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{number}", "pid": PYTHON,
                       "tid": 1, "ts": T0 + start, "dur": 1000})
    for k, (launch, start, dur) in enumerate(NPU_KERNELS, 1):
        events += [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": PYTHON, "tid": 1, "ts": T0 + launch - 2,
             "dur": 10, "args": {"Input Dims": MM_DIMS, "Input type": "float;\r\nfloat"}},
            {"ph": "s", "cat": "async_npu", "name": "async_npu", "id": k, "pid": PYTHON, "tid": 1, "ts": T0 + launch},
            {"ph": "X", "name": "MatMulV2", "pid": HARDWARE, "tid": STREAM, "ts": T0 + start, "dur": dur,
             "args": {"Task Type": "AI_CORE"}},
            {"ph": "f", "cat": "async_npu", "name": "async_npu", "id": k, "pid": HARDWARE, "tid": STREAM,
             "ts": T0 + start, "bp": "e"},
        ]
    return {"traceEvents": events}


@pytest.fixture()
def runs(tmp_path):
    npu, gpu = tmp_path / "npu", tmp_path / "gpu"
    npu.mkdir()
    gpu.mkdir()
    (npu / "trace_view.json").write_text(json.dumps(torch_npu_run()))
    (gpu / "host_1.1700000000.pt.trace.json").write_text(json.dumps(kineto_run()))
    return npu, gpu


def _compared(qtbot, window, runs):
    view = compare_view(window)
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000) as ready:
        window.open_paths([runs[0]], remember=False)
        assert open_comparison(window, [runs[1]])
    assert ready.args == [True]
    return view


def test_the_framework_page_pairs_the_operators_and_breaks_the_step_down(qtbot, window, runs):
    view = _compared(qtbot, window, runs)
    page = view.framework
    index = view.parts.indexOf(page)
    assert index >= 0 and view.parts.tabText(index).startswith("Framework operators (")
    [mm] = [r for r in page.operators_model.rows if r["name"] == "aten::mm"]
    assert mm["input_shapes"] == "[32, 64], [64, 16]"  # both producers' spellings read as one key
    assert (mm["base_us"], mm["new_us"]) == pytest.approx((NPU_MM_US, GPU_MM_US))
    assert mm["delta_us"] == pytest.approx(GPU_MM_US - NPU_MM_US)
    rows = {r["name"]: r for r in page.breakdown_model.rows}
    assert list(rows) == ["Computation", "Communication (not hidden)", "Free", "Host launch overhead"]
    # the GPU side as worked out by hand in tests/analysis/test_step_breakdown.py
    assert [rows[t]["new_us"] for t in rows] == pytest.approx(list(GPU_STEP.values()))
    # the NPU side by hand: step 1 computes [100, 400) and [700, 950) = 550 of 1000 µs, free 450, of which
    # [400, 700) and [950, 1000) were ended by a late launch (650 > 400; the next kernel, launched at 1050,
    # ends the gap [950, 1100)); step 2 computes [1100, 1500) and [1950, 1990) = 440, free 560, all of it
    # ended by late launches ([1000, 1100), [1500, 1950)) but [1990, 2000), which no kernel ends
    assert rows["Computation"]["base_us"] == pytest.approx((550 + 440) / 2)
    assert rows["Communication (not hidden)"]["base_us"] == 0.0
    assert rows["Free"]["base_us"] == pytest.approx((450 + 560) / 2)
    assert rows["Host launch overhead"]["base_us"] == pytest.approx((300 + 50 + 100 + 450) / 2)


def test_both_runs_on_one_timeline_each_in_its_words(qtbot, window, runs):
    view = _compared(qtbot, window, runs)
    assert view.show_on_timeline(0)
    cards = window.timeline.cards
    assert len(cards) == 2 and cards[1].title.startswith("new · ")
    titles = [{d.key: d.title for d in c.derived_lanes} for c in cards]
    assert titles[0]["idle_gaps"] == "Idle AI Core gaps" and titles[1]["idle_gaps"] == "Idle GPU gaps"
    # lane by lane, the GPU card's derived lane follows the NPU card's of the same key, whatever its words
    assert view.lane_by_lane.isChecked()
    rows = window.timeline.ctx.layout.rows
    at = next(i for i, r in enumerate(rows) if r.title == "Idle AI Core gaps")
    assert (rows[at + 1].card, rows[at + 1].title) == (cards[1].number, "new · Idle GPU gaps")


def test_an_ascend_comparison_has_no_framework_page(qtbot, window, runs):
    """Two NPU runs without framework operators keep the four pages."""
    npu = runs[0]
    (npu / "trace_view.json").write_text(json.dumps({"traceEvents": [
        e for e in torch_npu_run()["traceEvents"] if e.get("cat") != "cpu_op"]}))
    view = compare_view(window)
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000):
        window.open_paths([npu], remember=False)
        assert open_comparison(window, [npu])
    assert view.parts.indexOf(view.framework) < 0 and view.parts.count() == 4


LONG_NAME = "autograd::engine::evaluate_function: " + "VeryLongBackward0 " * 12  # as PyTorch names some


def test_a_long_operator_name_leaves_the_figures_on_the_page(qtbot):
    """A 1000 px window: the name column elides a long name instead of pushing every figure off the page."""
    from timelineview.views.analysis_tabs.compare.framework_page import TEXT_WIDEST, FrameworkPage

    page = FrameworkPage()
    qtbot.addWidget(page)
    page.resize(980, 500)
    page.show()
    qtbot.waitExposed(page)
    page.operators_model.set_rows([{"name": LONG_NAME, "input_shapes": "[32, 64], [64, 16]", "delta_us": 12.5,
                                    "base_us": 100.0, "new_us": 112.5, "ratio": 1.125, "base_count": 3,
                                    "new_count": 3}])
    page._fit_operators()
    table, header = page.operators_table, page.operators_table.horizontalHeader()
    name_px = header.fontMetrics().horizontalAdvance(LONG_NAME)
    assert name_px > table.viewport().width()  # the name alone is wider than the page
    assert TEXT_WIDEST <= header.sectionSize(0) < name_px  # elided: only the width the figures leave
    ends = [header.sectionPosition(c) + header.sectionSize(c) for c in range(header.count())]
    assert max(ends) <= table.viewport().width()  # every figure in sight, none scrolled off
    assert table.model().data(table.model().index(0, 0), 0x03) == LONG_NAME  # the tooltip holds it whole


def test_a_gpu_run_without_shapes_pairs_its_operators_by_name(qtbot, window, runs):
    """A GPU baseline captured without record_shapes: aten::mm still pairs, by name, with both device times."""
    gpu = runs[1] / "host_1.1700000000.pt.trace.json"
    trace = json.loads(gpu.read_text())
    for e in trace["traceEvents"]:
        e.get("args", {}).pop("Input Dims", None)
    gpu.write_text(json.dumps(trace))
    page = _compared(qtbot, window, runs).framework
    [mm] = [r for r in page.operators_model.rows if r["name"] == "aten::mm"]
    assert mm["input_shapes"] == "by name: [32, 64], [64, 16] ≠ no shapes"
    assert (mm["base_us"], mm["new_us"]) == pytest.approx((NPU_MM_US, GPU_MM_US))
