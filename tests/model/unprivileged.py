"""Run a loading snippet as an unprivileged user, in a child process.

Tests run as root here, and root reads a mode-000 file and writes a read-only folder: only
a process that is not root meets the ``PermissionError`` a user would. The child imports
and warms what it needs as root (the interpreter lives under /root, which others may not
read), then drops to ``nobody`` and runs the snippet, which prints one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

NOBODY = 65534
_PRELUDE = """
import json, os, shutil, sys, tempfile, warnings
from pathlib import Path
from timelineview.model import find_cards, load
with tempfile.TemporaryDirectory() as warm_dir:
    warm = Path(warm_dir) / "ascend_timeline_display_0.json"
    warm.write_text('[{"name":"k","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}]')
    for _ in range(2):  # a load that saves, then one from the cache: lazy imports happen now, as root
        load(warm, cache=warm.with_name("cache"))
if os.geteuid() == 0:
    os.setgid(NOBODY)
    os.setuid(NOBODY)
""".replace("NOBODY", str(NOBODY))


def shared_dir() -> Path:
    """A folder the unprivileged child can enter (pytest's tmp_path sits under a 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="timelineview-unprivileged-"))
    folder.chmod(0o755)
    return folder


def run_unprivileged(snippet: str, *args: str) -> dict:
    """Run ``snippet`` (after the prelude; ``sys.argv[1:]`` are ``args``) and return its JSON line."""
    env = {**os.environ, "TIMELINEVIEW_JIT": "0"}
    out = subprocess.run([sys.executable, "-c", _PRELUDE + snippet, *args], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])
