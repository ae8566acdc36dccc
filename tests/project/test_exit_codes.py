"""Exit codes of ``stats`` and ``diff``: 0 loaded something, 1 nothing readable with a one-line
reason on stderr, 2 usage, 3 internal error in one line; never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from timelineview import cli
from timelineview.commands import diff
from timelineview.commands.exit_codes import EXIT_INTERNAL_ERROR, EXIT_NOTHING_READABLE, EXIT_OK, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[2]
EVENT = {"name": "a", "ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1}
NOTHING_READABLE = {
    "nested_empty": (b"[[]]", "stray '['"),
    "ts_not_numeric": (json.dumps([{**EVENT, "ts": "abc"}, {**EVENT, "ts": "x1"}]).encode(), "'ts' is not a number"),
    "unknown_phases": (json.dumps([{**EVENT, "ph": "Q"}, {**EVENT, "ph": "?"}]).encode(), "unknown phase"),
    "utf16_without_bom": (json.dumps([EVENT]).encode("utf-16-le"), "UTF-16"),
    "cut_in_first_event": (json.dumps([EVENT]).encode()[:20], "truncated"),
    "empty_array": (b"[]", "no events"),
    "only_bracket": (b"]", "only ']'"),
    "empty_file": (b"", "empty"),
}


def stderr_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


@pytest.mark.parametrize("case", sorted(NOTHING_READABLE))
def test_stats_on_nothing_readable_exits_1_with_one_line_why(tmp_path, capsys, case):
    content, why = NOTHING_READABLE[case]
    path = tmp_path / f"{case}.json"
    path.write_bytes(content)
    assert cli.stats_main([str(path), "--quiet"]) == EXIT_NOTHING_READABLE
    [line] = stderr_lines(capsys)
    assert line.startswith("timelineview stats: nothing readable:") and why in line, line


def test_stats_on_something_exits_0(tmp_path, capsys):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps([EVENT, {**EVENT, "ts": "bad"}]))
    assert cli.stats_main([str(path), "--quiet", "--json"]) == EXIT_OK
    out = capsys.readouterr()
    assert json.loads(out.out)["cards"][0]["events"] == 1
    [line] = [x for x in out.err.splitlines() if x.strip()]
    second = len("[" + json.dumps(EVENT) + ", ")  # where the dropped event starts (json.dumps' separators)
    assert line == f"ok.json: 1 event dropped ('ts' is not a number); at byte {second}"  # never a bare "dropped:"


def test_stats_usage_error_exits_2():
    with pytest.raises(SystemExit) as exc:
        cli.stats_main(["--no-such-option"])
    assert exc.value.code == EXIT_USAGE


def test_a_crash_is_one_line_and_exit_3(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps([EVENT]))

    def broken(*args, **kwargs):
        raise ValueError("a defect\nwith a second line")

    monkeypatch.setattr(cli, "stats_document", broken)
    assert cli.stats_main([str(path), "--quiet"]) == EXIT_INTERNAL_ERROR
    [line] = stderr_lines(capsys)
    assert "internal error: ValueError: a defect" in line and "Traceback" not in line


def test_diff_crash_and_nothing_readable(tmp_path, capsys, monkeypatch):
    good = tmp_path / "good.json"
    good.write_text(json.dumps([EVENT]))
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"]")
    assert diff.diff_main([str(good), str(empty)]) == EXIT_NOTHING_READABLE
    [line] = stderr_lines(capsys)
    assert "nothing readable in the new run" in line and "only ']'" in line

    def broken(*args, **kwargs):
        raise KeyError("x")

    monkeypatch.setattr(diff, "diff_runs", broken)
    assert diff.diff_main([str(good), str(good)]) == EXIT_INTERNAL_ERROR
    [line] = stderr_lines(capsys)
    assert "internal error: KeyError" in line


def test_the_process_says_why_in_one_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b"]")
    run = subprocess.run([sys.executable, "-m", "timelineview", "stats", str(path)], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == EXIT_NOTHING_READABLE
    assert run.stderr.strip().count("\n") == 0 and "only ']'" in run.stderr and "Traceback" not in run.stderr


def test_nothing_readable_names_the_path_once(tmp_path, capsys):
    """An empty folder: its name once in the reason (it was "empty_run: empty_run: …"), for stats and diff."""
    empty = tmp_path / "empty_run"
    empty.mkdir()
    good = tmp_path / "good.json"
    good.write_text(json.dumps([EVENT]))
    assert cli.stats_main([str(empty), "--quiet"]) == EXIT_NOTHING_READABLE
    [line] = stderr_lines(capsys)
    assert line.startswith("timelineview stats: nothing readable: ") and "no trace files found" in line, line
    assert line.count("empty_run") == 1, line
    assert diff.diff_main([str(empty), str(good)]) == EXIT_NOTHING_READABLE
    [line] = stderr_lines(capsys)
    assert line.startswith("timelineview diff: nothing readable in the base run: ") and line.count("empty_run") == 1
