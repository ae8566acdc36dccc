"""What a command says on stderr when a folder it reads holds several captures of the same cards: the one
read and the ones left aside, so that a reader of its numbers knows which capture they describe."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from timelineview.terminal_text import terminal_safe


def skipped_captures_lines(prog: str, paths: Sequence[str | os.PathLike]) -> list[str]:
    """One line per folder of ``paths`` holding several captures (none when each holds one)."""
    from timelineview.model.captures import capture_read, separate_captures
    from timelineview.model.load.loader import card_sources

    lines = []
    for path in paths:
        captures = separate_captures(path)
        if not captures:
            continue
        read = capture_read(captures, card_sources(path))
        skipped = [str(c) for c in captures if c != read]
        lines.append(f"{prog}: {path} holds {len(captures)} separate captures of the same cards: read {read}; "
                     f"skipped {', '.join(skipped)} (give a capture's own folder to read it)")
    return lines


def say_skipped_captures(prog: str, paths: Sequence[str | os.PathLike]) -> None:
    """Print :func:`skipped_captures_lines` on stderr (always: they are about the numbers, not progress)."""
    for line in skipped_captures_lines(prog, paths):
        print(terminal_safe(line), file=sys.stderr, flush=True)
