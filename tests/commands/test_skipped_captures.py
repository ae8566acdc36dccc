"""A folder holding two captures of the same cards (level0/ and level1/ of one job): ``stats``, ``query``
and ``diff`` read one and name, on stderr, the one read and the one left aside."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from timelineview.cli import stats_main
from timelineview.commands.diff import diff_main
from timelineview.synthetic import cluster_specs, generate_cluster


@pytest.fixture(scope="module")
def job(tmp_path_factory) -> Path:
    one = tmp_path_factory.mktemp("capture") / "ranks"
    generate_cluster(one, cluster_specs(2, seed=6, steps=2, tasks_per_step=20))
    job = tmp_path_factory.mktemp("job")
    for level in ("level0", "level1"):
        shutil.copytree(one, job / level)
    return job


def said(job: Path, prog: str) -> str:
    return (f"{prog}: {job} holds 2 separate captures of the same cards: read {job / 'level0'}; "
            f"skipped {job / 'level1'} (give a capture's own folder to read it)")


def test_stats_names_the_capture_it_read_and_the_one_it_skipped(job, capsys):
    assert stats_main([str(job), "--quiet", "--no-cache"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert said(job, "timelineview stats") in err
    assert stats_main([str(job / "level1"), "--quiet", "--no-cache"]) == 0  # one capture: nothing to say
    assert "separate captures" not in capsys.readouterr().err


def test_diff_names_them_for_the_run_that_holds_two(job, capsys):
    diff_main([str(job), str(job / "level1"), "--quiet", "--no-cache"])
    err = capsys.readouterr().err.splitlines()
    assert said(job, "timelineview diff (base run)") in err
    assert not any(line.startswith("timelineview diff (new run)") for line in err)


@pytest.mark.skipif(importlib.util.find_spec("duckdb") is None, reason="the [api] extra is not installed")
def test_query_names_them(job, capsys):
    from timelineview.commands.query import query_main

    assert query_main([str(job), "select count(*) from cards", "--no-cache"]) == 0
    assert said(job, "timelineview query") in capsys.readouterr().err.splitlines()
