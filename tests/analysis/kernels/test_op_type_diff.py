"""``diff`` by op type: node names that change between graph builds do not hide an op type's change."""

from timelineview.analysis.diff.run_diff import CHANGED, UNCHANGED, diff_runs
from timelineview.analysis.session import AnalysisSession

from ..factory import HW, Sl, build_store


def _run(prefix: str, matmul_durations: list[int]) -> AnalysisSession:
    slices, t = [], 0
    for k, dur in enumerate(matmul_durations):
        slices.append(Sl(HW, f"Default/{prefix}/MatMul-op{k + 7 * len(prefix)}", t, dur, "AI_CORE"))
        slices.append(Sl(HW, f"Default/{prefix}/Add-op{k + 100}", t + dur, 50, "AI_VECTOR_CORE"))
        t += dur + 1000
    return AnalysisSession([build_store(slices)])


def test_renamed_nodes_compare_by_op_type():
    base = _run("net", [1000, 2000, 3000])
    new = _run("network_v2", [1000, 2500, 3000])  # every node renamed; one MatMul 500 ns slower
    diff = diff_runs(base, new)
    assert all(o.base_count == 0 or o.new_count == 0 for o in diff.operators)  # no node name is in both runs
    rows = {o.name: o for o in diff.op_types}
    assert rows.keys() == {"MatMul", "Add"}
    assert (rows["MatMul"].base_total_us, rows["MatMul"].new_total_us) == (6.0, 6.5)
    assert rows["MatMul"].status == CHANGED and rows["Add"].status == UNCHANGED
    assert diff.op_types[0].name == "MatMul"  # the largest change first
    assert diff.document()["op_types"][0]["delta_us"] == 0.5


SHAPE_A, SHAPE_B = "64,32;32,16", "128,32;32,16"
EPOCH_NS = 1_736_408_883_000_000_000


def _described_run(folder, prefix: str, b_extra_ns: int) -> AnalysisSession:
    """MatMulV2 tasks at two shapes (three each, renamed by ``prefix``), described by a ``kernel_details.csv``
    beside the trace; the tasks at ``SHAPE_B`` take ``b_extra_ns`` longer."""
    import csv

    from ..factory import Layout

    folder.mkdir()
    slices, rows, t = [], [], EPOCH_NS
    for k in range(6):
        shapes = SHAPE_A if k % 2 == 0 else SHAPE_B
        dur = 10_000 + (b_extra_ns if shapes == SHAPE_B else 0)
        slices.append(Sl(HW, f"{prefix}_MatMulV2_{k}", t, dur, "AI_CORE"))
        rows.append([k, 2, f"{prefix}_{k}", "MatMulV2", "AI_CORE", f"{t // 1000}.{t % 1000:03d}", dur / 1000, shapes])
        t += dur + 5_000
    trace = folder / "trace_view.json"
    trace.write_text("[]")
    with open(folder / "kernel_details.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Task ID", "Stream ID", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)",
                    "Input Shapes"])
        w.writerows(rows)
    return AnalysisSession([build_store(slices, Layout(tids={HW: "2"}), paths=(str(trace),))])


def test_renamed_nodes_compare_by_op_type_and_shapes(tmp_path):
    base = _described_run(tmp_path / "base", "net", 0)
    new = _described_run(tmp_path / "new", "network_v2", 1_000)  # the three SHAPE_B tasks 1 µs slower each
    diff = diff_runs(base, new)
    rows = {(o.name, o.shapes): o for o in diff.op_shapes}
    assert rows.keys() == {("MatMulV2", SHAPE_A), ("MatMulV2", SHAPE_B)}
    a, b = rows[("MatMulV2", SHAPE_A)], rows[("MatMulV2", SHAPE_B)]
    assert a.status == UNCHANGED and (a.base_total_us, a.base_count) == (30.0, 3)
    assert b.status == CHANGED and (b.base_total_us, b.new_total_us) == (30.0, 33.0)
    assert diff.op_shapes[0] is b  # the largest change first
    [by_type] = diff.op_types
    assert by_type.delta_us == 3.0 and by_type.shapes is None
    doc = diff.document()
    assert doc["op_shapes"][0]["input_shapes"] == SHAPE_B and "input_shapes" not in doc["op_types"][0]


def test_the_diff_text_lists_op_types_and_shapes_before_node_names(tmp_path):
    from timelineview.commands.diff import format_text

    diff = diff_runs(_described_run(tmp_path / "base", "net", 0), _described_run(tmp_path / "new", "v2", 1_000))
    text = format_text(diff)
    assert text.index("Op types,") < text.index("Op types by input shapes") < text.index("Operators")
    assert f"MatMulV2 [{SHAPE_B}]" in text and f"MatMulV2 [{SHAPE_A}]" not in text  # unchanged rows are left out
