"""SummarySession: the reader of a summary folder (metrics.md §10), and the analysis over its cards.

It reads the index and the card summaries that ``timelineview summarize`` wrote (index checks, failed
cards, code stamps, tables read in one pass, progress) and yields one
:class:`~timelineview.analysis.sources.SummarySource` per card read. The cross-card results — clock
offsets, the §5 documents, slow cards, links and slow links, the cluster comparison, findings — are
the :class:`~timelineview.analysis.session.AnalysisSession`'s over those sources, the same code as
over loaded traces; none is computed here. No trace is read. No Qt.

A folder is one run of ``summarize`` or it says it is not: the index names its run and its state
(``incomplete`` from the run's start until the index is replaced at its end), and per card the run that
made it and its manifest's digest; a card that is not that card is reported failed, and an index that is
incomplete, of another format or damaged is :class:`UnreadableSummary`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson

from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.sources import SummarySource
from timelineview.analysis.summaries.card_summary import SummaryCard, read_indexed_card
from timelineview.analysis.summaries.code_stamp import current_stamp
from timelineview.model.summary.columns import ColumnReader
from timelineview.model.summary.guarded_files import INDEX_MAX_BYTES, SummaryFileError, read_inside
from timelineview.model.summary.json_weight import check_json_weight

INDEX = "index.json"
INDEX_KIND = "timelineview summary"
INDEX_FORMAT = 2  # 2: a run id and a state; per card the run that made it and its manifest's digest
COMPLETE, INCOMPLETE = "complete", "incomplete"
OK = "ok"
UNREADABLE = "unreadable"  # the index says ok, but the card's manifest cannot be read (tolerant sessions)
# an index holds a few hundred values per card and its cluster results (per step and pair of cards): this many is
# far beyond a summary of thousands of cards, and parses in seconds
INDEX_MAX_VALUES = 20_000_000
TABLE_COLUMNS = ("comm.", "operators.")  # the column prefixes of a card's operator and communication tables

Progress = Callable[[int, int], None]  # (cards done, cards in all); it may raise to stop the reading


def is_summary_folder(path: str | Path) -> bool:
    """Does ``path`` hold a summary index."""
    try:
        doc = read_index(path)
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("kind") == INDEX_KIND


def looks_like_summary(path: str | Path) -> bool:
    """A summary folder, or one whose index cannot be read at all (damaged, cut short, not a regular file):
    opening it says what is wrong with the index rather than that it holds no trace. An index of another
    kind is not, nor a folder without one."""
    if not (Path(path) / INDEX).exists() and not (Path(path) / INDEX).is_symlink():
        return False
    try:
        doc = read_index(path)
    except (SummaryFileError, orjson.JSONDecodeError):
        return True
    except OSError:
        return False
    return isinstance(doc, dict) and doc.get("kind") == INDEX_KIND


def read_index(folder: str | Path) -> dict:
    """The index of a summary folder (a regular file of bounded size; ``SummaryFileError`` otherwise)."""
    data = read_inside(Path(folder), (INDEX,), INDEX_MAX_BYTES)
    check_json_weight(data, INDEX_MAX_VALUES, str(Path(folder) / INDEX))
    return orjson.loads(data)


class UnreadableSummary(ValueError):
    """A summary folder whose index cannot be read; the message says why in one line (window and ``stats``)."""


def read_checked_index(folder: str | Path) -> dict:
    """The index of a summary folder, checked to be a complete run of this format holding a list of cards
    (else :class:`UnreadableSummary`, whose message starts "incomplete summary (" for a run that did not
    finish or is still running)."""
    try:
        index = read_index(folder)
        if not isinstance(index, dict) or index.get("kind") != INDEX_KIND:
            raise ValueError("it is not a summary's index")
    except (OSError, ValueError) as exc:  # orjson's decode error is a ValueError
        raise UnreadableSummary(f"{folder} is not a readable summary folder (its index.json: "
                                f"{type(exc).__name__}: {exc})") from exc
    if index.get("format") != INDEX_FORMAT:
        raise UnreadableSummary(f"{folder} was written by another timelineview (index format "
                                f"{index.get('format')!r}, this one reads {INDEX_FORMAT}): summarize it again")
    if index.get("state") != COMPLETE:
        raise UnreadableSummary(f"incomplete summary ({folder}: run {index.get('run')!r} of summarize, started "
                                f"{index.get('started', '?')}, did not finish or is still writing it; run "
                                "summarize again when it has stopped)")
    cards = index.get("cards")
    bad = "it has no list of cards" if not isinstance(cards, list) else next(
        (f"card entry {k} is not a card" for k, e in enumerate(cards)
         if not isinstance(e, dict) or not isinstance(e.get("dir"), str) or not isinstance(e.get("status"), str)
         or not isinstance(e.get("card"), str)), "")
    if bad or not isinstance(index.get("run"), str):
        raise UnreadableSummary(f"{folder} is not a readable summary folder (its index.json: "
                                f"{bad or 'it names no run'})")
    twice = _listed_twice(cards)
    if twice:
        raise UnreadableSummary(f"{folder} is not a readable summary folder (its index.json lists {twice}: "
                                "it was edited or damaged; summarize it again)")
    return index


def _listed_twice(cards: list[dict]) -> str:
    """The first card name or card folder that ``cards`` lists twice, in words ("" when none is)."""
    for key, what in (("card", "card"), ("dir", "card folder")):
        seen: dict[str, int] = {}
        for k, e in enumerate(cards):
            if e[key] in seen:
                return f"{what} {e[key]!r} twice (entries {seen[e[key]]} and {k})"
            seen[e[key]] = k
    return ""


class _ColumnsReadOnce:
    """A card's columns ``names`` read in one pass of its file, standing in for its reader while its tables
    are built (table by table, the file is opened once per table: four times for the operator and
    communication tables)."""

    def __init__(self, reader: ColumnReader, names: list[str]) -> None:
        self.reader = reader
        self.arrays = reader.get_many(names)

    def get_many(self, names: list[str]) -> dict[str, np.ndarray]:
        if all(n in self.arrays for n in names):
            return {n: self.arrays[n] for n in names}
        return self.reader.get_many(names)


def _read_whole(card: SummaryCard) -> None:
    """Read (and so check) what of a card the cluster-level results take: its details and tables; of the
    interval sets and pyramid (megabytes for a large card, which only a drill-down reads and checks) only
    that their file holds them."""
    card.details  # noqa: B018 - cached properties: reading them is the point
    card.operators  # noqa: B018
    card.communication  # noqa: B018
    card.steps  # noqa: B018
    card.load_report  # noqa: B018
    card.columns.check_extent()  # the columns not read here (interval sets, pyramid) are at least all there


class SummarySession(AnalysisSession):
    """The analysis of a summary folder's cards (those whose summary is ``ok`` in the index): an
    ``AnalysisSession`` over their summary sources; ``cards``: the ``SummaryCard`` of each (its number is its
    position among the cards read, in index order).

    ``progress`` is called as the card manifests are read. ``tolerant`` (the desktop, ``stats``): a card
    whose summary cannot be read or is not the one the index names joins ``failed`` (status
    ``unreadable``, with the error) and the others open; otherwise it raises. ``whole`` (``stats``): each
    card's details and tables are read (and checked) now, so that a card damaged there fails alone too.
    ``stamps``: per card made by another timelineview version or code, one line saying so."""

    def __init__(self, folder: str | Path, index: dict | None = None, progress: Progress | None = None,
                 tolerant: bool = False, whole: bool = False) -> None:
        self.folder = Path(folder)
        self.index = index if index is not None else read_checked_index(self.folder)
        self.entries = self.index.get("cards", [])
        self.failed = [e for e in self.entries if e.get("status") != OK]
        cards: list[SummaryCard] = []
        ok = [e for e in self.entries if e.get("status") == OK]
        run = str(self.index.get("run"))
        for k, e in enumerate(ok):
            try:
                card = read_indexed_card(self.folder, e, run)
                if whole:
                    _read_whole(card)
                cards.append(card)
            except (OSError, KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:  # what a card
                # that passed its digests but holds values no summary holds raises (SummaryFileError: ValueError)
                if not tolerant:
                    raise
                why = str(exc) if isinstance(exc, SummaryFileError) else f"{type(exc).__name__}: {exc}"
                self.failed.append({**e, "status": UNREADABLE, "error": why})
            if progress is not None:
                progress(k + 1, len(ok))
        now = current_stamp()
        self.stamps = [f"{c.card}: summarised by {c.stamp.describe()}, this is {now.describe()}: its numbers "
                       "may differ from what this version computes (summarize again to redo it)"
                       for c in cards if c.stamp != now]
        # ``tolerant`` is the reading's: a card read holds its results already, so a cross-card result that
        # fails over them raises (``stats`` then says the summary holds values summarize does not write)
        super().__init__(sources=[SummarySource(c, i) for i, c in enumerate(cards)])

    def read_tables(self, progress: Progress | None = None) -> None:
        """Read every card's operator and communication tables, one pass of its column file each, before
        the cluster-level results need them (the desktop, in the background, with ``progress``)."""
        cards = self.cards
        for k, card in enumerate(cards):
            reader = card.columns
            card.columns = _ColumnsReadOnce(reader, [n for n in reader.files if n.startswith(TABLE_COLUMNS)])
            try:
                card.operators  # noqa: B018 - cached properties: reading them is the point
                card.communication  # noqa: B018
            finally:
                card.columns = reader  # the tables hold their arrays; the reader need not
            if progress is not None:
                progress(k + 1, len(cards))
