"""A campaign against the commands' search of a data folder: beside one valid card, an entry that cannot
be read as it looks — a FIFO, a link to ``/dev/zero``, a link loop, a folder or a socket named like a
trace or a profiler database, an unreadable file, a folder link to its own parent — then ``stats``,
``diff``, ``query`` and ``summarize`` on the folder, each under a timeout. The rule: every command ends
within its timeout with exit 0 (and a word on stderr naming what it did not read) or a named refusal
(exit 1, 2 or 4 with a message); never a hang, a traceback, exit 3 or a signal.

Verdicts: ``read, said``, ``read, nothing said`` (the entry was passed over without a word), ``refused``,
``crash``, ``hang``. Run as root, an unreadable file is readable.

    python -m tests.commands.data_path_campaign [--quick] [--jobs 2]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TIMEOUT_S = 120.0
FAILURES = ("crash", "hang")
VERDICTS = ("read, said", "read, nothing said", "refused") + FAILURES
REPO = Path(__file__).resolve().parents[2]
NAMES = ("ascend_timeline_display_1.json", "ascend_pytorch_profiler_1.db", "trace_view.json",
         "msprof_1.db", "operator_memory.csv")


def _socket(path: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


ENTRIES: dict[str, Callable[[Path], None]] = {
    "fifo": os.mkfifo,
    "dev zero": lambda p: p.symlink_to("/dev/zero"),
    "link loop": lambda p: p.symlink_to(p.name),
    "dangling link": lambda p: p.symlink_to("/nonexistent/x"),
    "folder": os.mkdir,
    "socket": _socket,
    "unreadable": lambda p: (p.write_bytes(b"[]"), p.chmod(0)),
    "empty": lambda p: p.write_bytes(b""),
}
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "stats": lambda d: ["stats", str(d), "--json"],
    "diff": lambda d: ["diff", str(d), str(d)],
    "query": lambda d: ["query", str(d), "select count(*) from slices"],
    "summarize": lambda d: ["summarize", str(d), "--out", str(d.parent / "summary"), "--workers", "1"],
}


def judge(command: list[str], entry: str, cwd: Path) -> tuple[str, str]:
    env = {**os.environ, "TIMELINEVIEW_CACHE": str(cwd / "cache")}
    try:
        proc = subprocess.run([sys.executable, "-m", "timelineview", *command], capture_output=True, text=True,
                              timeout=TIMEOUT_S, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return "hang", ""
    err = proc.stderr.strip()
    code = proc.returncode
    if "Traceback" in err or code == 3 or code < 0:
        return "crash", f"exit {code}: {err[-200:]}"
    if code != 0:
        return ("refused", err[:160]) if err else ("crash", f"exit {code} without a word")
    return ("read, said", err[:160]) if entry in err else ("read, nothing said", err[:160])


def run(work: Path, quick: bool, jobs: int, commands: list[str]) -> list[dict]:
    from timelineview.synthetic import CardSpec, generate_card

    valid = work / "valid"
    generate_card(valid / "ascend_timeline_display_0.json", CardSpec(rank=0, steps=2, tasks_per_step=20),
                  target_bytes=100_000)
    cases = [(kind, name) for kind in ENTRIES for name in NAMES]
    cases.append(("parent link", "loop"))
    if quick:
        cases = [("fifo", "ascend_pytorch_profiler_1.db"), ("link loop", "trace_view.json"),
                 ("folder", "ascend_timeline_display_1.json")]
        commands = ["stats"]

    def one(k: int, kind: str, name: str, command: str) -> dict:
        case = work / f"case{k:04d}"
        data = case / "data"
        shutil.copytree(valid, data)
        if kind == "parent link":
            (data / name).symlink_to("..")
        else:
            ENTRIES[kind](data / name)
        verdict, detail = judge(COMMANDS[command](data), name, case)
        return {"name": f"{command} / {kind} {name}", "verdict": verdict, "detail": detail}

    todo = [(k, kind, name, command) for k, (kind, name, command) in
            enumerate((kind, name, command) for kind, name in cases for command in commands)]
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda c: one(*c), todo))


def table(outcomes: list[dict]) -> dict[str, int]:
    counts = collections.Counter(o["verdict"] for o in outcomes)
    return {"inputs": len(outcomes), **{v: counts.get(v, 0) for v in VERDICTS}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="three entries, stats only")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--commands", default=",".join(COMMANDS))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="data-paths-") as tmp:
        outcomes = run(Path(tmp), args.quick, args.jobs, args.commands.split(","))
        for root, dirs, files in os.walk(tmp):
            for name in dirs + files:
                path = os.path.join(root, name)
                if not os.path.islink(path):
                    os.chmod(path, 0o755)
    for o in outcomes:
        if o["verdict"] != "read, said":
            print(f"{o['verdict']:18} {o['name']}: {o['detail']}")
    counts = table(outcomes)
    print(json.dumps(counts))
    return 1 if any(counts[v] for v in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
