"""What the card cache tells the user: one plain line on stderr, once per process for each cause (a folder that
cannot be used, a disk short of room, a setting that is not a number). A load never fails for the cache; a Python
warning would print its source line beside the message."""

from __future__ import annotations

import sys

_said: set[str] = set()


def say_once(cause: str, line: str) -> None:
    """Print ``line`` on stderr unless a line for ``cause`` was printed already."""
    if cause in _said:
        return
    _said.add(cause)
    print(f"timelineview: {line}", file=sys.stderr, flush=True)
