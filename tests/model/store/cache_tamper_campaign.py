"""A campaign against the card cache: every file of a cache entry edited, cut, emptied, removed, made a
FIFO, a folder, a link to ``/dev/zero`` or a link loop, or made unreadable, then ``timelineview stats RUN
--json`` run on it under a timeout. The rule: the output equals ``stats --no-cache``'s (whatever was
said on stderr), or the run exits with a named refusal; never a hang, a traceback, exit 3 or another
output without a word.

Verdicts: ``same`` (nothing said), ``same, said`` (a word on stderr), ``refused`` (exit 1 or 2 with a
message), ``differs`` (another output, a word said), ``lied`` (another output, nothing said), ``crash``,
``hang``. Run as root, an unreadable file is readable (the count says so: root reads it as is).

    python -m tests.model.store.cache_tamper_campaign [--quick] [--jobs 2]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TIMEOUT_S = 90.0
QUICK_INPUTS = 8
FAILURES = ("lied", "crash", "hang")
VERDICTS = ("same", "same, said", "refused", "differs") + FAILURES
REPO = Path(__file__).resolve().parents[3]


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    if data:
        data[len(data) // 2] ^= 0x5A
    path.write_bytes(bytes(data))


def _digit(path: Path) -> None:
    """A digit changed in place (same size): a JSON file stays valid."""
    data = bytearray(path.read_bytes())
    at = next((k for k in range(len(data) // 2, len(data)) if 49 <= data[k] <= 56), None)
    if at is not None:
        data[at] += 1
    path.write_bytes(bytes(data))


def _replace(path: Path, make: Callable[[Path], None]) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    make(path)


FOLDER_MUTATIONS = ("removed", "fifo", "dev zero", "link loop", "unreadable")  # of the entry's folder itself
MUTATIONS: dict[str, Callable[[Path], None]] = {
    "flip": _flip,
    "digit": _digit,
    "half": lambda p: p.write_bytes(p.read_bytes()[:len(p.read_bytes()) // 2]),
    "empty": lambda p: p.write_bytes(b""),
    "garbage appended": lambda p: p.write_bytes(p.read_bytes() + bytes(range(256)) * 4),
    "removed": lambda p: _replace(p, lambda q: None),
    "fifo": lambda p: _replace(p, os.mkfifo),
    "folder": lambda p: _replace(p, os.mkdir),
    "dev zero": lambda p: _replace(p, lambda q: q.symlink_to("/dev/zero")),
    "link loop": lambda p: _replace(p, lambda q: q.symlink_to(q.name)),
    "unreadable": lambda p: p.chmod(0),
}


def _stats(run: Path, cache: Path, *extra: str) -> tuple[int | None, str, str]:
    env = {**os.environ, "TIMELINEVIEW_CACHE": str(cache)}
    try:
        proc = subprocess.run([sys.executable, "-m", "timelineview", "stats", str(run), "--json", *extra],
                              capture_output=True, text=True, timeout=TIMEOUT_S, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"
    return proc.returncode, proc.stdout, proc.stderr


def judge(run: Path, cache: Path, want: str) -> tuple[str, str]:
    code, out, err = _stats(run, cache)
    said = err.strip()
    if code is None:
        return "hang", ""
    if "Traceback" in err or code == 3 or code < 0:
        return "crash", f"exit {code}: {said[-200:]}"
    if code != 0:
        return ("refused", said[:120]) if said else ("crash", f"exit {code} without a word")
    if out == want:
        return ("same, said", said[:120]) if said else ("same", "")
    return ("differs", said[:120]) if said else ("lied", "output differs, nothing said")


def run(work: Path, quick: bool, jobs: int, seed: int = 1, limit: int = 0) -> list[dict]:
    from timelineview.synthetic import CardSpec, generate_card

    card = work / "run" / "ascend_timeline_display_0.json"
    card.parent.mkdir(parents=True)
    generate_card(card, CardSpec(rank=0, steps=3, tasks_per_step=40), target_bytes=200_000)
    pristine = work / "cache"
    code, want, err = _stats(card.parent, work / "unused", "--no-cache")
    assert code == 0, err
    code, warm, err = _stats(card.parent, pristine)  # fills the cache
    assert code == 0 and warm == want, err
    [entry] = [p for p in pristine.iterdir() if not p.name.startswith(".")]
    targets = sorted(p.name for p in entry.iterdir()) + ["."]
    cases = [(target, name) for target in targets for name in MUTATIONS
             if target != "." or name in FOLDER_MUTATIONS]
    if quick or limit:
        cases = random.Random(seed).sample(cases, min(len(cases), limit or QUICK_INPUTS))

    def one(k: int, target: str, name: str) -> dict:
        cache = work / f"c{k:04d}"
        shutil.copytree(pristine, cache, symlinks=True)
        MUTATIONS[name](cache / entry.name / target if target != "." else cache / entry.name)
        verdict, detail = judge(card.parent, cache, want)
        print(json.dumps({"name": f"{target}: {name}", "verdict": verdict}), file=sys.stderr, flush=True)
        for folder, _dirs, _files in os.walk(cache):  # what was made unreadable can be removed again
            os.chmod(folder, 0o755)
        return {"name": f"{target}: {name}", "verdict": verdict, "detail": detail}

    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda c: one(*c), [(k, *case) for k, case in enumerate(cases)]))


def table(outcomes: list[dict]) -> dict[str, int]:
    counts = collections.Counter(o["verdict"] for o in outcomes)
    return {"inputs": len(outcomes), **{v: counts.get(v, 0) for v in VERDICTS}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"a sample of {QUICK_INPUTS} inputs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0, help="a sample of this many inputs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cache-tamper-") as tmp:
        outcomes = run(Path(tmp), args.quick, args.jobs, args.seed, args.limit)
        for root, dirs, _files in os.walk(tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
    for o in outcomes:
        if o["verdict"] in FAILURES or o["verdict"] in ("differs", "refused"):
            print(f"{o['verdict']:10} {o['name']}: {o['detail']}")
    counts = table(outcomes)
    print(json.dumps(counts))
    return 1 if any(counts[v] for v in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
