"""The advisor's checks over a card's compute tasks, on hand-made task tables: dynamic shapes, long operators on
fewer blocks than cores, repeated runs of small vector operators (expected values worked out by hand)."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.advisor.block_dim import low_block_dim
from timelineview.analysis.advisor.device_info import DeviceInfo
from timelineview.analysis.advisor.dynamic_shapes import dynamic_shapes
from timelineview.analysis.advisor.tasks import Tasks
from timelineview.analysis.advisor.vector_runs import vector_runs

US = 1000


def tasks(rows: list[tuple], dynamic: list[bool] | None = None) -> Tasks:
    """``rows``: (lane, start µs, dur µs, op type, core type, shapes, block dim)."""
    strings: list[str] = []

    def sid(text: str) -> int:
        if not text:
            return -1
        if text not in strings:
            strings.append(text)
        return strings.index(text)

    return Tasks(strings, np.arange(len(rows), dtype=np.int64), np.array([r[0] for r in rows], np.int64),
                 np.array([r[1] * US for r in rows], np.int64), np.array([r[2] * US for r in rows], np.int64),
                 np.array([sid(r[3]) for r in rows], np.int32), np.array([sid(r[4]) for r in rows], np.int32),
                 np.array([sid(r[5]) for r in rows], np.int32), np.array([r[6] for r in rows], np.int32),
                 None if dynamic is None else np.array(dynamic, bool))


def test_dynamic_shapes_share_and_op_types():
    t = tasks([(0, 0, 10, "MatMul", "AI_CORE", "2,3", 24), (0, 20, 30, "MatMul", "AI_CORE", "4,3", 24),
               (0, 60, 5, "Add", "AI_VECTOR_CORE", "2", 48), (0, 70, 55, "Conv2D", "AI_CORE", "1,1", 24)],
              dynamic=[True, True, True, False])
    d = dynamic_shapes(t, longest=2)
    assert (d.tasks, d.dynamic_tasks, d.dynamic_ns, d.compute_ns) == (4, 3, 45 * US, 100 * US)
    assert d.share == 0.45
    assert [(x.op_type, x.count, x.total_ns, x.shapes) for x in d.top] == [("MatMul", 2, 40 * US, 2),
                                                                         ("Add", 1, 5 * US, 1)]
    assert d.longest.tolist() == [1, 0]
    assert dynamic_shapes(tasks([(0, 0, 1, "A", "AI_CORE", "", 1)]), 3) is None  # the capture does not say


def test_low_block_dim_against_the_cores_of_each_core_type():
    device = DeviceInfo(ai_cores=24, vector_cores=48, source="test")
    t = tasks([(0, 0, 100, "MatMul", "AI_CORE", "", 8),  # long, 8 of 24 cube cores: low
               (0, 200, 50, "MatMul", "AI_CORE", "", 24),  # every core
               (0, 300, 40, "Add", "AI_VECTOR_CORE", "", 24),  # long, 24 of 48 vector cores: low
               (0, 400, 10, "Add", "AI_VECTOR_CORE", "", 1),  # short: launch-bound, not judged
               (0, 500, 60, "MatMul", "AI_CORE", "", 8),  # low
               (0, 600, 90, "DropOutGenMask", "AI_CPU", "", 1)])  # AI CPU: no blocks to spread
    low = low_block_dim(t, device, longest=2)
    assert (low.count, low.total_ns, low.compute_ns) == (3, 200 * US, 350 * US)
    assert [(x.op_type, x.core_type, x.block_dim, x.cores, x.count, x.total_ns) for x in low.top] == [
        ("MatMul", "AI_CORE", 8, 24, 2, 160 * US), ("Add", "AI_VECTOR_CORE", 24, 48, 1, 40 * US)]
    assert low.longest.tolist() == [0, 4]
    assert low_block_dim(t, DeviceInfo(), 2) is None  # core counts unknown: not judged


def test_repeated_runs_of_small_vector_operators():
    v, c = "AI_VECTOR_CORE", "AI_CORE"
    rows = []
    start = 0
    for _layer in range(4):  # each layer: MatMul, then Mul → Add → Cast on the vector cores, then a long Softmax
        for op, core, dur in (("MatMul", c, 50), ("Mul", v, 4), ("Add", v, 5), ("Cast", v, 3), ("Softmax", v, 30)):
            rows.append((0, start, dur, op, core, "", 48))
            start += dur + 1
    rows += [(1, 10, 4, "Mul", v, "", 48), (1, 20, 5, "Add", v, "", 48)]  # another stream: Mul → Add once
    runs = vector_runs(tasks(rows), longest=2)
    # Mul → Add → Cast four times (12 µs each); Mul → Add once only (not repeated); Softmax is not small
    assert [(s.op_types, s.count, s.total_ns) for s in runs.sequences] == [(("Mul", "Add", "Cast"), 4, 48 * US)]
    assert runs.repeated_ns == 48 * US and runs.compute_ns == (4 * 92 + 9) * US
    first, last = runs.sequences[0].longest[0]
    assert (rows[first][3], rows[last][3]) == ("Mul", "Cast")


def test_a_long_run_is_cut_into_pieces_of_the_longest_sequence():
    v = "AI_VECTOR_CORE"
    ops = ["Mul", "Add"] * 12  # 24 small vector tasks in a row: three pieces of 8 (Mul Add × 4), the same each
    rows = [(0, k * 3, 2, op, v, "", 48) for k, op in enumerate(ops)]
    runs = vector_runs(tasks(rows), longest=3)
    assert [(s.op_types, s.count, s.total_ns) for s in runs.sequences] == [(("Mul", "Add") * 4, 3, 24 * 2 * US)]


def test_op_type_tables_and_their_longest_tasks():
    from timelineview.analysis.advisor.op_type_times import op_type_times

    t = tasks([(0, 0, 10, "MatMul", "AI_CORE", "2,3", 24), (0, 20, 30, "MatMul", "AI_CORE", "4,3", 24),
               (0, 60, 5, "Add", "AI_VECTOR_CORE", "", 48), (1, 0, 30, "MatMul", "AI_CORE", "2,3", 24),
               (1, 40, 7, "Add", "AI_VECTOR_CORE", "", 48), (1, 50, 12, "MatMul", "AI_CORE", "2,3", 24)])
    got = op_type_times(t, longest=2)
    assert sorted(got["by_op_type"]) == [["Add", 2, 12.0], ["MatMul", 4, 82.0]]
    # only rows with shapes, most time first: MatMul [2,3] 10 + 30 + 12, then MatMul [4,3] 30
    assert got["by_shape"] == [["MatMul", "2,3", 3, 52.0], ["MatMul", "4,3", 1, 30.0]]
    # the two longest of each op type, longest first; MatMul's two of 30 µs: the earlier first
    assert got["longest"] == {"MatMul": [1, 3], "Add": [4, 2]}
