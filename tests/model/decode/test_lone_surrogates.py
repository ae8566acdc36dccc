"""A lone UTF-16 surrogate escaped in JSON text (valid JSON, invalid Unicode) is shown as U+FFFD:
every text of the card encodes as UTF-8, and the load report counts the repaired texts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from timelineview.model import load

from ..tracefile import use_jit, x_event

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT.parent / "shared" / "samples" / "torch_npu" / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / \
    "trace_view.json"
LONE = "\\ud800"  # as JSON text: the escape, not the character
REPAIRED = "op\ufffdx"


def hostile_trace(path: Path) -> Path:
    """Names, a category, a lane, process and thread names, a counter and args holding a lone surrogate."""
    events = [
        f'{{"name": "process_name", "ph": "M", "pid": 1, "args": {{"name": "proc{LONE}"}}}}',
        f'{{"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {{"name": "thr{LONE}"}}}}',
        f'{{"name": "op{LONE}x", "ph": "X", "pid": 1, "tid": 2, "ts": 1, "dur": 2, "cat": "c{LONE}", '
        f'"args": {{"k{LONE}": "v{LONE}", "deep": [["w{LONE}"]]}}}}',
        f'{{"name": "op{LONE}x", "ph": "X", "pid": 1, "tid": "t{LONE}", "ts": 4, "dur": 1}}',
        f'{{"name": "mem{LONE}", "ph": "C", "pid": 1, "ts": 3, "args": {{"used{LONE}": 7}}}}',
        json.dumps(x_event("good", 1, 2, 10.0, 1.0)),
    ]
    path.write_text("[" + ",\n".join(events) + "]", encoding="ascii")
    return path


def all_texts(store) -> list[str]:
    texts = list(store.strings) + list(store.lanes.name) + list(store.processes.name)
    texts += list(store.counters.series_name) + list(store.counters.series_key)
    return [t for t in texts if isinstance(t, str)]


@pytest.mark.parametrize("jit", ["0", "1"])
def test_lone_surrogates_become_replacement_characters(tmp_path, monkeypatch, jit):
    use_jit(monkeypatch, jit)
    [store] = load(str(hostile_trace(tmp_path / "t.json")), workers=1, cache=False)
    texts = all_texts(store)
    for text in texts:
        text.encode("utf-8")  # raises on a lone surrogate
    assert REPAIRED in store.strings and "c\ufffd" in store.strings
    assert "thr\ufffd" in texts and "proc\ufffd" in texts and "mem\ufffd" in texts
    assert len(store.slices) == 3 and store.report.dropped_events == 0
    [warning] = [w for w in store.report.warnings if "surrogate" in w]
    # op x2 (one interned text), c, thr, proc, t (a lane's tid), mem, used: each distinct text once per table
    assert warning.startswith("7 text(s)"), warning
    [first] = [i for i in range(len(store.slices)) if int(store.slices.start[i]) == 1000]
    args = store.args(first)
    assert args == {"k\ufffd": "v\ufffd", "deep": [["w\ufffd"]]}
    orjson.dumps(args)


@pytest.mark.skipif(not SAMPLE.is_file(), reason="../shared/samples is absent")
def test_stats_and_diff_of_a_real_trace_with_one_lone_surrogate(tmp_path):
    data = SAMPLE.read_bytes()
    name = b'"name": "aclnnForeachAddListV2_ForeachAddListV2_ForeachAddList"'
    assert name in data
    hostile = tmp_path / "trace_view.json"
    hostile.write_bytes(data.replace(name, b'"name": "op\\ud800x"'))
    run = [sys.executable, "-m", "timelineview"]
    out = subprocess.run([*run, "stats", "--json", str(hostile)], capture_output=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert REPAIRED in {op["name"] for op in doc["cards"][0]["operators"]["by_name"]}
    assert any("surrogate" in w for w in doc["cards"][0]["load"]["warnings"])
    text = subprocess.run([*run, "stats", str(hostile)], capture_output=True, cwd=ROOT, timeout=300)
    assert text.returncode == 0 and REPAIRED in text.stdout.decode("utf-8"), text.stderr
    diff = subprocess.run([*run, "diff", str(SAMPLE), str(hostile)], capture_output=True, cwd=ROOT, timeout=300)
    assert diff.returncode == 0, diff.stderr
    assert REPAIRED in diff.stdout.decode("utf-8")
