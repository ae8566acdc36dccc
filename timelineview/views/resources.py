"""Where the bundled resources live: inside the package, so an installed wheel has them too."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

PACKAGE = "timelineview"
RESOURCES = "resources"


def resource_path(*parts: str) -> Path | None:
    """A bundled resource as a path on disk, or None when the install holds none there (an install from a
    zip has no paths: the loader needs one)."""
    target = resources.files(PACKAGE).joinpath(RESOURCES, *parts)
    return target if isinstance(target, Path) and target.exists() else None


def sample_cluster_path() -> Path | None:
    """The bundled sample cluster folder, or None when it is not there."""
    path = resource_path("sample_cluster")
    return path if path is not None and path.is_dir() and any(path.iterdir()) else None
