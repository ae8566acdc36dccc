"""A card's task reads each trace once: a card with no summary to reuse is loaded, and its key's digest of
every byte comes from the loader's reads (before, the key read the file whole and the load read it again).
Bytes read are counted by the kernel (``rchar`` of ``/proc/self/io``: every read call, page cache or not).
A task loads through the card cache unless told not to."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.kept import results
from timelineview.analysis.summaries.card_summary import MANIFEST
from timelineview.distributed.card_task import SUMMARY_FIELDS, summarize_cards, summary_key
from timelineview.model.load.loader import card_sources, load_cards
from timelineview.model.store.file_digest import BLOCK, WatchedFile, content_digest
from timelineview.synthetic import cluster_specs, generate_cluster

PROC_IO = Path("/proc/self/io")
CARD_BYTES = 8_000_000
SEAMS = 0.05  # what the digest reads again (blocks across the loader's range seams, head and tail) at most

pytestmark = pytest.mark.skipif(not PROC_IO.exists(), reason="counts bytes read with /proc/self/io")


def _read_so_far() -> int:
    return next(int(line.split()[1]) for line in PROC_IO.read_text().splitlines() if line.startswith("rchar:"))


@pytest.fixture(scope="module")
def job(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("read_once") / "job"
    generate_cluster(out, cluster_specs(2, seed=5, steps=4), "msprof", target_bytes=CARD_BYTES)
    return out


def _summarise(job: Path, out: Path, name: str, min_gap_ns: int = DEFAULT_MIN_GAP_NS,
               cache: bool = True) -> tuple[int, int, dict]:
    """(bytes of the card's trace, bytes this process read while summarising it, its manifest)."""
    source = card_sources(job)[1]
    out.mkdir(exist_ok=True)
    size = sum(f.stat().st_size for f in source.files)
    before = _read_so_far()
    [result] = summarize_cards([(source, name)], str(out), min_gap_ns, "run", cache=cache)
    read = _read_so_far() - before
    assert result.status == "ok", result.error
    return size, read, orjson.loads((out / name / MANIFEST).read_bytes())


def _load_and_analyse(job: Path) -> int:
    """Bytes read loading and analysing the card as its task does, without a key (the reads the task needs)."""
    before = _read_so_far()
    [store] = load_cards([card_sources(job)[1]], workers=1)
    analyse_card(store, SUMMARY_FIELDS)
    return _read_so_far() - before


def test_a_card_summarised_first_is_read_once(job, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    warm_up = card_sources(job)[0]  # imports, the scanner, the readers: not this card's reads
    (tmp_path / "s").mkdir()
    summarize_cards([(warm_up, "warm")], str(tmp_path / "s"), DEFAULT_MIN_GAP_NS, "run", cache=False)
    needed = _load_and_analyse(job)  # the file once, and the args the analysis reads from it
    size, read, manifest = _summarise(job, tmp_path / "s", "card", cache=False)
    assert size <= needed <= read <= needed + SEAMS * size  # before: the key read the whole file again
    assert manifest["key"] == summary_key(card_sources(job)[1], DEFAULT_MIN_GAP_NS)  # as a whole read gives it
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())  # cache=False


def test_a_card_task_reads_and_fills_the_card_cache(job, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(cache))
    _summarise(job, tmp_path / "s", "card")
    [entry] = [d for d in cache.iterdir() if not d.name.startswith(".")]  # the card went into the card cache,
    # its analysis beside it (beside the entries: the record of the load's keys, ``.known-keys``)
    assert (entry / "meta.json").exists() and any(p.name.startswith(results.PREFIX) for p in entry.iterdir())
    used = (entry / "meta.json").stat().st_mtime_ns
    # another gap threshold: no summary to reuse; the columns come from the cache, the file is read for the key
    size, read, again = _summarise(job, tmp_path / "s", "card", min_gap_ns=2 * DEFAULT_MIN_GAP_NS)
    assert (entry / "meta.json").stat().st_mtime_ns > used  # opened, not rebuilt
    assert size <= read < 2 * size
    assert again["key"] == summary_key(card_sources(job)[1], 2 * DEFAULT_MIN_GAP_NS)
    _, _, fresh = _summarise(job, tmp_path / "t", "card", min_gap_ns=2 * DEFAULT_MIN_GAP_NS, cache=False)
    for field in ("key", "steps", "comparison_steps", "t_origin", "t_end", "collective_ends", "derived"):
        assert again[field] == fresh[field], field


def test_the_digest_of_watched_reads_is_the_digest_of_the_file(tmp_path):
    path = tmp_path / "f.bin"
    data = bytes(range(256)) * (3 * BLOCK // 256 * 5 + 7)  # not a whole number of blocks
    path.write_bytes(data)
    watched = WatchedFile(str(path))
    for start, end in [(10, 2 * BLOCK + 5), (2 * BLOCK + 6, 9 * BLOCK), (9 * BLOCK + 1, len(data))]:
        watched.seen(start, memoryview(data)[start:end])  # reads with seams between them, as the loader's
    assert 0 < len(watched.blocks) < -(-len(data) // BLOCK)
    whole = watched.digest()
    assert whole == content_digest(path)
    changed = WatchedFile(str(path))
    path.write_bytes(data[:-1] + b"x")
    with pytest.raises(OSError):  # not the file it watched
        changed.digest()
    assert content_digest(path) != whole


def test_a_task_of_a_stopped_run_does_not_replace_a_later_runs_card(job, tmp_path):
    """A run stopped midway may leave tasks on the workers; a later run has written its index since: such a
    straggler's card is dropped, and the later run's card stays as it wrote it."""
    out = tmp_path / "s"
    out.mkdir()
    source = card_sources(job)[1]
    [later] = summarize_cards([(source, "card")], str(out), DEFAULT_MIN_GAP_NS, "later", cache=False)
    (out / "index.json").write_bytes(orjson.dumps({"kind": "timelineview summary", "run": "later", "cards": []}))
    written = (out / "card" / MANIFEST).read_bytes()
    (out / "card" / MANIFEST).unlink()  # so the straggler cannot reuse it: it writes a card of its own
    (out / "card" / MANIFEST).write_bytes(written.replace(b'"key"', b'"key_"', 1))
    [straggler] = summarize_cards([(source, "card")], str(out), DEFAULT_MIN_GAP_NS, "stopped", cache=False)
    assert later.status == "ok" and straggler.status != "ok" and "superseded" in straggler.error
    assert (out / "card" / MANIFEST).read_bytes() == written.replace(b'"key"', b'"key_"', 1)
    assert not [p for p in out.iterdir() if p.name.startswith(".partial-")]
