"""Load report: what a load read, what it dropped, and where."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePath

MAX_EXAMPLES = 50
EMPTY_CAPTURE = "no events in this capture"  # a card read without a problem that holds no event
FIRST_PLACES = 3  # places the one-line overview names
LISTED_WARNINGS = 5  # warnings the readable ``stats`` output lists per card; --json keeps them all
# the loader's warnings at a place: "PATH @ byte N[, event #K]: what"
_AT_PLACE = re.compile(r"(?P<path>.+?) @ byte (?P<offset>\d+)(?:, event #\d+)?: (?P<text>.*)", re.S)
_NOT_ITEMISED = re.compile(r"… and (\d+) more damaged stretch")  # a scan's count of the places it did not keep
_STRAY = re.compile(r"stray (?:bytes|'.')")  # skipped between events: no event lost
_UNREADABLE = "unreadable bytes"  # the place of a damaged event: counted among the dropped events


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
    truncated_why: str = ""  # what ended it when known (a .gz copy stopped at its expansion bound, damage)
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

    def count_dropped(self, reasons: Counter) -> None:
        """Add drops by reason without places (those past the examples kept)."""
        self.dropped.update(reasons)

    def warn(self, message: str) -> None:
        self.warn_all([message])

    def warn_all(self, messages: list[str]) -> None:
        """``warn`` each of ``messages``, in time linear in their number (a damaged file has thousands)."""
        seen = set(self.warnings)
        for message in messages:
            if message not in seen:
                seen.add(message)
                self.warnings.append(message)

    @property
    def read_whole_capture(self) -> bool:
        """Whether the input was a capture read whole: records were found (metadata at least), and nothing
        failed, was dropped or cut short. Such a card that holds no event is an empty capture, not an
        unreadable input (``[]`` or a lone ``]`` hold no record: they stay unreadable)."""
        return not (self.error or self.dropped or self.truncated) and any(self.counts_by_ph.values())

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
            self.truncated_why = other.truncated_why
        self.warn_all(other.warnings)
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
            warnings.insert(0, f"{self.truncated_path}: {self.truncation(', ')}")  # the saved form
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
            return f"{self.truncated_path} is {self.truncation()}"
        return self.warnings[0] if self.warnings else ""

    def truncation(self, sep: str = ": ") -> str:
        """"truncated: readable data ends at byte N", and what ended it when known."""
        why = f", where {self.truncated_why}" if self.truncated_why else ""
        return f"truncated{sep}readable data ends at byte {self.truncated_offset}{why}"

    def overview(self, card: str) -> str:
        """The report in one line for a terminal, the card's file named once: how many problems of each
        kind, then the first places ("" when there is nothing to say)."""
        if self.error:
            return without_card(card, self.error)
        places = {(p.path, p.offset) for p in self.examples if p.offset >= 0}
        strays: Counter = Counter()
        others: list[str] = []
        not_itemised = 0
        for warning in self.warnings:
            if self.truncated and self.truncated_why and self.truncated_why in warning:
                continue  # said with the truncation
            at = _AT_PLACE.fullmatch(warning)
            text = at["text"] if at else warning
            more = _NOT_ITEMISED.match(text)
            if more:
                not_itemised += int(more[1])
                continue
            if at:
                places.add((at["path"], int(at["offset"])))
            stray = _STRAY.match(text)
            if stray:
                strays[stray[0]] += 1
            elif not text.startswith(_UNREADABLE):
                own = at is not None and _names_card(at["path"], card)
                others.append(f"byte {at['offset']}: {text}" if own else without_card(card, warning))
        parts = []
        if self.dropped:
            (reason, _), *more_reasons = self.dropped.most_common()
            others_note = f" and {len(more_reasons)} other reason(s)" if more_reasons else ""
            parts.append(f"{_count(self.dropped_events, 'event')} dropped ({reason}{others_note})")
        for kind, n in strays.most_common():
            parts.append(f"{kind} skipped at {_count(n, 'place')}" + ("" if self.dropped else ", no event lost"))
        if self.truncated:
            named = "" if _names_card(self.truncated_path, card) else f"{self.truncated_path} "
            parts.append(f"{named}{self.truncation()}")
        parts.append(others[0] if len(others) == 1 else f"{len(others)} warnings" if others else "")
        parts = [p for p in parts if p]
        if not parts:
            return ""
        total = self.dropped_events + sum(strays.values()) + len(others) + int(self.truncated)
        line = (f"{total:,} problems: " if total > 1 else "") + ", ".join(parts)
        if not_itemised:
            line += f" ({not_itemised} more damaged stretch(es) not itemised)"
        return line + _places_text(sorted(places), card)

    def summary(self) -> str:
        """A few human-readable lines for a message box or the terminal."""
        lines = []
        if self.error:
            lines.append(self.error)
        if self.truncated:
            lines.append(f"{self.truncated_path} is {self.truncation()}.")
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


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _names_card(path: str, card: str) -> bool:
    """Whether ``path`` is the card's own file (a card of one file is named after it)."""
    return PurePath(path).name == card


def without_card(card: str, text: str) -> str:
    """``text`` without a leading "PATH: " that names the card's own file (the card is named already)."""
    head, sep, rest = text.partition(": ")
    return rest if sep and _names_card(head, card) else text


def card_line(card: str, text: str) -> str:
    """``card: text``, the card named once (texts of a one-file card often start with its path)."""
    head = text.partition(": ")[0]
    return text if head == card or _names_card(head, card) else f"{card}: {text}"


def _places_text(places: list[tuple[str, int]], card: str) -> str:
    """"; first at bytes 5046, 22137, 39440" (per file, each named once unless it is the card's own)."""
    if not places:
        return ""
    shown = places[:FIRST_PLACES]
    by_file: dict[str, list[int]] = {}
    for path, offset in shown:
        by_file.setdefault(path, []).append(offset)
    texts = []
    for path, offsets in by_file.items():
        named = "" if _names_card(path, card) else f"{path} "
        texts.append(f"{named}byte{'s' if len(offsets) > 1 else ''} {', '.join(str(o) for o in offsets)}")
    return f"; {'first at' if len(places) > len(shown) else 'at'} {'; '.join(texts)}"


def listed_warnings(warnings: list[str], path: str, limit: int = LISTED_WARNINGS) -> list[str]:
    """The first ``limit`` of a card's warnings for the readable output (without the card's own path, which
    its line names), then how many more there are."""
    prefix = f"{path} @ " if path else None
    lines = [f"warning at {w[len(prefix):]}" if prefix and w.startswith(prefix) else f"warning: {w}"
             for w in warnings[:limit]]
    if len(warnings) > limit:
        lines.append(f"… and {len(warnings) - limit} more warnings (stats --json lists them all)")
    return lines
