"""A name or link the same in both runs is unchanged (metrics.md §9): a run compared with itself has
nothing changed; a run with one operator slowed has exactly that one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from timelineview.analysis.diff.run_diff import CHANGED, UNCHANGED, diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.commands.diff import format_text
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

from .test_run_diff import run

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
OPS = {"MatMul": 300, "Add": 100, "Softmax": 50}


def test_a_run_compared_with_itself_has_nothing_changed():
    d = diff_runs(run(OPS), run(OPS))
    rows = d.operators + d.communication
    assert rows and {r.status for r in rows} == {UNCHANGED} and not any(r.changed for r in rows)
    doc = json.loads(json.dumps(d.document()))
    assert {o["status"] for o in doc["operators"] + doc["communication"]} == {UNCHANGED}
    text = format_text(d)
    assert "Operators: no change." in text and "Communication: no change." in text


def test_one_slowed_operator_is_the_only_changed_name():
    d = diff_runs(run(OPS), run({**OPS, "Add": 160}))
    assert [o.name for o in d.operators if o.status == CHANGED] == ["Add"]
    assert [o.name for o in d.operators if o.changed] == ["Add"]
    assert {o.status for o in d.operators if o.name != "Add"} == {UNCHANGED}
    assert [c.status for c in d.communication] == [UNCHANGED]
    text = format_text(d)
    assert "Add" in text and "MatMul" not in text and "Communication: no change." in text


def test_the_same_count_in_another_total_or_another_count_in_the_same_total_is_changed():
    d = diff_runs(run({"MatMul": 300}, steps=3), run({"MatMul": 300}, steps=3, extra="MatMul"))
    matmul = next(o for o in d.operators if o.name == "MatMul")
    assert matmul.new_count == matmul.base_count + 6 and matmul.status == CHANGED


def test_links_of_a_run_compared_with_itself_are_unchanged(tmp_path):
    generate_cluster(tmp_path, cluster_specs(4, seed=3, steps=3, tasks_per_step=60), "msprof")
    d = diff_runs(AnalysisSession(load(tmp_path)), AnalysisSession(load(tmp_path)))
    assert d.links and not any(x.changed for x in d.links)
    assert all(x.bandwidth_cost_us in (0.0, None) and x.order_key == 0.0 for x in d.links)
    assert "Links: no change." in format_text(d)


def test_a_slower_link_is_changed_and_the_links_other_ranks_send_are_not(tmp_path):
    for name, kw in (("base", {}), ("slow", {"slow_link": (1, 2), "slow_link_factor": 3.0})):
        generate_cluster(tmp_path / name, cluster_specs(4, seed=3, steps=3, tasks_per_step=60, **kw), "msprof")
    d = diff_runs(AnalysisSession(load(tmp_path / "base")), AnalysisSession(load(tmp_path / "slow")))
    assert d.links[0].key == "1-2" and d.links[0].changed
    # the generator has rank 1 send fewer bytes on every link of a collective waiting for the slow one:
    # its links change, those the other ranks send do not
    assert {x.key for x in d.links if x.changed} <= {"1-0", "1-2", "1-3"}
    assert all(not x.changed for x in d.links if not x.key.startswith("1-"))


@pytest.mark.samples
@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")
@pytest.mark.parametrize("sample", ["torch_npu", "cann_per_iteration"])
def test_a_sample_compared_with_itself_has_nothing_changed(sample):
    d = diff_runs(AnalysisSession(load(SAMPLES / sample)), AnalysisSession(load(SAMPLES / sample)))
    assert not any(r.changed for r in d.operators + d.communication + d.links)
    assert all(x.bandwidth_cost_us in (0.0, None) for x in d.links)
