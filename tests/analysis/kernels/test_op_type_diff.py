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
