"""A campaign against the summary reader: ``stats DIR --json`` on a thousand and more tampered summary folders.

From a small real summary (a generated cluster summarised by a local Dask cluster of two workers) it makes
tampered copies — every file kind truncated, bytes flipped, files replaced by FIFOs, devices, links and
huge sparse files, paths redirected (absolute, ``..``, symbolic links), JSON fields deleted or retyped
(with and without the digests updated, as a forger would), column layouts with wrong dtypes, shapes and
offsets, cards of another run — runs ``python -m timelineview stats DIR --json`` on each under a
timeout and a memory limit, and tabulates what came of it. A run breaks the rules when it hangs, dies,
prints a traceback, exits 3, or changes the numbers without a word on stderr.

    python -m tests.commands.summary_tamper_campaign [--work DIR] [--jobs 2] [--limit N] [--seed 1]

``tests/commands/test_summary_tamper_campaign.py`` runs a sample of it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import orjson

TIMEOUT_S = 30.0
MEMORY_LIMIT = 3 << 30  # address space of a stats run: a read that grows without bound dies, and is counted
HUGE_SIZES = (300 << 20, 3 << 30)
CARD_FILES = ("card.json", "details.json", "columns.npz")
WORDS = ("summary not read", "not summarised", "summarised by", "incomplete summary", "not a readable summary",
         "another timelineview", "holds no card")
FIELD_VALUES: tuple = (None, "x", [], {}, -1, 1e308, 2 ** 70, True, "../../etc/passwd")


class Mutation(NamedTuple):
    """One way to tamper with a summary folder (``apply`` changes a copy in place)."""

    name: str
    family: str
    apply: Callable[[Path], None]


class Outcome(NamedTuple):
    mutation: str
    family: str
    verdict: str
    code: int | None
    seconds: float
    err: str


# ------------------------------------------------------------------------------------------------ helpers
def _digest(data: bytes) -> str:
    from timelineview.model.summary.guarded_files import digest

    return digest(data)


def _index(folder: Path) -> dict:
    return orjson.loads((folder / "index.json").read_bytes())


def _write_json(path: Path, doc) -> None:
    path.write_bytes(orjson.dumps(doc))


def _entries(folder: Path) -> list[dict]:
    return [c for c in _index(folder)["cards"] if c.get("status") == "ok"]


def _sign_card(folder: Path, card: str) -> None:
    """Record the card's manifest digest in the index (and its details' in the manifest), as a forger would."""
    manifest_path = folder / card / "card.json"
    manifest = orjson.loads(manifest_path.read_bytes())
    if isinstance(manifest, dict) and isinstance(manifest.get("details"), str) and "/" not in manifest["details"]:
        details = folder / card / manifest["details"]
        if details.is_file() and not details.is_symlink():
            manifest["details_digest"] = _digest(details.read_bytes())
            _write_json(manifest_path, manifest)
    index = _index(folder)
    for entry in index["cards"]:
        if entry.get("dir") == card:
            entry["manifest"] = _digest(manifest_path.read_bytes())
    _write_json(folder / "index.json", index)


def _replace(path: Path, make: Callable[[Path], None]) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    make(path)


def _truncate(rel: str, fraction: float) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / rel
        path.write_bytes(path.read_bytes()[:int(path.stat().st_size * fraction)])
    return apply


def _flip(rel: str, at: float, bit: int) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / rel
        raw = bytearray(path.read_bytes())
        raw[min(len(raw) - 1, int(len(raw) * at))] ^= 1 << bit
        path.write_bytes(bytes(raw))
    return apply


def _flip_column(card: str, column: str, bit: int) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        offset = orjson.loads((folder / card / "card.json").read_bytes())["column_layout"][column][0]
        path = folder / card / "columns.npz"
        raw = bytearray(path.read_bytes())
        if offset < len(raw):
            raw[offset] ^= 1 << bit
        path.write_bytes(bytes(raw))
    return apply


def _huge(rel: str, size: int) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        with open(folder / rel, "r+b") as f:
            f.truncate(size)  # sparse: no disk
    return apply


def _as(rel: str, make: Callable[[Path], None]) -> Callable[[Path], None]:
    return lambda folder: _replace(folder / rel, make)


def _edit_json(rel: str, change: Callable[[dict], None], sign_card: str | None) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / rel
        doc = orjson.loads(path.read_bytes())
        change(doc)
        path.write_text(json.dumps(doc))  # json: integers beyond 64 bits too
        if sign_card is not None:
            _sign_card(folder, sign_card)
    return apply


def _set(key: str, value) -> Callable[[dict], None]:
    return lambda doc: doc.__setitem__(key, value)


def _delete(key: str) -> Callable[[dict], None]:
    return lambda doc: doc.pop(key, None)


def _entry_set(card: str, key: str, value) -> Callable[[dict], None]:
    def change(index: dict) -> None:
        for entry in index["cards"]:
            if entry.get("dir") == card:
                entry[key] = value
    return change


def _layout_set(column: str, position: int, value) -> Callable[[dict], None]:
    def change(manifest: dict) -> None:
        entry = manifest["column_layout"][column]
        entry[position] = value(entry[position]) if callable(value) else value
    return change


def _other_run_card(other: Path, card: str) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        shutil.rmtree(folder / card)
        shutil.copytree(other / card, folder / card, symlinks=True)
    return apply


# ------------------------------------------------------------------------------------------ the mutations
def mutations(base: Path, other: Path, seed: int = 1) -> list[Mutation]:
    """Every tampering of the campaign, from the summary ``base`` (``other``: a summary of the same cards by
    another run)."""
    rng = random.Random(seed)
    cards = [e["dir"] for e in _entries(base)]
    chosen = [cards[0], cards[len(cards) // 2]]
    out: list[Mutation] = []
    files = ["index.json"] + [f"{c}/{f}" for c in chosen for f in CARD_FILES]
    for rel in files:
        for k in range(8):
            fraction = 0.0 if k == 0 else rng.random()
            out.append(Mutation(f"{rel} truncated to {fraction:.3f}", "truncated", _truncate(rel, fraction)))
        for _ in range(30):
            at, bit = rng.random(), rng.randrange(8)
            out.append(Mutation(f"{rel} bit {bit} flipped at {at:.4f}", "bytes flipped", _flip(rel, at, bit)))
        out.append(Mutation(f"{rel} a FIFO", "FIFO", _as(rel, os.mkfifo)))
        out.append(Mutation(f"{rel} a folder", "not a file", _as(rel, os.mkdir)))
        out.append(Mutation(f"{rel} removed", "removed", _as(rel, lambda p: None)))
        for target in ("/dev/zero", "/dev/urandom", "/etc/passwd", "/proc/self/mem"):
            out.append(Mutation(f"{rel} -> {target}", "symlink out", _as(rel, lambda p, t=target: p.symlink_to(t))))
        sibling = f"../{chosen[1] if rel.startswith(chosen[0]) else chosen[0]}/{Path(rel).name}"
        out.append(Mutation(f"{rel} -> {sibling}", "symlink out",
                            _as(rel, lambda p, t=sibling: p.symlink_to(t))))
        out.append(Mutation(f"{rel} -> other run", "mixed runs",
                            _as(rel, lambda p, r=rel: p.symlink_to(other / r))))
        for size in HUGE_SIZES:
            out.append(Mutation(f"{rel} grown to {size >> 20} MB", "huge", _huge(rel, size)))
    for card in chosen:  # whole card folders
        out.append(Mutation(f"{card}/ -> other run's", "mixed runs",
                            _as(card, lambda p, c=card: p.symlink_to(other / c))))
        out.append(Mutation(f"{card}/ copied from the other run", "mixed runs", _other_run_card(other, card)))
        out.append(Mutation(f"{card}/ -> /tmp", "symlink out", _as(card, lambda p: p.symlink_to("/tmp"))))
        out.append(Mutation(f"{card}/ a FIFO", "FIFO", _as(card, os.mkfifo)))
        out.append(Mutation(f"{card}/ a file", "not a file", _as(card, lambda p: p.write_bytes(b"{}"))))
        out.append(Mutation(f"{card}/ removed", "removed", _as(card, lambda p: None)))
    out += _json_mutations(base, other, chosen)
    return out


def _json_mutations(base: Path, other: Path, chosen: list[str]) -> list[Mutation]:
    out: list[Mutation] = []
    index = _index(base)
    for key in index:
        out.append(Mutation(f"index.json {key} deleted", "JSON fields", _edit_json("index.json", _delete(key), None)))
        for value in FIELD_VALUES:
            out.append(Mutation(f"index.json {key} = {value!r}", "JSON fields",
                                _edit_json("index.json", _set(key, value), None)))
    entry_keys = list(_entries(base)[0])
    card = chosen[0]
    for key in entry_keys:
        for value in (*FIELD_VALUES, "/tmp", "..", f"../{chosen[1]}", chosen[1]):
            out.append(Mutation(f"index entry {card}.{key} = {value!r}", "JSON fields",
                                _edit_json("index.json", _entry_set(card, key, value), None)))
    other_index = _index(other)
    out.append(Mutation("index.json run = the other run's", "mixed runs",
                        _edit_json("index.json", _set("run", other_index["run"]), None)))
    out.append(Mutation("index.json state = incomplete", "mixed runs",
                        _edit_json("index.json", _set("state", "incomplete"), None)))
    out.append(Mutation("index.json of the other run", "mixed runs",
                        lambda f: shutil.copyfile(other / "index.json", f / "index.json")))
    for c in chosen:
        out.append(Mutation(f"{c}: index entry run of the other run", "mixed runs",
                            _edit_json("index.json", _entry_set(c, "run", other_index["run"]), None)))
    manifest = orjson.loads((base / card / "card.json").read_bytes())
    for signed in (False, True):
        sign = card if signed else None
        tag = " (signed)" if signed else ""
        for key in manifest:
            out.append(Mutation(f"{card}/card.json {key} deleted{tag}", "JSON fields",
                                _edit_json(f"{card}/card.json", _delete(key), sign)))
            for value in FIELD_VALUES:
                out.append(Mutation(f"{card}/card.json {key} = {value!r}{tag}", "JSON fields",
                                    _edit_json(f"{card}/card.json", _set(key, value), sign)))
        for target in ("/dev/zero", "../details.json", f"../{chosen[1]}/details.json", "/etc/passwd", ""):
            out.append(Mutation(f"{card}/card.json details = {target!r}{tag}", "paths redirected",
                                _edit_json(f"{card}/card.json", _set("details", target), sign)))
        for target in ("/dev/urandom", "../columns.npz", f"../{chosen[1]}/columns.npz", "/proc/self/mem"):
            out.append(Mutation(f"{card}/card.json columns -> {target!r}{tag}", "paths redirected",
                                _edit_json(f"{card}/card.json",
                                           lambda m, t=target: m.__setitem__("columns", {n: t for n in m["columns"]}),
                                           sign)))
        out.append(Mutation(f"{card}/card.json run = other run's{tag}", "mixed runs",
                            _edit_json(f"{card}/card.json", _set("run", other_index["run"]), sign)))
        columns = sorted(manifest["column_layout"])
        picked = [c for c in columns if c.startswith(("comm.", "operators."))][:6] + columns[:2]
        for column in picked:
            for position, value in ((1, "<f8"), (1, "<i4"), (1, "|u1"), (1, "|O"), (1, "<U8"), (1, "V8"),
                                    (1, "not a dtype"), (2, [1 << 40]), (2, [-1]), (2, lambda s: [*s, 2]),
                                    (2, lambda s: [max(0, s[0] - 1)] if s else [1]), (0, lambda o: o + 8),
                                    (0, lambda o: o - 8), (0, 1 << 50), (3, lambda o: o + 1), (4, lambda c: c ^ 1),
                                    (4, "x")):
                shown = getattr(value, "__name__", None) and "f(...)" or repr(value)
                out.append(Mutation(f"{card} layout {column}[{position}] = {shown}{tag}", "wrong dtypes/layout",
                                    _edit_json(f"{card}/card.json", _layout_set(column, position, value), sign)))
    details = orjson.loads((base / card / "details.json").read_bytes())
    for key in details:
        for value in (None, "x", [], {}, -1):
            out.append(Mutation(f"{card}/details.json {key} = {value!r} (signed)", "JSON fields",
                                _edit_json(f"{card}/details.json", _set(key, value), card)))
    return out


# --------------------------------------------------------------------------------------------- running
def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_stats(folder: Path, timeout: float = TIMEOUT_S) -> tuple[int | None, bytes, str, float]:
    """(exit code or None on a timeout, stdout, stderr, seconds) of ``stats FOLDER --json`` in a new process."""
    env = {k: v for k, v in os.environ.items() if k != "TIMELINEVIEW_TRACEBACK"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    t0 = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "timelineview", "stats", str(folder), "--json"],
                              capture_output=True, timeout=timeout, env=env, preexec_fn=_limit_memory,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return None, exc.stdout or b"", (exc.stderr or b"").decode("utf-8", "replace"), time.perf_counter() - t0
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"), time.perf_counter() - t0


def verdict(code: int | None, out: bytes, err: str, baseline: bytes, forged: bool = False) -> str:
    """What a run came to; those starting "VIOLATION" break the rules. ``forged``: the digests were rewritten
    after the edit (no checksum can tell such a folder from one summarize wrote with those values)."""
    said = any(w in err for w in WORDS)
    if code is None:
        return "VIOLATION: hang (timeout)"
    if "Traceback (most recent call last)" in err:
        return "VIOLATION: traceback"
    if code == 3:
        return "VIOLATION: exit 3 (internal error)"
    if code < 0:
        return f"VIOLATION: killed by signal {-code}"
    if code == 1:
        return "exit 1, the reason on stderr" if err.strip() else "VIOLATION: exit 1 without a reason"
    if code == 0 and out == baseline:
        return "exit 0, output unchanged, a card said" if said else "exit 0, output unchanged (bytes not read by stats)"
    if code == 0:
        if "summary not read" in err or "not summarised" in err:
            return "exit 0, the card reported not read, the others printed"
        if said:
            return "exit 0, output changed, said on stderr"
        return "exit 0, forged values read as written" if forged else "VIOLATION: output changed without a word"
    return f"VIOLATION: exit {code}"


def run_one(mutation: Mutation, base: Path, work: Path, baseline: bytes) -> Outcome:
    folder = Path(tempfile.mkdtemp(prefix="t-", dir=work)) / "s"
    shutil.copytree(base, folder, symlinks=True)
    try:
        mutation.apply(folder)
        code, out, err, seconds = run_stats(folder)
    finally:
        shutil.rmtree(folder.parent, ignore_errors=True)
    forged = mutation.name.endswith("(signed)")
    return Outcome(mutation.name, mutation.family, verdict(code, out, err, baseline, forged), code, seconds,
                   err.strip().splitlines()[-1][:200] if err.strip() else "")


def make_summaries(work: Path) -> tuple[Path, Path]:
    """A generated cluster of 4 small cards summarised twice by one local Dask cluster of two workers (the
    second run after one card changed: a run whose cards are of another run id)."""
    from timelineview.distributed.summarize import local_client, summarize
    from timelineview.synthetic import cluster_specs, generate_cluster

    if (work / "base" / "index.json").exists() and (work / "other" / "index.json").exists():
        return work / "base", work / "other"  # made by an earlier campaign in this folder
    traces = work / "traces"
    shutil.rmtree(traces, ignore_errors=True)
    generate_cluster(traces, cluster_specs(4, seed=3, steps=3, slow_card=1), "msprof", target_bytes=200_000)
    client = local_client(2)
    try:
        summarize(traces, work / "base", client=client, progress=None, note=None)
        summarize(traces, work / "other-run-tmp", client=client, progress=None, note=None)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    other = work / "other"
    shutil.move(str(work / "other-run-tmp"), other)  # its own run: every card made again, another run id
    return work / "base", other


def campaign(base: Path, other: Path, work: Path, jobs: int = 2, limit: int | None = None, seed: int = 1,
             report: Callable[[int, int, Outcome], None] | None = None) -> list[Outcome]:
    """Run the mutations (``limit``: a spread sample of that many) on copies of ``base``."""
    code, baseline, err, _ = run_stats(base)
    if code != 0:
        raise RuntimeError(f"stats on the untouched summary: exit {code}: {err}")
    todo = mutations(base, other, seed)
    if limit is not None and limit < len(todo):
        todo = [todo[k * len(todo) // limit] for k in range(limit)]
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(jobs) as pool:
        for k, outcome in enumerate(pool.map(lambda m: run_one(m, base, work, baseline), todo)):
            outcomes.append(outcome)
            if report is not None:
                report(k + 1, len(todo), outcome)
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    """Outcomes by family and verdict, as a Markdown table."""
    families = sorted({o.family for o in outcomes})
    verdicts = sorted({o.verdict for o in outcomes})
    counts = collections.Counter((o.family, o.verdict) for o in outcomes)
    lines = ["| verdict | " + " | ".join(families) + " | all |", "|---" * (len(families) + 2) + "|"]
    for v in verdicts:
        row = [str(counts[(f, v)] or "") for f in families]
        lines.append(f"| {v} | " + " | ".join(row) + f" | {sum(counts[(f, v)] for f in families)} |")
    lines.append("| all | " + " | ".join(str(sum(counts[(f, v)] for v in verdicts)) for f in families)
                 + f" | {len(outcomes)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", help="working folder (default: a temporary one, removed)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, help="run a spread sample of this many mutations")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    work = Path(args.work or tempfile.mkdtemp(prefix="summary-campaign-"))
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    base, other = make_summaries(work)

    def say(k: int, n: int, o: Outcome) -> None:
        if o.verdict.startswith("VIOLATION") or k % 100 == 0:
            print(f"[{k}/{n}] {o.mutation}: {o.verdict} ({o.seconds:.1f} s) {o.err}", file=sys.stderr, flush=True)

    outcomes = campaign(base, other, work, args.jobs, args.limit, args.seed, say)
    print(table(outcomes))
    slowest = max(outcomes, key=lambda o: o.seconds)
    print(f"\n{len(outcomes)} tampered folders in {time.perf_counter() - t0:.0f} s; slowest stats run "
          f"{slowest.seconds:.1f} s ({slowest.mutation})")
    bad = [o for o in outcomes if o.verdict.startswith("VIOLATION")]
    for o in bad:
        print(f"VIOLATION {o.mutation}: {o.verdict}: {o.err}")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
