"""Columns of one card summary: named numpy arrays as ``.npy`` files next to the JSON manifest.

``.npy`` needs nothing but numpy to read (``numpy.load``), keeps dtypes and shapes exactly, and
memory-maps; the manifest names every column, so a user's script can find them without this package.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def column_file(name: str) -> str:
    """File name of column ``name`` (dots kept: ``derived.compute.starts.npy``)."""
    return _UNSAFE.sub("_", name) + ".npy"


class ColumnWriter:
    """Writes arrays into one folder and remembers {name: file} for the manifest."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files: dict[str, str] = {}

    def put(self, name: str, array: np.ndarray) -> str:
        """Write ``array`` as column ``name``; returns the name."""
        file = column_file(name)
        np.save(self.folder / file, np.ascontiguousarray(array), allow_pickle=False)
        self.files[name] = file
        return name


class ColumnReader:
    """Reads the columns a manifest names (memory-mapped: a reader touches only what it draws)."""

    def __init__(self, folder: Path, files: dict[str, str]) -> None:
        self.folder = folder
        self.files = files

    def __contains__(self, name: str) -> bool:
        return name in self.files

    def get(self, name: str, mmap: bool = True) -> np.ndarray:
        return np.load(self.folder / self.files[name], mmap_mode="r" if mmap else None, allow_pickle=False)
