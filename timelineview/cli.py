"""``timelineview stats PATH... [--json] [--min-gap-us X]``: the analysis without a window."""

from __future__ import annotations

import argparse
import sys
import threading

import orjson

from timelineview.analysis.kernels.document import with_peak
from timelineview.analysis.summaries.summary_session import (
    UNREADABLE,
    SummarySession,
    UnreadableSummary,
    looks_like_summary,
    read_checked_index,
)
from timelineview.analysis.summary import format_text, stats_document
from timelineview.commands.cache_option import add_cache_option, cache_wanted
from timelineview.commands.cached_stats import cached_stats_document
from timelineview.commands.exit_codes import (
    EPILOG,
    EXIT_INTERRUPTED,
    EXIT_NOTHING_READABLE,
    EXIT_OK,
    card_note,
    empty_capture,
    holds_events,
    nothing_readable_reason,
    read_something,
    run_guarded,
)
from timelineview.commands.gap_option import add_gap_option
from timelineview.commands.skipped_captures import say_skipped_captures
from timelineview.commands.terminal_lines import TerminalLines, compile_goes_on
from timelineview.model import LoadCancelled, load_cards
from timelineview.model.load.loader import card_sources, shutdown_pool
from timelineview.model.store.report import EMPTY_CAPTURE, card_line
from timelineview.terminal_text import terminal_safe

# what stats adds to the loader's first-run note: the compile outlives the command (model/load/jit.py)
COMPILE_GOES_ON = compile_goes_on("stats")


def stats_main(argv: list[str]) -> int:
    """Entry point of the ``stats`` subcommand; returns the exit code (``commands.exit_codes``)."""
    parser = argparse.ArgumentParser(prog="timelineview stats", epilog=EPILOG,
                                     description="Per-card and per-step statistics of Ascend timelines.")
    parser.add_argument("paths", nargs="+", help="trace files or folders (one card per rank)")
    parser.add_argument("--json", action="store_true",
                        help="print the statistics as one JSON document (its fields: timelineview docs metrics)")
    add_gap_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--peak-tflops", type=float, default=None,
                        help="the chip's peak TFLOPS for MFU, instead of the package's table "
                             "(timelineview docs metrics, §7.1)")
    add_cache_option(parser)
    args = parser.parse_args(argv)
    return run_guarded("timelineview stats", lambda: _stats(args))


def _with_peak(doc: dict, peak_tflops: float | None) -> dict:
    """``doc`` with every card's MFU against ``peak_tflops`` (``--peak-tflops``), when given."""
    if peak_tflops:
        for card in doc.get("cards", []):
            if "kernels" in card:
                card["kernels"] = with_peak(card["kernels"], peak_tflops)
    return doc


def _stats(args: argparse.Namespace) -> int:
    if len(args.paths) == 1 and looks_like_summary(args.paths[0]):  # metrics.md §10: no trace is read
        return _stats_of_summary(args.paths[0], args.json, args.peak_tflops)
    cancel = threading.Event()
    terminal = TerminalLines(not args.quiet and sys.stderr.isatty(), "stats")
    sources = card_sources(args.paths)
    try:
        stores = load_cards(sources, progress=terminal.progress, cancel=cancel, note=terminal.note,
                            cache=cache_wanted(args))
    except KeyboardInterrupt:
        cancel.set()
        return EXIT_INTERRUPTED
    except LoadCancelled:
        return EXIT_INTERRUPTED
    finally:
        shutdown_pool()
    if not read_something(stores):
        print(f"timelineview stats: nothing readable: {terminal_safe(nothing_readable_reason(stores))}",
              file=sys.stderr)
        return EXIT_NOTHING_READABLE
    # cards all from the card cache: the document kept for them, unless they changed (``cached_stats``)
    doc = cached_stats_document(stores, int(round(args.min_gap_us * 1000)),
                                lambda cards, gap: stats_document(cards, min_gap_ns=gap))
    doc = _with_peak(doc, args.peak_tflops)
    notes = [card_line(s.card, EMPTY_CAPTURE) for s in stores if empty_capture(s)]
    notes += [card_line(src.label, skipped) for src in sources for skipped in src.skipped]
    if notes:  # metrics.md §5: what a reader of the numbers should know (empty captures, files left aside)
        doc["notes"] = notes + doc.get("notes", [])
    _print(doc, args.json)
    say_skipped_captures("timelineview stats", args.paths)
    for store in stores:
        line = store.report.overview(store.card)
        if line or not holds_events(store):
            print(terminal_safe(f"{store.card}: {line or card_note(store)}"), file=sys.stderr)
    return EXIT_OK


def _stats_of_summary(folder: str, as_json: bool, peak_tflops: float | None = None) -> int:
    """The summary's document; an index that cannot be read or is incomplete, or no card that can be read,
    is exit 1 with why. A card that failed or cannot be read (damaged, or not the run the index names) is
    named on stderr with why, and the others are printed."""
    try:
        index = read_checked_index(folder)
    except UnreadableSummary as exc:
        print(f"timelineview stats: {terminal_safe(exc)}", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    session = SummarySession(folder, index, tolerant=True, whole=True)
    if not session.cards:
        print(f"timelineview stats: the summary {terminal_safe(folder)} holds no card that was summarised "
              f"({len(session.failed)} failed)", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    for entry in session.failed:  # the cards left out of the document, each with why
        print(_left_out(entry), file=sys.stderr)
    for line in session.stamps:
        print(line, file=sys.stderr)
    try:
        doc = _with_peak(session.stats_document(), peak_tflops)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:
        # every file passed its digests and every card its checks: values that still break the analysis
        # were written by something other than summarize (digests rewritten after an edit)
        print(f"timelineview stats: the summary {folder} holds values summarize does not write "
              f"({type(exc).__name__}: {exc}); summarize it again", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    code = _print(doc, as_json)
    for card in session.sources:  # each card's load, as stats on the traces says it (summaries keep the report)
        line = card.load_report.overview(card.card) if card.load_report is not None else ""
        if line:
            print(terminal_safe(f"{card.card}: {line}"), file=sys.stderr)
    return code


def _left_out(entry: dict) -> str:
    """Why a card of a summary's index is not in the document, in one line."""
    card, status, error = entry.get("card"), entry.get("status"), entry.get("error")
    if status == UNREADABLE:
        return f"{card}: summary not read: {error}"
    if status == "failed":
        return f"{card}: not summarised: {error or 'no reason given'}"
    return f"{card}: not summarised: the index gives it status {status!r}"


def _print(doc: dict, as_json: bool) -> int:
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        sys.stdout.buffer.write(b"\n")
    else:
        print(format_text(doc))
    return EXIT_OK


def main() -> None:  # ``python -m timelineview.cli``
    sys.exit(stats_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
