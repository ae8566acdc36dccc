"""``stats`` on a summary folder that was tampered with, mixed with another run, or made by other code: it
never hangs, never grows without bound, never exits 3, and says which file is wrong; one bad card is
reported failed while the others are printed (metrics.md §10)."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import orjson
import pytest

from tests.views.summary.conftest import summaries, traces  # noqa: F401 - the generated summaries, as fixtures
from timelineview import cli
from timelineview.commands.exit_codes import EXIT_NOTHING_READABLE, EXIT_OK
from timelineview.model.summary.guarded_files import digest

TIMEOUT_S = 20  # a FIFO or a device read would block or run for ever: the test fails instead
RANK = 3  # the card tampered with
MB = 1 << 20


def _stats(folder: Path, capsys) -> tuple[int, dict | None, list[str]]:
    """(exit code, the JSON document or None, the stderr lines) of ``stats FOLDER --json``."""
    def hang(*_):
        raise TimeoutError(f"stats on {folder} still running after {TIMEOUT_S} s")

    capsys.readouterr()
    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(TIMEOUT_S)
    try:
        code = cli.stats_main([str(folder), "--json"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out = capsys.readouterr()
    return code, orjson.loads(out.out) if out.out.strip() else None, [x for x in out.err.splitlines() if x.strip()]


def _copy(folder: Path, tmp_path: Path, name: str = "s") -> Path:
    out = tmp_path / name
    shutil.copytree(folder, out, symlinks=True)
    return out


def _index(folder: Path) -> dict:
    return orjson.loads((folder / "index.json").read_bytes())


def _entry(index: dict, rank: int = RANK) -> dict:
    return next(c for c in index["cards"] if c["rank"] == rank)


def _card(folder: Path, rank: int = RANK) -> Path:
    return folder / _entry(_index(folder), rank)["dir"]


def _edit_manifest(folder: Path, change, rank: int = RANK, sign: bool = True) -> None:
    """Change a card's manifest; ``sign``: record its new digest in the index, as a forger would."""
    path = _card(folder, rank) / "card.json"
    manifest = orjson.loads(path.read_bytes())
    change(manifest)
    path.write_bytes(orjson.dumps(manifest))
    if sign:
        index = _index(folder)
        _entry(index, rank)["manifest"] = digest(path.read_bytes())
        (folder / "index.json").write_bytes(orjson.dumps(index))


def _card_replaced(whole: Path, tmp_path: Path, put) -> tuple[Path, Path]:
    """(folder, card): a copy of the summary ``whole`` whose tampered card's folder was removed and ``put(card)``
    called to put something else at its path."""
    folder = _copy(whole, tmp_path)
    card = _card(folder)
    shutil.rmtree(card)
    put(card)
    return folder, card


def _ranks(doc: dict) -> list[int]:
    return sorted(c["rank"] for c in doc["cards"])


def _one_card_failed(code, doc, err, why: str) -> None:
    """The tampered card is named with why on stderr; the others are printed, exit 0."""
    assert code == EXIT_OK, err
    assert RANK not in _ranks(doc) and len(doc["cards"]) == 15
    said = [line for line in err if line.startswith(f"rank {RANK}: summary not read: ")]
    assert len(said) == 1 and why in said[0], err


# ------------------------------------------------------------------------------------- runs mixed
def test_a_card_of_another_run_is_reported_not_read(summaries, tmp_path, capsys):  # noqa: F811
    # the same card, written by the other run
    folder, card = _card_replaced(summaries.whole, tmp_path, lambda c: shutil.copytree(_card(summaries.one_failed), c))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"{card / 'card.json'}: its digest is not the one index.json records")


def test_a_card_of_another_run_whose_digest_was_copied_too_is_reported(summaries, tmp_path, capsys):  # noqa: F811
    folder, _ = _card_replaced(summaries.whole, tmp_path, lambda c: shutil.copytree(_card(summaries.one_failed), c))
    index = _index(folder)
    _entry(index)["manifest"] = _entry(_index(summaries.one_failed))["manifest"]
    (folder / "index.json").write_bytes(orjson.dumps(index))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, "made by run")


def test_a_card_made_by_other_code_is_said(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    _edit_manifest(folder, lambda m: m.update(code="0" * 16, version="0.0.9"))
    code, doc, err = _stats(folder, capsys)
    assert code == EXIT_OK and len(doc["cards"]) == 16
    said = [line for line in err if line.startswith(f"rank {RANK}: summarised by timelineview 0.0.9, code "
                                                    f"{'0' * 16}, this is timelineview ")]
    assert len(said) == 1, err


# --------------------------------------------------------------------------------- files not files
@pytest.mark.parametrize("name", ["card.json", "details.json", "columns.npz"])
def test_a_fifo_in_a_card_fails_that_card(summaries, tmp_path, capsys, name):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    path = _card(folder) / name
    path.unlink()
    os.mkfifo(path)
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"{path}: not a regular file (a FIFO)")


def test_a_fifo_as_the_index_is_exit_1(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    (folder / "index.json").unlink()
    os.mkfifo(folder / "index.json")
    code, doc, err = _stats(folder, capsys)
    assert code == EXIT_NOTHING_READABLE and doc is None
    assert err == [f"timelineview stats: {folder} is not a readable summary folder (its index.json: "
                   f"SummaryFileError: {folder / 'index.json'}: not a regular file (a FIFO))"]


def test_a_huge_index_is_not_read(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    with open(folder / "index.json", "r+b") as f:
        f.truncate(300 * MB)  # sparse: costs no disk
    code, doc, err = _stats(folder, capsys)
    assert code == EXIT_NOTHING_READABLE and "more than such a file may hold" in err[0]


# ------------------------------------------------------------------------------ paths that leave
@pytest.mark.parametrize("details", ["/dev/zero", "../rank_1/details.json", "/etc/passwd"])
def test_details_outside_the_card_are_refused(summaries, tmp_path, capsys, details):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    _edit_manifest(folder, lambda m: m.update(details=details))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"details file {details!r} is not a name inside the summary folder")


def test_details_as_a_link_to_dev_zero_is_refused(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    path = _card(folder) / "details.json"
    path.unlink()
    path.symlink_to("/dev/zero")
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"{path}: a symbolic link")


def test_a_card_folder_linked_to_another_summary_is_refused(summaries, tmp_path, capsys):  # noqa: F811
    """One card pointed at another summary showed "rank 1" twice."""
    folder, _ = _card_replaced(summaries.whole, tmp_path, lambda c: c.symlink_to(_card(summaries.whole, 1).resolve()))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, "a symbolic link or not a folder")


@pytest.mark.parametrize("where", ["../one-failed/rank_3", "/tmp", ".."])
def test_an_index_entry_outside_the_folder_is_refused(summaries, tmp_path, capsys, where):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    index = _index(folder)
    _entry(index)["dir"] = where
    (folder / "index.json").write_bytes(orjson.dumps(index))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"card folder {where!r} is not a name inside the summary folder")


def test_columns_pointing_at_dev_urandom_are_refused(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    _edit_manifest(folder, lambda m: m.update(columns={n: "/dev/urandom" for n in m["columns"]}))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, "column file '/dev/urandom' is not a name inside the summary folder")


# ------------------------------------------------------------------------------- bytes and types
def test_a_flipped_byte_in_a_table_column_fails_the_card(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    manifest = orjson.loads((_card(folder) / "card.json").read_bytes())
    offset = manifest["column_layout"]["comm.links.bytes"][0]
    path = _card(folder) / "columns.npz"
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0x10
    path.write_bytes(bytes(raw))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"{path}: column comm.links.bytes: its bytes do not match their CRC")


def test_a_wrong_dtype_in_the_layout_fails_the_card_even_when_signed(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    _edit_manifest(folder, lambda m: m["column_layout"]["comm.links.bytes"].__setitem__(1, "<f8"))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, "column comm.links.bytes: the file holds int64")


def test_an_edited_manifest_fails_the_card(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    _edit_manifest(folder, lambda m: m.update(rank=1), sign=False)  # "rank 1" twice
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, "its digest is not the one index.json records")


def test_edited_details_fail_the_card(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path)
    path = _card(folder) / "details.json"
    path.write_bytes(path.read_bytes().replace(b'"compute_us":', b'"compute_us":1'))
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"{path}: its digest is not the one card.json records")


def test_cards_left_out_are_named(summaries, tmp_path, capsys):  # noqa: F811
    """A card the index says failed, or gives a status no summary has, is named with why: never a silent gap."""
    code, doc, err = _stats(summaries.one_failed, capsys)
    failed = next(c for c in _index(summaries.one_failed)["cards"] if c["status"] == "failed")
    assert code == EXIT_OK and failed["rank"] not in _ranks(doc)
    assert f"{failed['card']}: not summarised: {failed['error']}" in err
    folder = _copy(summaries.whole, tmp_path)
    index = _index(folder)
    _entry(index)["status"] = "x"
    (folder / "index.json").write_bytes(orjson.dumps(index))
    code, doc, err = _stats(folder, capsys)
    assert code == EXIT_OK and RANK not in _ranks(doc)
    assert err == [f"rank {RANK}: not summarised: the index gives it status 'x'"]


def test_columns_cut_short_where_stats_does_not_read_are_said(summaries, tmp_path, capsys):  # noqa: F811
    """The pyramid lies at the end of columns.npz and stats does not read it; a file cut there is said anyway."""
    folder = _copy(summaries.whole, tmp_path)
    manifest = orjson.loads((_card(folder) / "card.json").read_bytes())
    last = max(manifest["column_layout"].values(), key=lambda e: e[0])
    path = _card(folder) / "columns.npz"
    path.write_bytes(path.read_bytes()[:last[0] + 1])
    code, doc, err = _stats(folder, capsys)
    _one_card_failed(code, doc, err, f"{path}: cut short or wrong layout")
