"""``query``'s text table escapes its header as it does its cells: a ``PIVOT`` makes column names of a trace's
names, which may hold terminal escapes."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import run_cli
from timelineview.synthetic import CardSpec, generate_card

pytest.importorskip("duckdb")

HOSTILE = "\x1b]0;owned\x07\x1b[2J"  # sets the terminal's title, then clears the screen


def test_pivot_headers_from_a_trace_are_escaped(tmp_path):
    trace = tmp_path / "run" / "ascend_timeline_display_0.json"
    trace.parent.mkdir()
    generate_card(trace, CardSpec(rank=0, steps=2, tasks_per_step=20), target_bytes=100_000)
    events = json.loads(trace.read_bytes())
    events = events["traceEvents"] if isinstance(events, dict) else events
    first = next(e for e in events if e.get("ph") == "X")
    events.append({**first, "name": HOSTILE, "args": {}})
    trace.write_text(json.dumps(events))
    sql = ("pivot (select name from slices where name like '%' || chr(27) || '%') on name using count(*)")
    out = run_cli("query", str(trace.parent), sql, "--no-cache")
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    header = out.stdout.splitlines()[0]
    assert "owned" in header and "\\x1b" in header  # escaped, still readable
