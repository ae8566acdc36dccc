"""SummarySession: the cluster-level analysis of a summary folder (metrics.md §10).

It reads the index and the card summaries that ``timelineview summarize`` wrote and computes what
:class:`~timelineview.analysis.session.AnalysisSession` computes over loaded cards — clock offsets,
the §5 document, slow cards, links and slow links, the cluster comparison, findings — with the same
functions, from the summaries alone (no trace is read). No Qt.

A folder is one run of ``summarize`` or it says it is not: the index names its run and its state
(``incomplete`` from the run's start until the index is replaced at its end), and per card the run that
made it and its manifest's digest; a card that is not that card is reported failed, and an index that is
incomplete, of another format or damaged is :class:`UnreadableSummary`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path

import numpy as np
import orjson

from timelineview.analysis.cluster.clock_offsets import offsets_from_ends
from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison
from timelineview.analysis.cluster.memory_peaks import peaks_of_document
from timelineview.analysis.cluster.slow_cards import SlowCard, slow_cards
from timelineview.analysis.communication import ClusterCommunication, analyse_cluster
from timelineview.analysis.findings.evaluate import Finding
from timelineview.analysis.memory.findings import documents_imbalance
from timelineview.analysis.operators import TOP_OPERATORS, OperatorAcrossCards, operators_across_cards
from timelineview.analysis.session import rank_order
from timelineview.analysis.stats_document import stats_document
from timelineview.analysis.summaries.card_summary import SummaryCard, read_indexed_card
from timelineview.analysis.summaries.code_stamp import current_stamp
from timelineview.analysis.summaries.summary_findings import evaluate_summary_findings
from timelineview.model.summary.columns import ColumnReader
from timelineview.model.summary.guarded_files import INDEX_MAX_BYTES, SummaryFileError, read_inside

INDEX = "index.json"
INDEX_KIND = "timelineview summary"
INDEX_FORMAT = 2  # 2: a run id and a state; per card the run that made it and its manifest's digest
COMPLETE, INCOMPLETE = "complete", "incomplete"
OK = "ok"
UNREADABLE = "unreadable"  # the index says ok, but the card's manifest cannot be read (tolerant sessions)
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
    return orjson.loads(read_inside(Path(folder), (INDEX,), INDEX_MAX_BYTES))


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
    return index


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


class SummarySession:
    """The analysis of a summary folder's cards (those whose summary is ``ok`` in the index).

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
        self.cards: list[SummaryCard] = []
        ok = [e for e in self.entries if e.get("status") == OK]
        run = str(self.index.get("run"))
        for k, e in enumerate(ok):
            try:
                card = read_indexed_card(self.folder, e, run)
                if whole:
                    _read_whole(card)
                self.cards.append(card)
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
                       for c in self.cards if c.stamp != now]
        self.order = rank_order(self.cards)  # the first by rank is the clock reference

    def analyse(self, number: int, fields: Iterable[str] = ()) -> SummaryCard:
        """Card ``number`` (its index position) as its summary holds it: what the analysis tabs ask of
        ``AnalysisSession.analyse`` (``operators``, ``communication``) is there already, whatever ``fields``."""
        return self.cards[number]

    def read_tables(self, progress: Progress | None = None) -> None:
        """Read every card's operator and communication tables, one pass of its column file each, before
        the cluster-level results need them (the desktop, in the background, with ``progress``)."""
        for k, card in enumerate(self.cards):
            reader = card.columns
            card.columns = _ColumnsReadOnce(reader, [n for n in reader.files if n.startswith(TABLE_COLUMNS)])
            try:
                card.operators  # noqa: B018 - cached properties: reading them is the point
                card.communication  # noqa: B018
            finally:
                card.columns = reader  # the tables hold their arrays; the reader need not
            if progress is not None:
                progress(k + 1, len(self.cards))

    @cached_property
    def clock_offsets_ns(self) -> np.ndarray:
        """Per card (index order), ns to subtract from its times to align it with the first by rank
        (metrics.md §4), from the collective names and ends each summary keeps."""
        out = np.zeros(len(self.cards), dtype=np.int64)
        if not self.cards:
            return out
        out[self.order] = offsets_from_ends([self.cards[i].collectives for i in self.order])
        return out

    @cached_property
    def card_documents(self) -> list[dict]:
        """The §5 card objects by rank with their clock offsets, each with the ``worker`` that made it."""
        docs = []
        for i in self.order:
            doc = dict(self.cards[i].document)
            doc["clock_offset_us"] = float(self.clock_offsets_ns[i]) / 1000.0
            doc["worker"] = self.cards[i].worker
            docs.append(doc)
        return docs

    @cached_property
    def slow_cards(self) -> list[SlowCard]:
        """Slow cards of metrics.md §4 over the summaries' step metrics."""
        return slow_cards(self.card_documents)

    @cached_property
    def communication(self) -> ClusterCommunication:
        return analyse_cluster([self.cards[i].communication for i in self.order])

    @cached_property
    def operators_across_all_cards(self) -> list[OperatorAcrossCards]:
        """Every operator across the cards by rank (the Operators tab lists them all)."""
        cards = [(self.cards[i].card, self.cards[i].operators) for i in self.order
                 if self.cards[i].operators is not None]
        return operators_across_cards(cards, limit=None)

    @cached_property
    def operators_across_cards(self) -> list[OperatorAcrossCards]:
        """The top operators across the cards (what ``stats`` prints)."""
        return self.operators_across_all_cards[:TOP_OPERATORS]

    @cached_property
    def memory_imbalance(self) -> list[dict]:
        """§4's rule on the cards' peak reserved memory (metrics.md §11), from their documents."""
        return documents_imbalance(self.card_documents)

    def stats_document(self) -> dict:
        """The ``stats --json`` document of the cards summarised (the same as on their traces, by
        ``analysis.stats_document``), each card with its ``worker``."""
        return stats_document(self)

    @cached_property
    def comparison(self) -> ClusterComparison:
        """The cluster comparison from each summary's rows (a card's number is its index position)."""
        rows = []
        for i, c in enumerate(self.cards):
            m = c.manifest
            cc = CardComparison(i, c.card, c.rank, self.clock_offsets_ns[i] / 1000.0)
            cc.error = m.get("comparison_error") or ""
            if not cc.error:
                cc.steps = m.get("comparison_steps") or []
                cc.error = m.get("error") or ""
            cc.memory = peaks_of_document(c.document.get("memory"))
            rows.append(cc)
        return ClusterComparison(rows, documents_imbalance(self.card_documents))

    @cached_property
    def findings(self) -> list[Finding]:
        """The findings of metrics.md §8 from the summaries."""
        return evaluate_summary_findings(self)
