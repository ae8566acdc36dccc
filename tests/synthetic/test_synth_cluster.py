"""Cluster folders: structure, planted anomalies and synchronised collectives."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from timelineview.synthetic import cluster_specs, generate_cluster

from .tracecheck import load_events, truth_rows, x_rows


def _collectives(gt) -> tuple[list[str], np.ndarray]:
    m = gt.mask("comm_op")
    order = np.argsort(gt.start_ns[m], kind="stable")
    names = [gt.names[i] for i in gt.name[m][order].tolist()]
    return names, gt.end_ns[m][order]


@pytest.fixture(scope="module", params=["msprof", "mindspore_gen_c", "msprof_per_iteration"])
def cluster(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"cluster_{request.param}")
    specs = cluster_specs(4, seed=7, steps=3, tasks_per_step=60, slow_card=2, slow_data_card=3,
                          clock_skew_us=800.0, pipeline=request.param == "msprof")
    return request.param, root, specs, generate_cluster(root, specs, request.param)


def test_collectives_end_at_the_same_true_instant(cluster) -> None:
    _, _, specs, truths = cluster
    ref_names, ref_ends = _collectives(truths[0])
    assert len(ref_names) == 3 * (7 if specs[0].pipeline else 5)
    for gt in truths[1:]:
        names, ends = _collectives(gt)
        assert names == ref_names
        assert ((ends - gt.clock_offset_ns) == (ref_ends - truths[0].clock_offset_ns)).all()


def test_planted_offsets_and_anomalies(cluster) -> None:
    layout, _, specs, truths = cluster
    if layout != "mindspore_gen_c":  # relative-time files cannot carry the card clock
        assert [t.clock_offset_ns for t in truths] == [s.clock_offset_ns for s in specs]
        assert len({t.clock_offset_ns for t in truths}) == 4
    compute = [float(t.dur_ns[t.mask("compute")].sum()) for t in truths]
    assert compute[2] > 1.3 * np.median(compute)
    # Data wait: until the first operator (a pipeline stage then waits in hcom_receive).
    wait = []
    for t in truths:
        busy = t.mask("compute") | t.mask("comm_op")
        i = np.searchsorted(t.step_start_ns, t.start_ns[busy], side="right") - 1
        first = np.full(len(t.step_start_ns), np.iinfo(np.int64).max)
        np.minimum.at(first, i, t.start_ns[busy])
        wait.append(float((first - t.step_start_ns).mean()))
    assert wait[3] > 5 * np.median(wait)


def test_folder_structure(cluster) -> None:
    layout, root, _, truths = cluster
    for gt in truths:
        r = gt.rank
        if layout == "msprof":
            folder = root / f"rank{r}_ascend_pt"
            assert gt.paths == [str(folder / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")]
            assert json.loads((folder / f"profiler_info_{r}.json").read_text())["rank_id"] == r
        elif layout == "mindspore_gen_c":
            assert gt.paths == [str(root / f"ascend_timeline_display_{r}.json")]
        else:
            info = next(root.glob(f"PROF_*/device_{r}/info.json.{r}"))
            assert json.loads(info.read_text())["rank_id"] == r
    first = truths[0]
    assert sum(x_rows(load_events(Path(p))).total() for p in first.paths) == first.x_events
    assert sum(truth_rows(first).values()) == first.x_events


def test_rank_dirs_structure(tmp_path) -> None:
    specs = cluster_specs(2, steps=1, tasks_per_step=20)
    truths = generate_cluster(tmp_path, specs, "mindspore_gen_b", structure="rank_dirs")
    assert truths[1].paths == [str(tmp_path / "rank_1" / "ascend_timeline_display_1.json")]
