"""``timelineview.open(paths)``: a run's cards as pandas DataFrames, Arrow tables and SQL.

The numbers are the ones ``timelineview stats`` prints: the analysis is the same ``AnalysisSession``
(or, for a summary folder, its ``SummarySession``), computed once per session and only when a table
that needs it is asked for; the slices, counters, flows and instants come from the loaded columns.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.api.extras import require
from timelineview.api.tables import TABLES
from timelineview.model.store.trace_store import TraceStore

if TYPE_CHECKING:
    import pandas
    import pyarrow

NS_PER_US = 1000


class CardInfo(NamedTuple):
    """One card of a session: its number (position in load order), name, rank and where it was read from."""

    number: int
    card: str
    rank: int | None
    path: str


class UnreadCard(NamedTuple):
    """A card of a summary folder that could not be read (the others are): its name and why."""

    card: str
    why: str


CardSelector = CardInfo | str | int | None  # one of ``cards``, a card's name ("rank 0"), its rank, or None for all


class NothingReadable(ValueError):
    """No card of the paths holds an event; the message says why, per card."""


class _Subset:
    """A :class:`TableSource` over some cards of a session (its stores, those cards' positions)."""

    def __init__(self, session: Session, order: list[int]) -> None:
        self.stores = session.stores
        self.order = order
        self._session = session

    def document(self) -> dict:
        return self._session.stats()


class Session:
    """A run opened for notebooks and SQL. ``stores``: the loaded cards (load order; empty for a summary
    folder, whose ``summary`` answers the analysis tables instead)."""

    def __init__(self, stores: Sequence[TraceStore] = (), *, summary: Any = None,
                 min_gap_ns: int = DEFAULT_MIN_GAP_NS, analysis: Any = None) -> None:
        from timelineview.analysis.session import rank_order

        self.stores = list(stores)
        self.summary = summary
        self.unreadable: list[UnreadCard] = []  # a summary folder's cards that could not be read (``open``)
        self.min_gap_ns = min_gap_ns
        self.order = rank_order(self.stores)
        self._tables: dict[tuple[str, tuple[int, ...] | None], Any] = {}
        if analysis is not None:  # the window's AnalysisSession of these stores: its numbers are not computed twice
            self.analysis = analysis

    # ------------------------------------------------------------------ the cards and the analysis
    @property
    def cards(self) -> list[CardInfo]:
        """The cards by rank."""
        if self.summary is not None:
            folders = self.summary.cards
            return [CardInfo(i, folders[i].manifest["card"], folders[i].manifest.get("rank"), str(folders[i].folder))
                    for i in self.summary.order]
        return [CardInfo(i, self.stores[i].card, self.stores[i].rank,
                         os.pathsep.join(str(p) for p in self.stores[i].paths)) for i in self.order]

    @cached_property
    def analysis(self):
        """The ``AnalysisSession`` of the cards (computed on first use; a summary folder's ``SummarySession``)."""
        if self.summary is not None:
            return self.summary
        from timelineview.analysis.session import AnalysisSession

        return AnalysisSession(self.stores, self.min_gap_ns)

    @cached_property
    def _document(self) -> dict:
        return self.analysis.stats_document()

    def stats(self) -> dict:
        """The ``timelineview stats --json`` document (docs/metrics.md §5–§8): the same dict."""
        return self._document

    def diff(self, other: Session) -> dict:
        """The ``timelineview diff --json`` document of this run (the base) against ``other`` (the new run)."""
        if self.summary is not None or other.summary is not None:
            raise ValueError("comparing runs reads their traces: open the traces, not a summary folder")
        from timelineview.analysis.diff.run_diff import diff_runs

        return diff_runs(self.analysis, other.analysis).document()

    # ------------------------------------------------------------------ tables
    def _numbers(self, card: CardSelector) -> list[int] | None:
        """Positions (load order, by rank) of the cards ``card`` selects; None for all of them."""
        if card is None:
            return None
        if isinstance(card, CardInfo):
            chosen = [c.number for c in self.cards if c == card]
        else:
            chosen = [c.number for c in self.cards if (c.card == card if isinstance(card, str) else c.rank == card)]
        if not chosen:
            names = ", ".join(f"{c.card!r}" for c in self.cards)
            raise KeyError(f"no card {card!r} in this session (its cards: {names})")
        return chosen

    def table(self, name: str, card: CardSelector = None) -> pyarrow.Table:
        """Table ``name`` (see ``timelineview.api.TABLES``, docs/sql.md) as a pyarrow Table, every card's
        rows by rank or only those of ``card`` (a name or a rank). Built once per session."""
        pa = require("pyarrow")
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; the tables are {', '.join(TABLES)}")
        numbers = self._numbers(card)
        key = (name, None if numbers is None else tuple(numbers))
        if key not in self._tables:
            spec = TABLES[name]
            if numbers is None:
                table = spec.build(_Subset(self, list(self.order)))
            elif spec.needs_analysis:  # the rows of the whole run's table that name these cards
                table = self.table(name)
                if "card" in table.column_names:
                    names = pa.array([c.card for c in self.cards if c.number in numbers])
                    table = table.filter(require("pyarrow.compute").is_in(
                        table["card"].cast(pa.string()), value_set=names))
            else:
                table = spec.build(_Subset(self, numbers))
            self._tables[key] = table
        return self._tables[key]

    def frame(self, name: str, card: CardSelector = None) -> pandas.DataFrame:
        """Table ``name`` as a pandas DataFrame (dictionary columns become categoricals)."""
        require("pandas")
        return self.table(name, card).to_pandas()

    def slices_arrow(self, card: CardSelector = None) -> pyarrow.Table:
        """Every slice as a pyarrow Table: card, rank, process, thread, name, category, start_ns, dur_ns,
        end_ns, depth, id. Times and depths share the store's numpy buffers; names are dictionary-encoded."""
        return self.table("slices", card)

    def slices(self, card: CardSelector = None) -> pandas.DataFrame:
        """Every slice (or ``card``'s) as a DataFrame; names, categories, processes and threads are categoricals."""
        return self.frame("slices", card)

    def counters(self, card: CardSelector = None) -> pandas.DataFrame:
        """Counter samples: card, rank, process, counter, key, series, ts_ns, value."""
        return self.frame("counters", card)

    def flows(self, card: CardSelector = None) -> pandas.DataFrame:
        """Flow arrows with the slice id at either end (null where none is bound)."""
        return self.frame("flows", card)

    def instants(self, card: CardSelector = None) -> pandas.DataFrame:
        """Instant events: card, rank, process, thread, name, ts_ns."""
        return self.frame("instants", card)

    def card_metrics(self) -> pandas.DataFrame:
        """One row per card: its whole-run metrics (``stats --json`` ``cards``)."""
        return self.frame("cards")

    def steps(self, card: CardSelector = None) -> pandas.DataFrame:
        """One row per step of each card (metrics.md §5)."""
        return self.frame("steps", card)

    def operators(self, card: CardSelector = None) -> pandas.DataFrame:
        """Per card, one row per compute operator name (metrics.md §7)."""
        return self.frame("operators", card)

    def comm_ops(self, card: CardSelector = None) -> pandas.DataFrame:
        """Per card, one row per collective with its transit, wait, synchronisation and idle time (§6)."""
        return self.frame("comm_ops", card)

    def links(self) -> pandas.DataFrame:
        """One row per link between ranks (§6)."""
        return self.frame("links")

    def findings(self) -> pandas.DataFrame:
        """The findings (§8), most severe first."""
        return self.frame("findings")

    # ------------------------------------------------------------------ SQL
    @cached_property
    def engine(self):
        """The session's DuckDB connection (:class:`~timelineview.api.sql.SqlEngine`), made on first use."""
        from timelineview.api.sql import SqlEngine

        return SqlEngine(self)

    def sql(self, query: str) -> pandas.DataFrame:
        """The rows of a DuckDB ``query`` over this session's tables, as a DataFrame."""
        require("pandas")
        return self.engine.arrow(query).to_pandas()

    def __repr__(self) -> str:
        if self.summary is not None:
            return f"<timelineview session: summary {self.summary.folder}, {len(self.cards)} cards>"
        slices = sum(len(s.slices) for s in self.stores)
        return f"<timelineview session: {len(self.stores)} cards, {slices:,} slices>"


def open(paths: str | os.PathLike | Sequence[str | os.PathLike], *, cache: bool | str | os.PathLike = True,
         min_gap_us: float = 1.0, progress: Callable[[int, int], None] | None = None,
         note: Callable[[str], None] | None = None) -> Session:  # noqa: A001 - as ``builtins.open`` is a file's
    """Open trace files, profiler folders or a summary folder as a :class:`Session`.

    ``cache``: keep (and re-open) the cards from the card cache, as the window does (True: the default
    folder; a path: that folder; False: read the files). ``progress(done, total)``: bytes read so far;
    ``note(text)``: what the load does when that is unusual (a first run without the compiled reader).
    A summary folder's card that cannot be read is left out, in ``unreadable`` (and said through ``note``, or
    a warning). Raises :class:`NothingReadable` when no card holds an event, and ``FileNotFoundError`` for a path that
    does not exist.
    """
    from timelineview.analysis.summaries.summary_session import (
        UNREADABLE,
        SummarySession,
        UnreadableSummary,
        looks_like_summary,
        read_checked_index,
    )
    from timelineview.commands.exit_codes import holds_events, nothing_readable_reason
    from timelineview.model import load
    from timelineview.model.load.loader import shutdown_pool

    listed = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    for p in listed:
        if not os.path.exists(p):
            raise FileNotFoundError(f"no such file or folder: {p}")
    min_gap_ns = int(round(min_gap_us * NS_PER_US))
    if len(listed) == 1 and looks_like_summary(listed[0]):
        try:
            # tolerant and whole, as ``stats``: a card damaged anywhere is left out (and named), the others read
            summary = SummarySession(listed[0], read_checked_index(listed[0]), tolerant=True, whole=True)
        except UnreadableSummary as exc:
            raise NothingReadable(str(exc)) from None
        unread = [UnreadCard(str(e.get("card", e.get("rank"))), str(e.get("error", ""))) for e in summary.failed
                  if e.get("status") == UNREADABLE]
        if not summary.cards:
            reasons = "; ".join(f"{u.card}: {u.why}" for u in unread) or "no card was summarised"
            raise NothingReadable(f"nothing readable: {reasons}")
        for u in unread:
            if note is not None:
                note(f"{u.card}: not read ({u.why})")
            else:
                warnings.warn(f"{u.card}: not read ({u.why})", stacklevel=2)
        session = Session(summary=summary, min_gap_ns=min_gap_ns)
        session.unreadable = unread
        return session
    try:
        stores = load(listed, progress=progress, cache=cache if cache else None, note=note)
    finally:
        shutdown_pool()
    if not any(holds_events(s) for s in stores):
        raise NothingReadable(f"nothing readable: {nothing_readable_reason(stores)}")
    return Session(stores, min_gap_ns=min_gap_ns)
