"""Columns of one card summary: named numpy arrays in one uncompressed ``columns.npz`` next to the manifest.

An ``.npz`` is a zip of ``.npy`` files: ``numpy.load`` reads it with nothing else installed, keeps
dtypes and shapes exactly, and reads one member without the others. One file per card rather than
one per column: creating files dominated writing a summary (0.6 ms each here, ~45 per card), and a
shared file system holding thousands of cards counts files too. The manifest lists every column.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

COLUMNS_FILE = "columns.npz"


class ColumnWriter:
    """Collects a card's arrays, then writes them in one file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.arrays: dict[str, np.ndarray] = {}

    def put(self, name: str, array: np.ndarray) -> str:
        """Keep ``array`` as column ``name``; returns the name."""
        self.arrays[name] = np.ascontiguousarray(array)
        return name

    def close(self) -> dict[str, str]:
        """Write the columns; returns {column: its file} for the manifest."""
        np.savez(self.folder / COLUMNS_FILE, allow_pickle=False, **self.arrays)
        return {name: COLUMNS_FILE for name in self.arrays}


class ColumnReader:
    """Reads the columns a manifest names, one at a time (no file stays open: thousands of cards)."""

    def __init__(self, folder: Path, files: dict[str, str]) -> None:
        self.folder = folder
        self.files = files

    def __contains__(self, name: str) -> bool:
        return name in self.files

    def get(self, name: str) -> np.ndarray:
        with np.load(self.folder / self.files[name], allow_pickle=False) as z:
            return z[name]

    def get_many(self, names: list[str]) -> dict[str, np.ndarray]:
        """Several columns, each file opened once."""
        out: dict[str, np.ndarray] = {}
        for file in dict.fromkeys(self.files[n] for n in names):
            with np.load(self.folder / file, allow_pickle=False) as z:
                out.update({n: z[n] for n in names if self.files[n] == file})
        return out
