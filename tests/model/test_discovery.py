"""Finding trace files in folders and grouping them into cards."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

from timelineview.model import find_cards, load

from .tracefile import dump_events, x_event


def write(path: Path, events: list[dict] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return dump_events(events or [x_event("k", 1, 1, 1.0, 1.0)], path)


def test_lone_file_is_one_card_with_rank_from_name(tmp_path):
    p = write(tmp_path / "ascend_timeline_display_3.json")
    [card] = find_cards(p)
    assert card.rank == 3 and card.label == "rank 3" and card.files == [p]


def test_rank_folder_names(tmp_path):
    write(tmp_path / "rank_0" / "profiler" / "trace_view.json")
    write(tmp_path / "rank-1_20240101_ascend_ms" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
    write(tmp_path / "rank2_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
    write(tmp_path / "PROF_1_20230818142704322_X" / "device_3" / "timeline" / "msprof_3_2_1.json")
    cards = find_cards(tmp_path)
    assert [c.rank for c in cards] == [0, 1, 2, 3]


def test_profiler_info_and_info_json_name_the_rank(tmp_path):
    d = tmp_path / "worker_a_ascend_ms"
    write(d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
    (d / "profiler_info_5.json").write_text("{}")
    dev = tmp_path / "PROF_1_20230818142704322_X" / "device_0"
    write(dev / "timeline" / "msprof_0_2_1.json")
    (dev / "info.json.0").write_text(json.dumps({"rank_id": 7}))
    assert sorted(c.rank for c in find_cards(tmp_path)) == [5, 7]


def test_per_iteration_files_merge_in_order_and_subsets_are_ignored(tmp_path):
    tl = tmp_path / "PROF_1_20230818142704322_X" / "device_0" / "timeline"
    for it in (1, 2, 10):
        write(tl / f"msprof_0_2_{it}.json", [x_event(f"it{it}", 1, 1, float(it), 1.0)])
        write(tl / f"task_time_0_2_{it}.json")
        write(tl / f"hccl_0_2_{it}.json")
        write(tl / f"step_trace_0_2_{it}.json")
    [card] = find_cards(tmp_path)
    assert [f.name for f in card.files] == ["msprof_0_2_1.json", "msprof_0_2_2.json", "msprof_0_2_10.json"]
    [store] = load(tmp_path)
    assert sorted(store.strings[int(n)] for n in store.slices.name) == ["it1", "it10", "it2"]
    assert len(store.paths) == 3


def test_newest_prof_folder_wins(tmp_path):
    write(tmp_path / "PROF_1_20230101000000000_A" / "device_0" / "timeline" / "msprof_0_2_1.json")
    new = write(tmp_path / "PROF_2_20240101000000000_B" / "device_0" / "timeline" / "msprof_0_2_1.json")
    [card] = find_cards(tmp_path)
    assert card.files == [new]


def test_one_kind_of_file_per_card(tmp_path):
    d = tmp_path / "rank_0"
    tv = write(d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
    write(d / "ascend_timeline_display_0.json")
    write(d / "PROF_1_20240101000000000_B" / "mindstudio_profiler_output" / "msprof_20240101000000.json")
    cards = find_cards(tmp_path)
    assert len(cards) == 1 and cards[0].files == [tv]


def test_flat_folder_of_ranks_and_gz(tmp_path):
    for r in (2, 0, 1):
        write(tmp_path / f"ascend_timeline_display_{r}.json", [x_event(f"r{r}", 1, 1, 1.0, 1.0, args={"r": r})])
    raw = (tmp_path / "ascend_timeline_display_1.json").read_bytes()
    (tmp_path / "ascend_timeline_display_1.json").unlink()
    with gzip.open(tmp_path / "ascend_timeline_display_1.json.gz", "wb") as f:
        f.write(raw)
    stores = load(tmp_path)
    assert [s.rank for s in stores] == [0, 1, 2]
    assert [s.strings[int(s.slices.name[0])] for s in stores] == ["r0", "r1", "r2"]
    assert stores[1].paths[0].name == "ascend_timeline_display_1.json.gz"
    assert stores[1].args(0) == {"r": 1}  # lazy args read the decompressed copy


def test_folder_without_traces_reports(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    [store] = load(tmp_path)
    assert len(store.slices) == 0 and "no trace files" in store.report.error


def test_a_json_left_aside_for_a_database_is_named_once(tmp_path):
    """A capture folder holding both the database and trace_view.json: the JSON is named once, as
    left aside for the database (not also among the card's problems)."""
    out = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    js = write(out / "trace_view.json")
    db = out / "ascend_pytorch_profiler_0.db"
    conn = sqlite3.connect(db)
    conn.execute("create table RANK_DEVICE_MAP (rankId integer, deviceId integer)")
    conn.execute("insert into RANK_DEVICE_MAP values (0, 0)")
    conn.commit()
    conn.close()
    [card] = find_cards(tmp_path)
    assert card.files == [db]
    named = [m for m in card.problems + card.skipped if m.startswith(str(js))]
    assert named == [f"{js}: not read: the database {db.name} of the same capture is read instead "
                     f"(exact integer ns times)"]
