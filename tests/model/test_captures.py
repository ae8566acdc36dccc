"""A folder holding several captures of the same cards names them; one capture, or a cluster of cards
with no rank, names none."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from timelineview.model.captures import capture_read, separate_captures
from timelineview.model.load.loader import card_sources
from timelineview.synthetic import cluster_specs, generate_cluster


@pytest.fixture(scope="module")
def one_capture(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("one") / "ranks"
    generate_cluster(out, cluster_specs(2, seed=5, steps=2, tasks_per_step=20))
    return out


def test_two_levels_of_one_job_are_two_captures(tmp_path, one_capture):
    job = tmp_path / "job"
    for level in ("level1", "level0"):
        shutil.copytree(one_capture, job / level)
    (job / "notes").mkdir()
    assert separate_captures(job) == [job / "level0", job / "level1"]
    assert separate_captures(tmp_path) == [job / "level0", job / "level1"]  # found below the folder opened too
    assert separate_captures(job / "level0") == []
    assert capture_read(separate_captures(job), card_sources(job)) == job / "level0"  # what a load reads


def test_one_capture_or_cards_of_no_rank_are_not_separate_captures(tmp_path, one_capture):
    assert separate_captures(one_capture) == []
    trace = next(p for p in one_capture.rglob("*.json") if p.name.startswith("trace_view"))
    assert separate_captures(trace) == []  # a file
    for host in ("host_a", "host_b"):  # two cards whose rank nothing names: one cluster, not two captures
        (tmp_path / host).mkdir()
        shutil.copy(trace, tmp_path / host / trace.name)
    assert separate_captures(tmp_path) == []
