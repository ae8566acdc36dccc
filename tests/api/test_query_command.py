"""``timelineview query``: the rows DuckDB answers over the API's tables, bad SQL as one line and exit 2,
Ctrl+C as 130, and ``--tables`` / docs/sql.md listing every column."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import orjson
import pytest

from tests.api.conftest import ROOT, run_cli
from timelineview.commands.exit_codes import EXIT_INTERRUPTED, EXIT_NOTHING_READABLE, EXIT_OK, EXIT_USAGE

# about 10^12 rows to join: runs far longer than the test waits
HANG_S = 120  # only stops a hung test
INTERRUPT_AGAIN_S = 0.2
ENDLESS = "select count(*) from range(1000000) a, range(1000000) b where a.range * b.range % 7 = 3"


def test_csv_rows_are_the_sums_of_the_store_columns(sample, sample_path):
    out = run_cli("query", str(sample_path), "select card, name, sum(dur_ns) as total, count(*) as n "
                  "from slices group by card, name", "--csv")
    assert out.returncode == EXIT_OK, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    got = {(r["card"], r["name"]): (int(r["total"]), int(r["n"])) for r in rows}
    want = {}
    for store in sample.stores:
        for i in np.unique(store.slices.name):
            mine = store.slices.name == i
            want[(store.card, store.strings[i])] = (int(store.slices.dur[mine].sum()), int(mine.sum()))
    assert got == want


def test_json_rows_of_an_analysis_table(sample_path, stats_json):
    out = run_cli("query", str(sample_path), "select card, step, dur_us from steps order by rank, step", "--json")
    assert out.returncode == EXIT_OK, out.stderr
    want = [{"card": c["card"], "step": s["step"], "dur_us": s["dur_us"]} for c in stats_json["cards"]
            for s in sorted(c["steps"], key=lambda s: s["step"])]
    assert orjson.loads(out.stdout) == want


def test_text_table_is_the_default(sample_path):
    out = run_cli("query", str(sample_path), "select link, bytes from links order by link limit 2")
    assert out.returncode == EXIT_OK, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["link", "bytes"] and set(lines[1]) <= {"-", " "}
    assert lines[-1] == "(2 rows)"


@pytest.mark.parametrize("sql, words", [
    ("selec name from slices", "syntax error"),
    ("select nope from slices", "nope"),
    ("select * from no_such_table", "no_such_table"),
])
def test_bad_sql_is_one_line_and_exit_2(sample_path, sql, words):
    out = run_cli("query", str(sample_path), sql)
    assert out.returncode == EXIT_USAGE
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("timelineview query: ") and words in line and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_usage_and_unreadable_input(tmp_path):
    out = run_cli("query", "select 1")
    assert out.returncode == EXIT_USAGE and "query" in out.stderr
    out = run_cli("query", str(tmp_path / "missing.json"), "select 1")
    assert out.returncode == EXIT_NOTHING_READABLE and len(out.stderr.strip().splitlines()) == 1


def test_tables_lists_every_column_and_docs_say_the_same():
    from timelineview.api.tables import TABLES

    out = run_cli("query", "--tables")
    assert out.returncode == EXIT_OK
    docs = (ROOT / "docs" / "sql.md").read_text(encoding="utf-8")
    for spec in TABLES.values():
        assert f"{spec.name}: " in out.stdout
        assert f"### `{spec.name}`" in docs
        for c in spec.columns:
            assert f"| `{c.name}` | `{c.type}` |" in docs.split(f"### `{spec.name}`")[1].split("### ")[0]


def interrupted(engine, query: str, before_interrupt=None) -> tuple[threading.Thread, dict]:
    """Run ``query`` on a thread and interrupt the engine until the thread ends (an interrupt that comes
    before the query has begun may find nothing to stop): the thread and what the query gave (``rows``, or
    ``cancelled`` with the exception). ``before_interrupt`` is waited for before the first interrupt."""
    from timelineview.api import QueryCancelled

    outcome = {}

    def run():
        try:
            outcome["rows"] = engine.rows(query)
        except QueryCancelled as exc:
            outcome["cancelled"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    if before_interrupt is not None:
        assert before_interrupt.wait(HANG_S)
    deadline = time.monotonic() + HANG_S
    while worker.is_alive() and time.monotonic() < deadline:
        engine.interrupt()
        worker.join(INTERRUPT_AGAIN_S)
    return worker, outcome


def test_engine_interrupt_cancels_a_running_query(sample):
    from timelineview.api import SqlEngine

    engine = SqlEngine(sample)
    worker, outcome = interrupted(engine, ENDLESS)
    assert not worker.is_alive() and "cancelled" in outcome
    assert engine.rows("select count(*) from slices").rows == [(sum(len(s.slices) for s in sample.stores),)]


def test_ctrl_c_interrupts_the_query_and_exits_130(sample_path, tmp_path):
    # the query begins once the run is loaded: wait for the cache file the load leaves, then for DuckDB
    env = {**os.environ, "TIMELINEVIEW_CACHE": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "timelineview", "query", str(sample_path), ENDLESS],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any((tmp_path / "cache").rglob("*")) and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(signal.SIGINT)  # during the load's last steps or the query: either way it ends
    _, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err


def test_without_the_extra_query_says_which_in_one_line(sample_path, tmp_path):
    (tmp_path / "duckdb.py").write_text("raise ImportError('not installed')\n")  # shadows the real one
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = subprocess.run([sys.executable, "-m", "timelineview", "query", str(sample_path), "select 1"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == EXIT_USAGE
    [line] = out.stderr.strip().splitlines()
    assert "duckdb" in line and "timelineview[api]" in line


def test_a_cancel_while_the_tables_are_built_stops_the_query(sample, monkeypatch):
    from timelineview.api import Session, SqlEngine

    session = Session(sample.stores)
    built = session.table

    engine = SqlEngine(session)
    building, interrupt_sent = threading.Event(), threading.Event()
    real_interrupt = engine.interrupt

    def interrupt():
        real_interrupt()
        interrupt_sent.set()

    def slow_table(name, card=None):
        building.set()  # a large card's table being built: it ends only once the interrupt came
        assert interrupt_sent.wait(HANG_S)
        return built(name, card)

    monkeypatch.setattr(session, "table", slow_table)
    monkeypatch.setattr(engine, "interrupt", interrupt)
    _, outcome = interrupted(engine, "select count(*) from slices", building)
    assert "cancelled" in outcome and "rows" not in outcome


@pytest.mark.parametrize("query", ["", "  ", ";"])
def test_an_empty_query_is_a_usage_error(sample_path, query):
    out = run_cli("query", str(sample_path), query)
    assert out.returncode == EXIT_USAGE and out.stdout == ""
    assert "the query is empty" in out.stderr


@pytest.mark.parametrize("command", ["stats", "query"])
@pytest.mark.parametrize("gap", ["-5", "nan", "inf", "x"])
def test_a_gap_threshold_that_is_not_one_is_a_usage_error(sample_path, command, gap):
    args = [command, str(sample_path), f"--min-gap-us={gap}"] + (["select 1"] if command == "query" else [])
    out = run_cli(*args)
    assert out.returncode == EXIT_USAGE and "--min-gap-us" in out.stderr and "Traceback" not in out.stderr
