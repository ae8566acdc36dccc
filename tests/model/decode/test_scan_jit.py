"""The scanner's kernels: cached on the text of every module they are made of, and the key codes."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from timelineview.model.decode.scan import scan_codes, scan_jit
from timelineview.model.load.jit import scanner_available
from timelineview.provenance import text_digest

DECODE = scan_jit.DECODE_DIR
PACKAGE = "timelineview.model.decode"


def test_the_stamp_changes_with_any_file_and_only_then(tmp_path):
    files = tuple(tmp_path / f"m{k}.py" for k in range(3))
    for k, f in enumerate(files):
        f.write_text(f"X = {k}\n")
    first = text_digest(files)
    assert text_digest(files) == first
    files[1].write_text("X = 10\n")
    assert text_digest(files) != first
    files[1].write_text("X = 1\n")
    assert text_digest(files) == first
    files[2].unlink()
    assert text_digest(files) != first


def _decode_imports(path: Path) -> set[str]:
    """The decode package's modules ``path`` imports, by path in the package ("scan/byte_scan")."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE)):
            continue
        folder = node.module[len(PACKAGE):].lstrip(".").replace(".", "/")
        if (DECODE / f"{folder}.py").is_file():
            found.add(folder)
        else:  # "from <package>.scan import byte_scan"
            found |= {f"{folder}/{a.name}".lstrip("/") for a in node.names
                      if (DECODE / folder / f"{a.name}.py").is_file()}
    return found


def test_every_module_the_kernels_are_made_of_is_in_the_stamp():
    listed = set(scan_jit.KERNEL_MODULES)
    with_kernels = {p.relative_to(DECODE).with_suffix("").as_posix() for p in DECODE.rglob("*.py")
                    if "@jit\n" in p.read_text() or " = jit(" in p.read_text()}
    assert with_kernels and with_kernels <= listed
    for name in listed:
        assert _decode_imports(DECODE / f"{name}.py") <= listed, name


@pytest.mark.skipif(not scanner_available(), reason="numba is not installed")
def test_the_scanner_is_cached_under_that_stamp():
    from timelineview.model.decode.scan import byte_scan, numba_internals

    stamp = text_digest(tuple(DECODE / f"{name}.py" for name in scan_jit.KERNEL_MODULES))
    for kernel in (byte_scan._scan, byte_scan.skip_ws, byte_scan.find_string, byte_scan.next_object_start):
        assert numba_internals.cache_extra(kernel) == stamp


@pytest.mark.skipif(not scanner_available(), reason="numba is not installed")
def test_key_codes_by_hand():
    from timelineview.model.decode.scan.byte_scan_text import key_code

    s = scan_codes
    known = {"ph": s.KEY_PH, "name": s.KEY_NAME, "pid": s.KEY_PID, "tid": s.KEY_TID, "ts": s.KEY_TS,
             "dur": s.KEY_DUR, "cat": s.KEY_CAT, "id": s.KEY_ID, "bp": s.KEY_BP, "args": s.KEY_ARGS}
    near = ["p", "h", "pH", "hp", "tss", "t", "nam", "names", "Name", "arg", "args2", "pi", "di", "bpp", "cats",
            "du", "durr", "sid", "tidd", "Task Type", "", "ph ", " ph", "ts\u00e9"]
    assert len(set(known.values())) == len(known) and s.KEY_OTHER not in known.values()
    for key in list(known) + near:
        raw = b'"' + key.encode() + b'"'
        buf = np.frombuffer(bytearray(raw), dtype=np.uint8)
        assert key_code(buf, 1, len(raw) - 1) == known.get(key, s.KEY_OTHER), key


NUMBA_STREAMS_PROBE = """
import sys, types
import {module}
from numba.core import errors

rebound = []

class Watched(types.ModuleType):
    def __setattr__(self, name, value):
        if name in ("stdout", "stderr"):
            rebound.append(name)
        super().__setattr__(name, value)

sys.__class__ = Watched
errors.TypingError("a message numba would colour")  # what numba does on every failed typing attempt
sys.__class__ = types.ModuleType
print(",".join(rebound))
"""


def test_numba_never_rebinds_the_standard_streams():
    """numba colours its error messages with colorama, which swaps sys.stdout/sys.stderr for the time of each
    message and then puts back the streams it saw first. From a warm-up thread that undoes a redirection made
    meanwhile (a test's capsys, a caller's redirect_stderr), so a later message goes to the old stream. The
    project imports numba with that colouring off."""
    import os
    import subprocess
    import sys

    pytest.importorskip("numba")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"}
    probe = NUMBA_STREAMS_PROBE.format(module="timelineview.model.decode.scan.scan_jit")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.strip() == "", f"numba rebound sys.{done.stdout.strip()} while formatting an error"


def test_numba_is_imported_in_one_place():
    """Every module takes numba from ``scan_jit``, where its colouring is turned off before the import."""
    package = DECODE.parents[1]
    importers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "numba" or n.startswith("numba.") for n in names):
                importers.add(path.relative_to(package).as_posix())
    assert importers == {"model/decode/scan/scan_jit.py"}
