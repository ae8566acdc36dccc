"""Where the bundled resources live."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def sample_cluster_path() -> Path | None:
    """The bundled sample cluster folder, or None when it is not there."""
    path = RESOURCES / "sample_cluster"
    return path if path.is_dir() and any(path.iterdir()) else None
