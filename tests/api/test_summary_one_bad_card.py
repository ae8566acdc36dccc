"""A summary folder with one card damaged: ``query`` and ``open()`` read the others, as ``stats`` does, and say
which card was not read."""

from __future__ import annotations

import orjson
import pytest

from tests.api.conftest import run_cli

pytest.importorskip("distributed")
pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """A summary of three generated cards, rank 1's files cut short; the ranks whose summaries are intact."""
    from timelineview.distributed.summarize import summarize
    from timelineview.synthetic import cluster_specs, generate_cluster

    root = tmp_path_factory.mktemp("bad-card")
    generate_cluster(root / "job", cluster_specs(3, seed=5, steps=2, tasks_per_step=30), "msprof",
                     target_bytes=150_000)
    out = root / "summary"
    summarize(root / "job", out, workers=1, progress=None, note=None)
    index = orjson.loads((out / "index.json").read_bytes())
    entry = next(c for c in index["cards"] if c.get("rank") == 1)
    folder = out / entry["path"] if "path" in entry else next(p for p in out.iterdir() if p.is_dir() and "1" in p.name)
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        f.write_bytes(f.read_bytes()[: max(0, f.stat().st_size // 2)])
    return out


def test_query_reads_the_other_cards_and_names_the_bad_one(damaged):
    out = run_cli("query", str(damaged), "select distinct card from steps order by card", "--json")
    assert out.returncode == 0, out.stderr
    assert [r["card"] for r in orjson.loads(out.stdout)] == ["rank 0", "rank 2"]
    assert "rank 1" in out.stderr and "not read" in out.stderr


def test_open_reads_the_other_cards_and_names_the_bad_one(damaged):
    import timelineview

    with pytest.warns(UserWarning, match="rank 1: not read"):
        run = timelineview.open(damaged)
    assert [c.card for c in run.cards] == ["rank 0", "rank 2"]
    assert [u.card for u in run.unreadable] == ["rank 1"] and run.unreadable[0].why
    assert sorted(set(run.steps()["card"])) == ["rank 0", "rank 2"]
