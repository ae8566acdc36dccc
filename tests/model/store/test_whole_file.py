"""A cache file is written whole or not at all: the old content stays until the new one is complete."""

from __future__ import annotations

import os

import pytest

from timelineview.model.store.card_cache.whole_file import PARTIAL_PREFIX, write_whole


def test_the_pieces_replace_the_file_one_after_the_other(tmp_path):
    final = tmp_path / "record"
    final.write_bytes(b"old content, longer than the new")
    write_whole(final, [b"ab", memoryview(b"cd"), b""])
    assert final.read_bytes() == b"abcd"
    assert os.listdir(tmp_path) == ["record"]


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_partial(tmp_path):
    final = tmp_path / "record"
    final.write_bytes(b"old")

    def pieces():
        yield b"new start"
        raise RuntimeError("killed midway")

    with pytest.raises(RuntimeError):
        write_whole(final, pieces())
    assert final.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["record"]


def test_a_folder_that_cannot_hold_it_raises_oserror_and_creates_nothing(tmp_path):
    with pytest.raises(OSError):
        write_whole(tmp_path / "missing" / "record", [b"x"])
    assert os.listdir(tmp_path) == []


def test_the_temporary_file_is_named_for_the_cleaners(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_whole(tmp_path / "record", [b"x"])
    assert len(seen) == 1 and seen[0].startswith(PARTIAL_PREFIX)
