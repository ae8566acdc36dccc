"""``timelineview stats PATH... [--json] [--min-gap-us X]``: the analysis without a window."""

from __future__ import annotations

import argparse
import sys
import threading

import orjson

from timelineview.analysis.summaries.summary_session import SummarySession, is_summary_folder
from timelineview.analysis.summary import format_text, stats_document
from timelineview.commands.exit_codes import (
    EPILOG,
    EXIT_INTERRUPTED,
    EXIT_NOTHING_READABLE,
    EXIT_OK,
    holds_events,
    nothing_readable_reason,
    run_guarded,
)
from timelineview.model import LoadCancelled, load
from timelineview.model.load.loader import shutdown_pool


def _progress_printer(enabled: bool):
    last = [-1]

    def progress(done: int, total: int) -> None:
        if not enabled:
            return
        pct = int(100 * done / max(total, 1))
        if pct != last[0]:
            last[0] = pct
            print(f"\rloading… {pct:3d}% of {total / 1e6:,.1f} MB", end="", file=sys.stderr, flush=True)
            if done >= total:
                print(file=sys.stderr)

    return progress


def stats_main(argv: list[str]) -> int:
    """Entry point of the ``stats`` subcommand; returns the exit code (``commands.exit_codes``)."""
    parser = argparse.ArgumentParser(prog="timelineview stats", epilog=EPILOG,
                                     description="Per-card and per-step statistics of Ascend timelines.")
    parser.add_argument("paths", nargs="+", help="trace files or folders (one card per rank)")
    parser.add_argument("--json", action="store_true",
                        help="print the statistics as one JSON document (its fields: docs/metrics.md)")
    parser.add_argument("--min-gap-us", type=float, default=1.0, help="idle AI Core gap threshold (µs)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    return run_guarded("timelineview stats", lambda: _stats(args))


def _stats(args: argparse.Namespace) -> int:
    if len(args.paths) == 1 and is_summary_folder(args.paths[0]):  # metrics.md §10: no trace is read
        return _print(SummarySession(args.paths[0]).stats_document(), args.json)
    cancel = threading.Event()
    try:
        stores = load(args.paths, progress=_progress_printer(not args.quiet and sys.stderr.isatty()),
                      cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        return EXIT_INTERRUPTED
    except LoadCancelled:
        return EXIT_INTERRUPTED
    finally:
        shutdown_pool()
    if not any(holds_events(s) for s in stores):
        print(f"timelineview stats: nothing readable: {nothing_readable_reason(stores)}", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    _print(stats_document(stores, min_gap_ns=int(round(args.min_gap_us * 1000))), args.json)
    for store in stores:
        line = store.report.headline()
        if line or not holds_events(store):
            print(f"{store.card}: {line or 'no events in the input'}", file=sys.stderr)
    return EXIT_OK


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
