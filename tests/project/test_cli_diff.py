"""``timelineview diff BASE NEW``: a planted change, measured against the generator's ground truth."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from timelineview.synthetic import cluster_specs, generate_cluster

ROOT = Path(__file__).resolve().parents[2]


def run_diff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "timelineview", "diff", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("diff")
    base = generate_cluster(root / "base", cluster_specs(3, seed=4, steps=3, tasks_per_step=80), "msprof")
    new = generate_cluster(root / "new", cluster_specs(3, seed=4, steps=3, tasks_per_step=80, slow_data_card=1,
                                                       slow_data_us=7000.0), "msprof")
    return root, base, new


def mean_interval_us(truth) -> float:
    return float(np.mean(truth.step_fp_ns - truth.step_start_ns)) / 1000.0


def test_diff_reports_the_longer_step_interval_and_nothing_else(runs):
    root, base, new = runs
    out = run_diff(str(root / "base"), str(root / "new"), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    # the card whose data wait grew comes first: lockstep, every card's step time grew alike (by rank before)
    assert [c["card"] for c in doc["cards"]] == ["rank 1", "rank 0", "rank 2"]
    by_rank = sorted(doc["cards"], key=lambda c: c["card"])
    for card, tb, tn in zip(by_rank, base, new, strict=True):
        expected = mean_interval_us(tn) - mean_interval_us(tb)
        assert card["delta"]["step_interval_us"] == pytest.approx(expected, abs=1e-3)
        assert card["delta"]["fp_bp_us"] == pytest.approx(0.0, abs=1e-3)
    assert doc["cards"][0]["delta"]["step_interval_us"] > 4000
    assert all(abs(o["delta_us"]) < 1e-6 for o in doc["operators"])  # no compute task changed
    assert doc["notes"] == []


def test_diff_text_shows_phases_then_operators(runs):
    root, _, _ = runs
    out = run_diff(str(root / "base"), str(root / "new"))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.index("Step phases") < text.index("Whole card") < text.index("Operators")
    assert "Operators: no change." in text


def test_diff_of_nothing_readable_says_why(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("]")
    out = run_diff(str(empty), str(empty))
    assert out.returncode == 1
    assert "nothing readable in the base run" in out.stderr


@pytest.fixture(scope="module")
def slow_link_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("diff_link")
    for name, kw in (("base", {}), ("slow", {"slow_link": (1, 2), "slow_link_factor": 3.0})):
        generate_cluster(root / name, cluster_specs(4, seed=1, steps=3, tasks_per_step=60, **kw), "msprof")
    return root


def test_diff_names_a_link_made_three_times_slower_first(slow_link_runs):
    root = slow_link_runs
    out = run_diff(str(root / "base"), str(root / "slow"), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    first = doc["links"][0]
    assert first["key"] == "1-2" and set(first) == {"key", "new_key", "base", "new", "delta"}
    assert first["new"]["bandwidth_gbps"] / first["base"]["bandwidth_gbps"] == pytest.approx(1 / 3, rel=0.03)
    for link in doc["links"]:
        assert link["delta"]["transit_us"] == pytest.approx(link["new"]["transit_us"] - link["base"]["transit_us"])
    for card in doc["cards"]:  # the communication totals of §6, both runs and the change
        for key in ("transit_us", "wait_us", "synchronization_us", "idle_us"):
            assert card["delta"][key] == pytest.approx(card["new"][key] - card["base"][key])
    deltas = [abs(c["delta"]["step_time_us"]) for c in doc["cards"]]
    assert deltas == sorted(deltas, reverse=True)
    text = run_diff(str(root / "base"), str(root / "slow")).stdout
    links = text[text.index("Links, largest change first"):].splitlines()
    assert links[3].split()[0] == "1-2"  # title, header, rule, then the slow link
    assert "Communication per card, whole run" in text


SAMPLES = ROOT.parent / "shared" / "samples" / "torch_npu"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")
def test_diff_of_rank0_and_rank1_of_two_jobs_compares_the_cards():
    out = run_diff(str(SAMPLES / "rank0_ascend_pt"), str(SAMPLES / "rank1_ascend_pt"))
    assert out.returncode == 0, out.stderr
    assert "Operators: no change." not in out.stdout
    assert "rank 0 vs rank 1" in out.stdout
    assert "the runs share no rank: cards matched in rank order (rank 0 with rank 1)" in out.stdout


def test_runs_without_a_card_to_compare_exit_1_saying_why(tmp_path, capsys):
    """Two runs that share no rank and hold different numbers of cards compare nothing: exit 1, not an empty
    comparison with exit 0."""
    from timelineview.commands.diff import diff_main
    from timelineview.synthetic import CardSpec, generate_card

    one, two = tmp_path / "one", tmp_path / "two"
    generate_card(one / "ascend_timeline_display_0.json", CardSpec(rank=0, steps=2, tasks_per_step=20),
                  target_bytes=60_000)
    for rank in (5, 6):
        generate_card(two / f"ascend_timeline_display_{rank}.json", CardSpec(rank=rank, steps=2, tasks_per_step=20),
                      target_bytes=60_000)
    assert diff_main([str(one), str(two), "--no-cache"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = [x for x in captured.err.splitlines() if x.strip()]
    assert line.startswith("timelineview diff: no card of one run matches a card of the other: ")
    assert "rank 0" in line and "rank 5" in line
