"""Load report: what a load read, what it dropped, and where."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

MAX_EXAMPLES = 50


@dataclass
class Problem:
    """One dropped or repaired piece of input, with its place in the file."""

    path: str
    offset: int  # byte offset in the file (-1 if unknown)
    event: int  # event index within the file (-1 if unknown)
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}"
        if self.offset >= 0:
            where += f" @ byte {self.offset}"
        if self.event >= 0:
            where += f", event #{self.event}"
        return f"{where}: {self.reason}"


@dataclass
class LoadReport:
    """Counts by phase, drops with reasons, truncation and warnings for one card."""

    counts_by_ph: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # reason -> count
    examples: list[Problem] = field(default_factory=list)  # first MAX_EXAMPLES problems
    truncated: bool = False
    truncated_path: str = ""
    truncated_offset: int = -1  # byte offset where readable data ended
    warnings: list[str] = field(default_factory=list)
    duplicates_dropped: int = 0
    overlapping_slices: int = 0  # slices moved to extra rows (overlap without nesting)
    open_slices: int = 0  # unclosed B events drawn to the end
    bytes_read: int = 0
    error: str = ""  # fatal for this file: nothing readable

    def drop(self, reason: str, path: str = "", offset: int = -1, event: int = -1, n: int = 1) -> None:
        self.dropped[reason] += n
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(Problem(path, offset, event, reason))

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    @property
    def dropped_events(self) -> int:
        return sum(self.dropped.values())

    def merge(self, other: LoadReport) -> None:
        """Add another file's report into this one (files of one card)."""
        self.counts_by_ph.update(other.counts_by_ph)
        self.dropped.update(other.dropped)
        room = MAX_EXAMPLES - len(self.examples)
        self.examples.extend(other.examples[: max(room, 0)])
        if other.truncated and not self.truncated:
            self.truncated = True
            self.truncated_path = other.truncated_path
            self.truncated_offset = other.truncated_offset
        for w in other.warnings:
            self.warn(w)
        self.duplicates_dropped += other.duplicates_dropped
        self.overlapping_slices += other.overlapping_slices
        self.open_slices += other.open_slices
        self.bytes_read += other.bytes_read
        if other.error:
            self.error = "; ".join(x for x in (self.error, other.error) if x)

    def to_json(self) -> dict:
        """The ``load`` object of ``stats --json`` (metrics.md §5), plus detail keys."""
        warnings = list(self.warnings)
        if self.truncated:
            warnings.insert(
                0, f"{self.truncated_path}: truncated, readable data ends at byte {self.truncated_offset}"
            )
        if self.error:
            warnings.insert(0, self.error)
        return {
            "dropped_events": self.dropped_events,
            "truncated": self.truncated,
            "warnings": warnings,
            "truncated_offset": self.truncated_offset if self.truncated else None,
            "dropped_by_reason": dict(self.dropped),
            "duplicates_dropped": self.duplicates_dropped,
            "overlapping_slices": self.overlapping_slices,
            "open_slices": self.open_slices,
            "counts_by_ph": dict(self.counts_by_ph),
            "examples": [str(p) for p in self.examples],
        }

    def headline(self) -> str:
        """The report in one line with its reason ("" when there is nothing to say)."""
        if self.error:
            return self.error
        if self.dropped:
            (reason, _), *more = self.dropped.most_common()
            others = f" and {len(more)} other reason(s)" if more else ""
            return f"{self.dropped_events} event(s) dropped ({reason}{others})"
        if self.truncated:
            return f"{self.truncated_path} is truncated: readable data ends at byte {self.truncated_offset}"
        return self.warnings[0] if self.warnings else ""

    def summary(self) -> str:
        """A few human-readable lines for a message box or the terminal."""
        lines = []
        if self.error:
            lines.append(self.error)
        if self.truncated:
            lines.append(
                f"{self.truncated_path} is truncated: readable data ends at byte {self.truncated_offset}."
            )
        if self.dropped:
            lines.append(f"{self.dropped_events} event(s) dropped:")
            for reason, n in self.dropped.most_common(10):
                lines.append(f"  {n} × {reason}")
        if self.duplicates_dropped:
            lines.append(f"{self.duplicates_dropped} exact duplicate slice(s) dropped.")
        if self.overlapping_slices:
            lines.append(f"{self.overlapping_slices} slice(s) overlap without nesting: moved to extra rows.")
        if self.open_slices:
            lines.append(f"{self.open_slices} unclosed B event(s) drawn to the end of the trace.")
        lines.extend(self.warnings)
        if self.examples:
            lines.append("First problems:")
            lines.extend(f"  {p}" for p in self.examples[:10])
        return "\n".join(lines)
