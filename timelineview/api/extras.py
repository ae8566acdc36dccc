"""The optional packages the Python and SQL API needs (the ``[api]`` extra), imported when first used."""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRA = "api"
INSTALL_HINT = f"pip install 'timelineview[{EXTRA}]'"


class MissingExtra(ImportError):
    """A package of the ``[api]`` extra is not installed; the message is one line that says how to get it."""


def require(module: str) -> ModuleType:
    """``module`` imported, or :class:`MissingExtra` naming the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(f"timelineview's Python and SQL API needs {module}, which is not installed: "
                           f"{INSTALL_HINT}") from exc
