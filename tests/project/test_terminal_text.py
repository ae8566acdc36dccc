"""Readable outputs escape the control characters of names and paths from a trace: a trace cannot clear the
screen, set the window title, recolour it or forge lines. JSON output keeps the names as they are."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.model.tracefile import dump_events, x_event
from timelineview.terminal_text import terminal_safe

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["\x1b]0;title\x07op", "clear\x1b[2J", "cr\rFORGED", "nl\nFORGED", "\u202eevil", "c1\x9b31m", "del\x7f"]
# what may reach a terminal: printable text and the newlines of the output's own lines
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def hostile_trace(path: Path) -> Path:
    events = [{"name": "process_name", "ph": "M", "pid": 10, "args": {"name": "Ascend Hardware"}}]
    events += [x_event(name, 10, 2, 10.0 * k, 5.0, args={"Task Type": "AI_CORE"}) for k, name in enumerate(HOSTILE)]
    events += [x_event("hcom_allReduce_\x1b[31m", 10, 3, 1.0, 30.0)]
    return dump_events(events, path)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "timelineview", *args], capture_output=True, cwd=ROOT, timeout=300)


def assert_terminal_safe(data: bytes) -> str:
    text = data.decode("utf-8")
    assert not UNSAFE.search(text), UNSAFE.search(text)
    assert not any(line.startswith("FORGED") for line in text.split("\n"))
    return text


def test_the_escape_forms():
    assert terminal_safe("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert terminal_safe("a\rb\nc\td") == "a\\rb\\nc\\td"
    assert terminal_safe("x\x9b\x7f\x00") == "x\\x9b\\x7f\\x00"
    assert terminal_safe("\u202eevil\u2066") == "\\u202eevil\\u2066"
    assert terminal_safe("one\ntwo\x1b", lines=True) == "one\ntwo\\x1b"
    assert terminal_safe("plain µs — 名前 C:\\path") == "plain µs — 名前 C:\\path"


def test_stats_text_escapes_names_and_paths(tmp_path):
    folder = tmp_path / "run\x1b[2J"
    folder.mkdir()
    path = hostile_trace(folder / "trace_view.json")
    out = run("stats", str(path))
    assert out.returncode == 0, out.stderr
    text = assert_terminal_safe(out.stdout)
    assert "clear\\x1b[2J" in text and "\\u202eevil" in text and "nl\\nFORGED" in text
    assert "run\\x1b[2J" in text  # the path, in the Files section
    assert_terminal_safe(out.stderr)


def test_stats_json_keeps_the_names(tmp_path):
    path = hostile_trace(tmp_path / "trace_view.json")
    out = run("stats", "--json", str(path))
    assert out.returncode == 0, out.stderr
    names = {op["name"] for op in json.loads(out.stdout)["cards"][0]["operators"]["by_name"]}
    assert "clear\x1b[2J" in names and "nl\nFORGED" in names


def test_diff_text_escapes_names(tmp_path):
    base = hostile_trace(tmp_path / "base.json")
    new = tmp_path / "new.json"
    new.write_text(base.read_text().replace('"dur":5.0', '"dur":7.0'))
    out = run("diff", str(base), str(new))
    assert out.returncode == 0, out.stderr
    text = assert_terminal_safe(out.stdout)
    assert "clear\\x1b[2J" in text


def test_error_lines_escape_the_path(tmp_path):
    path = tmp_path / "gone\x1b]0;t\x07.json"
    path.write_text("not json at all")
    out = run("stats", str(path))
    assert out.returncode == 1
    text = assert_terminal_safe(out.stderr)
    assert "gone\\x1b]0;t\\x07.json" in text


def test_summarize_progress_lines_escape_the_card(capsys):
    from timelineview.distributed import summarize
    from timelineview.distributed.card_task import CardResult

    result = CardResult(card="rank\x1b[2J", rank=0, dir="rank0", status="failed", error="bad\rFORGED",
                        worker="0 tcp://127.0.0.1:1", seconds=0.5)
    summarize._print_progress(1, 2, result)
    summarize._print_note("note\x1b[31m")
    assert_terminal_safe(capsys.readouterr().err.encode("utf-8"))


def test_the_headless_window_escapes_what_it_prints(tmp_path):
    bad = tmp_path / "bad\x1b[2J.json"
    bad.write_text("not json at all")
    run = subprocess.run([sys.executable, "-m", "timelineview", str(bad), "--screenshot", str(tmp_path / "x.png")],
                         cwd=ROOT, capture_output=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    text = assert_terminal_safe(run.stderr)
    assert "Nothing to show" in text and "bad\\x1b[2J.json" in text
