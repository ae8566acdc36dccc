"""A profiler database that is locked, half written, truncated, corrupt, of an unknown schema version or
missing tables loads without raising: the card's report says what and where, what could be read is
shown and counted, and the file and its folder are left as they were."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from timelineview import cli
from timelineview.analysis.summary import stats_document
from timelineview.commands.exit_codes import EXIT_OK
from timelineview.model import load
from timelineview.synthetic import CardSpec
from timelineview.synthetic.database import generate_database

NAME = "ascend_pytorch_profiler_0.db"


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> tuple[Path, dict]:
    """A generated card written as a database, and its stats."""
    folder = tmp_path_factory.mktemp("db")
    path = folder / NAME
    generate_database(path, CardSpec(steps=2))
    [store] = load(path)
    assert store.report.warnings == [] and not store.report.error
    return path, stats_document([store])["cards"][0]


def _copy(good, tmp_path: Path) -> Path:
    path = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / NAME
    path.parent.mkdir(parents=True)
    shutil.copyfile(good[0], path)
    return path


def _edit(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def _listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_size) for p in folder.iterdir())


def _load_one(path: Path):
    before = _listing(path.parent)
    [store] = load(path)
    assert _listing(path.parent) == before  # nothing written beside the user's data
    return store


def test_a_locked_database_is_read_as_it_is_with_a_warning(good, tmp_path):
    path = _copy(good, tmp_path)
    writer = sqlite3.connect(path, timeout=0)
    writer.execute("begin exclusive")
    try:
        store = _load_one(path)
    finally:
        writer.rollback()
        writer.close()
    assert any("locked by another process" in w for w in store.report.warnings)
    assert stats_document([store])["cards"][0]["compute_us"] == pytest.approx(good[1]["compute_us"])


@pytest.mark.parametrize("suffix", ["-journal", "-wal"])
def test_a_half_written_database_says_so_and_reads_the_file(good, tmp_path, suffix):
    path = _copy(good, tmp_path)
    Path(str(path) + suffix).write_bytes(b"\0" * 512)
    store = _load_one(path)
    assert any(f"half written: {NAME}{suffix} beside it" in w for w in store.report.warnings)
    assert len(store.slices) == good[1]["events"]
    assert any("read TASK (" in w for w in store.report.warnings)  # what was read, counted


def test_a_truncated_database_shows_what_can_still_be_read(good, tmp_path):
    path = _copy(good, tmp_path)
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    store = _load_one(path)
    warnings = " ".join(store.report.warnings) + store.report.error
    assert f"truncated: {size // 2:,} of the {size:,} bytes" in warnings
    doc = stats_document([store])["cards"][0]
    assert doc["events"] < good[1]["events"]  # the rest is gone, and said to be
    assert ("unreadable" in warnings) or ("damaged database" in warnings) or ("read TASK" in warnings)


def test_a_corrupt_database_is_a_message_not_a_crash(good, tmp_path):
    path = _copy(good, tmp_path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for at in range(2 * page, len(data), 3 * page):  # scramble every third page after the first two
        data[at:at + page] = bytes(range(256)) * (page // 256)
    path.write_bytes(bytes(data))
    store = _load_one(path)
    text = " ".join(store.report.warnings) + " " + store.report.error
    assert "unreadable" in text or "damaged database" in text or "malformed" in text, text


def test_a_file_that_is_not_a_database(tmp_path):
    path = tmp_path / NAME
    path.write_bytes(b"this is not SQLite at all" * 10)
    [store] = load(path)
    assert "not an SQLite database" in store.report.error and len(store.slices) == 0
    path.write_bytes(b"")
    [store] = load(path)
    assert store.report.error and len(store.slices) == 0


def test_an_unknown_schema_version_is_read_by_names_with_a_warning(good, tmp_path):
    path = _copy(good, tmp_path)
    _edit(path, "update META_DATA set value = '9.2.0' where name = 'SCHEMA_VERSION'")
    store = _load_one(path)
    assert any("schema version 9.2.0 is not one this reader knows" in w for w in store.report.warnings)
    assert stats_document([store])["cards"][0]["compute_us"] == pytest.approx(good[1]["compute_us"])
    _edit(path, "drop table META_DATA")
    store = _load_one(path)
    assert any("no SCHEMA_VERSION in META_DATA" in w for w in store.report.warnings)


def test_missing_tables_are_named_and_the_rest_is_shown(good, tmp_path):
    path = _copy(good, tmp_path)
    _edit(path, "drop table TASK")
    store = _load_one(path)
    assert any("TASK missing: no device task is shown" in w for w in store.report.warnings)
    names = {store.processes.name[p] for p in store.lanes.process}
    assert "Ascend Hardware" not in names and {"CANN", "Python", "HCCL"} <= names
    _edit(path, "drop table STRING_IDS")
    store = _load_one(path)
    assert any("STRING_IDS missing: names are shown as ids" in w for w in store.report.warnings)
    assert any(s.startswith("(unknown name #") for s in store.strings)


def test_a_column_missing_from_a_table_is_said(good, tmp_path):
    path = _copy(good, tmp_path)
    _edit(path, "alter table CANN_API drop column globalTid")
    store = _load_one(path)
    assert any("CANN_API lacks column(s) globalTid" in w for w in store.report.warnings)
    assert "CANN" not in {store.processes.name[p] for p in store.lanes.process}


def test_stats_on_a_damaged_database_exits_cleanly_and_says_why(good, tmp_path, capsys):
    path = _copy(good, tmp_path)
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 3)
    code = cli.stats_main([str(path), "--json"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    doc = json.loads(out.out) if code == EXIT_OK else None
    if doc is not None:
        assert any("truncated" in w for w in doc["cards"][0]["load"]["warnings"])
    else:
        assert "truncated" in out.err or "damaged" in out.err


def test_args_of_a_database_that_changed_since_the_load_are_refused(good, tmp_path):
    from timelineview.model.store.args_reader import TraceFileChanged
    path = _copy(good, tmp_path)
    store = _load_one(path)
    assert store.args(0) is not None
    _edit(path, "delete from TASK where rowid % 2 = 0")
    with pytest.raises(TraceFileChanged):
        store.args(0)
