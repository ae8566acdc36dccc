"""The background compile puts every set of compiled loops in numba's cache, not only the JSON scanner: the
first database read or memory CSV read of a later process then loads its kernels and compiles nothing."""

from __future__ import annotations

import ast
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import timelineview
from timelineview.model.load import jit
from timelineview.model.memory.csv_kernels import Kernels

PACKAGE = Path(timelineview.__file__).resolve().parent
SCAN_JIT = "timelineview.model.decode.scan.scan_jit"
# the modules that make numba work rather than hold kernels of their own
NUMBA_PLUMBING = {SCAN_JIT, "timelineview.model.decode.scan.numba_internals"}
CHILD_TIMEOUT_S = 300

# the background compile as ``compile_in_background`` runs it (this test waits: its launcher is idle), without
# the JSON scanner (20-30 s to compile; its own tests cover it)
COMPILE_CHILD = """
import sys
from timelineview.model.load import jit
from timelineview.model.memory.csv_kernels import Kernels
jit.SCANNER_KERNELS = ()
jit._compile_main(sys.argv[1])
"""

# a later process's first reads: a database table by the page reader and memory CSV files by the compiled
# loops; per dispatcher, what numba's cache served and what it had to compile
READ_CHILD = """
import json, sqlite3, sys
from pathlib import Path
from timelineview.model.database.sqlite import pages
from timelineview.model.memory import csv_files, csv_kernels, load_memory

pages.MIN_ROWS = 0
conn = sqlite3.connect(sys.argv[1])
read = pages.read_int_columns(conn, sys.argv[1], "T", ["rowid", "v"], narrow={"v"})
conn.close()
csv_files.COMPILED_MIN_BYTES = 0
csv_files.CHUNK_BYTES = 64  # rows of several blocks merged: the loops also read merged (read-only) texts
memory = load_memory([Path(sys.argv[2])])
kernels = csv_kernels.compiled()
dispatchers = {"decode": pages._kernels, **kernels._asdict()}
print(json.dumps({"rows": len(read[0]), "memory_rows": memory.report.rows_read,
                  "stats": {name: [sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())]
                            for name, d in dispatchers.items()}}))
"""

RECORD = ("Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type",
          "APP,{t}.920\t,,2109.6015625,,,NPU:0", "PTA,{t}.030\t,954.06787109375,1452.0,954.0678,897357296,NPU:0")
OPERATOR = ("Name,Size(KB),Allocation Time(us),Release Time(us),Stream Ptr,Device Type",
            "aten::empty,18816.5,{t}.810\t,{t}.900\t,123,NPU:0", '"cann::Sum,7",3072.0,{t}.860\t,,,NPU:0')
MODULE = ("Component,Timestamp(us),Total Reserved(MB),Device", "SLOG,{t}.5\t,0.0,NPU:0", "HCCL,{t}\t,404.0625,NPU:0")
MEMORY_ROWS = 40  # pairs of rows per file: several of the child's blocks


def _memory_card(folder: Path) -> Path:
    """A card folder with the three memory CSV files beside its trace; returns the trace's path."""
    folder.mkdir()
    for name, (header, *rows) in (("memory_record.csv", RECORD), ("operator_memory.csv", OPERATOR),
                                  ("npu_module_mem.csv", MODULE)):
        lines = [row.format(t=1736408883573957 + k) for k in range(MEMORY_ROWS) for row in rows]
        (folder / name).write_text("\n".join([header, *lines]) + "\n")
    trace = folder / "trace_view.json"
    trace.write_text("[]")
    return trace


def _database(path: Path, rows: int) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("create table T (id INTEGER PRIMARY KEY, v INTEGER)")
    conn.executemany("insert into T (v) values (?)", [(k * 7,) for k in range(rows)])
    conn.commit()
    conn.close()
    return path


def _run(code: str, *args: str, cache: Path) -> str:
    env = {**jit.compile_child_env(), "NUMBA_CACHE_DIR": str(cache), "TIMELINEVIEW_JIT": "1"}
    run = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True,
                         timeout=CHILD_TIMEOUT_S)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.skipif(not jit.scanner_available(), reason="numba is not installed")
def test_the_background_compile_caches_the_database_and_memory_kernels(tmp_path):
    cache = tmp_path / "numba-cache"
    lock = tmp_path / "compile.lock"
    lock.touch()
    _run(COMPILE_CHILD, str(lock), cache=cache)
    assert not lock.exists()
    assert list(cache.rglob("pages._decode-*.nbi")) and list(cache.rglob("csv_kernels.split_lines-*.nbi"))
    db = _database(tmp_path / "t.db", 1000)
    got = json.loads(_run(READ_CHILD, str(db), str(_memory_card(tmp_path / "card")), cache=cache))
    assert got["rows"] == 1000 and got["memory_rows"] == 6 * MEMORY_ROWS
    stats = got["stats"]
    assert set(stats) == {"decode", *Kernels._fields}
    compiled_here = {name: misses for name, (hits, misses) in stats.items() if misses}
    assert not compiled_here, f"compiled on first use despite the background compile: {compiled_here}"
    assert all(hits for hits, _ in stats.values()), stats  # every kernel was used, from the cache


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _imported_modules(path: Path) -> set[str]:
    """The package's modules ``path`` imports (``from a.b import c`` counts ``a.b`` and, if a module, ``a.b.c``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("timelineview"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("timelineview")}
    return found


def test_every_kernel_module_is_compiled_by_the_warm_up():
    """A module that takes numba (or ``jit``) from ``scan_jit`` holds kernels: it is a kernel set the warm-up
    compiles (listed in ``load.jit``, with a ``warm()``), or a part of one (a listed module imports it)."""
    modules = {_module_of(p): p for p in PACKAGE.rglob("*.py")}
    imports = {name: _imported_modules(path) & set(modules) for name, path in modules.items()}
    with_kernels = {name for name, found in imports.items() if SCAN_JIT in found} - NUMBA_PLUMBING
    listed = set(jit.SCANNER_KERNELS + jit.ON_DEMAND_KERNELS)
    assert listed <= set(modules)
    for name in listed:
        assert "def warm(" in modules[name].read_text(), name
        assert jit.kernel_file(name) == modules[name]
    reached, todo = set(), list(listed)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += imports[name] & with_kernels
    assert with_kernels and with_kernels <= reached, sorted(with_kernels - reached)
