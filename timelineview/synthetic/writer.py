"""Streaming JSON output: events are written batch by batch, never held for the whole file.

A ``Sink`` hands out text outputs by relative path: ``FileSink`` writes files under a root
folder, ``CountingSink`` only counts bytes (used to size a file before writing it). All text
is ASCII, so characters equal bytes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

_BUFFER = 1 << 22


class TextOut:
    """A write-only text output that counts what went through it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.bytes = 0
        self._f = open(path, "w", encoding="ascii", newline="", buffering=_BUFFER) if path else None

    def write(self, text: str) -> None:
        self.bytes += len(text)
        if self._f is not None:
            self._f.write(text)

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None

    def append_from(self, other: TextOut) -> None:
        """Append everything written to ``other`` (then discarded) to this output."""
        other.close()
        if self._f is not None and other.path is not None:
            with open(other.path, encoding="ascii", newline="") as src:
                shutil.copyfileobj(src, self._f, _BUFFER)
            other.path.unlink()
        self.bytes += other.bytes


class Sink:
    """Where a layout writes its files. ``root=None`` only counts bytes."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.outputs: list[TextOut] = []

    def open(self, relpath: str) -> TextOut:
        path = None
        if self.root is not None:
            path = self.root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
        out = TextOut(path)
        self.outputs.append(out)
        return out

    def temp(self, relpath: str) -> TextOut:
        """A scratch output next to ``relpath``, to be spliced into it with ``append_from``."""
        path = None if self.root is None else self.root / (relpath + ".part")
        return TextOut(path)

    @property
    def bytes(self) -> int:
        return sum(o.bytes for o in self.outputs)

    def paths(self) -> list[Path]:
        return [o.path for o in self.outputs if o.path is not None]


def pretty_event(line: str) -> str:
    """One event re-serialised with 2-space indentation, indented once more for the array."""
    text = orjson.dumps(orjson.loads(line), option=orjson.OPT_INDENT_2).decode()
    return "  " + text.replace("\n", "\n  ")


class JsonArrayWriter:
    """Writes ``prefix``, then events separated by ``sep``, then ``suffix``.

    ``prefix``/``suffix`` default to the array brackets; the ``object`` layout passes the
    text around ``"traceEvents": [`` instead. ``pretty`` puts each event on indented lines.
    """

    def __init__(self, out: TextOut, sep: str = ", ", pretty: bool = False,
                 prefix: str = "[", suffix: str = "]", fragment: bool = False) -> None:
        self.out = out
        self.pretty = pretty
        self.sep = ",\n" if pretty else sep
        self.events = 0
        if not fragment:
            out.write(prefix + ("\n" if pretty else ""))
        self._suffix = ("\n" if pretty else "") + suffix

    def add(self, lines: list[str]) -> None:
        if not lines:
            return
        if self.pretty:
            lines = [pretty_event(x) for x in lines]
        if self.events:
            self.out.write(self.sep)
        self.out.write(self.sep.join(lines))
        self.events += len(lines)

    def add_fragment(self, fragment: JsonArrayWriter) -> None:
        """Splice the events of a writer created with ``fragment_writer`` after ours."""
        if self.events and fragment.events:
            self.out.write(self.sep)
        self.out.append_from(fragment.out)
        self.events += fragment.events

    def close(self) -> None:
        self.out.write(self._suffix)
        self.out.close()


def fragment_writer(out: TextOut, like: JsonArrayWriter) -> JsonArrayWriter:
    """A bracket-less writer whose output can later be spliced into ``like``."""
    return JsonArrayWriter(out, like.sep, like.pretty, fragment=True)
