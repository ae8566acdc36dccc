"""What a command says on stderr while it loads: the progress on one line rewritten in place, and the
loader's notes (a first run: the scanner compiles after this load, in a process of its own) each once, on a
line of their own. Only on a terminal, and not with ``--quiet``."""

from __future__ import annotations

import sys

from timelineview.terminal_text import terminal_safe


def compile_goes_on(prog: str) -> str:
    """What the loader's first-run note gains: the compile outlives the command (model/load/jit.py)."""
    return f"; the compile goes on at idle priority after {prog} exits"


class TerminalLines:
    """The load's progress and notes of the command ``prog`` (e.g. "stats"), when ``enabled``."""

    def __init__(self, enabled: bool, prog: str = "stats") -> None:
        self.enabled = enabled
        self.suffix = compile_goes_on(prog)
        self.last = -1
        self.open = False  # a progress line without its newline yet
        self.said: set[str] = set()

    def progress(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        pct = int(100 * done / max(total, 1))
        if pct != self.last:
            self.last = pct
            print(f"\rloading… {pct:3d}% of {total / 1e6:,.1f} MB", end="", file=sys.stderr, flush=True)
            self.open = True
            if done >= total:
                self._end_line()

    def note(self, text: str) -> None:
        if self.enabled and text not in self.said:
            self.said.add(text)
            self._end_line()
            print(terminal_safe(text) + self.suffix, file=sys.stderr, flush=True)

    def _end_line(self) -> None:
        if self.open:
            print(file=sys.stderr)
            self.open = False
