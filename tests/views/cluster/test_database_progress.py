"""Loading a folder of profiler databases, the comparison tab's progress says rows read, never megabytes
(a database's progress counts its tables' rows: 2 cards of some 10 000 rows read "0 of 0 MB")."""

from __future__ import annotations

import re

import pytest

from tests.views.main_window_fixture import open_and_wait
from timelineview.model.load.loader import load
from timelineview.synthetic.database import write_database
from timelineview.synthetic.generate import generate_card
from timelineview.synthetic.spec import CardSpec
from timelineview.viewstate.load_progress import ROWS


@pytest.fixture(scope="module")
def database_cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("dbs")
    root = base / "job"
    for rank in range(2):
        trace = base / f"trace{rank}.json"
        generate_card(trace, CardSpec(rank=rank, steps=2, tasks_per_step=200), "msprof")
        [store] = load(trace)
        out = root / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(parents=True)
        write_database(store, out / f"ascend_pytorch_profiler_{rank}.db", rank=rank)
    return root


def test_database_progress_is_in_rows(qtbot, window, database_cluster, monkeypatch):
    view = window.cluster.view
    seen: list[tuple] = []
    titles: list[str] = []
    progress = view.card_progress

    def watched(i, done, total, unit="bytes"):
        seen.append((i, done, total, unit))
        progress(i, done, total, unit)
        titles.append(view.loading_title.text())

    monkeypatch.setattr(view, "card_progress", watched)
    monkeypatch.setenv("TIMELINEVIEW_CACHE", "")
    open_and_wait(qtbot, window, database_cluster)
    assert len(window.timeline.cards) == 2
    assert seen and {unit for *_, unit in seen} == {ROWS}
    final = {i: (done, total) for i, done, total, _ in seen}  # each card's last word: all its rows read
    assert all(done == total > 1 for done, total in final.values())
    last = titles[-1]
    assert " MB" not in " ".join(titles)
    done = sum(d for d, _ in final.values())
    assert re.search(rf"{done:,} of {done:,} rows read".replace(",", " "), last), last
