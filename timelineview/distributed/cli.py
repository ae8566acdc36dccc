"""``timelineview summarize PATH --out DIR [--scheduler ADDRESS] [--workers N] [--min-gap-us X] [--no-cache]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from timelineview.commands.cache_option import add_cache_option, cache_wanted
from timelineview.commands.exit_codes import (
    EPILOG,
    EXIT_NOTHING_READABLE,
    EXIT_OK,
    EXIT_USAGE,
    run_guarded,
)
from timelineview.commands.gap_option import add_gap_option
from timelineview.commands.skipped_captures import say_skipped_captures
from timelineview.terminal_text import terminal_safe

PROG = "timelineview summarize"
NO_DASK = f"{PROG}: needs Dask, which is not installed: pip install 'timelineview[scale]'"


def summarize_main(argv: list[str]) -> int:
    """Entry point of the ``summarize`` subcommand; returns the exit code (``commands.exit_codes``): 0 some
    card summarised, 1 none, 2 arguments that cannot be used (``--out``, ``--scheduler``) or Dask missing, 3 an
    internal error."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EPILOG,
        description="Summarise every card of a folder on a Dask cluster; open DIR in the "
                    "viewer or run `timelineview stats DIR --json` on it.")
    parser.add_argument("path", help="trace file or folder (one card per rank)")
    parser.add_argument("--out", required=True, help="summary folder (created; cards unchanged since are kept)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a running Dask scheduler you trust, e.g. tcp://head:8786 (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    add_gap_option(parser)
    add_cache_option(parser)
    args = parser.parse_args(argv)
    return run_guarded(PROG, lambda: _summarize(args))


def _summarize(args: argparse.Namespace) -> int:
    try:
        import distributed  # noqa: F401
    except ImportError:
        print(NO_DASK, file=sys.stderr)
        return EXIT_USAGE  # a missing extra, as for every command: the line says how to install it
    problem = _out_problem(Path(args.out))
    if problem:
        print(f"{PROG}: {terminal_safe(problem)}", file=sys.stderr)
        return EXIT_USAGE
    if args.scheduler:
        from timelineview.distributed.scheduler_probe import SchedulerUnusable, probe

        try:
            probe(args.scheduler)
        except SchedulerUnusable as exc:
            print(f"{PROG}: {terminal_safe(exc)}", file=sys.stderr)
            return EXIT_USAGE
    from timelineview.distributed.summarize import SummaryBusy, summarize

    try:
        index = summarize(args.path, args.out, args.scheduler, max(1, args.workers),
                          min_gap_ns=int(round(args.min_gap_us * 1000)), cache=cache_wanted(args))
    except SummaryBusy as exc:
        print(f"{PROG}: {terminal_safe(exc)}", file=sys.stderr)
        return EXIT_NOTHING_READABLE  # nothing was summarised: another run holds the folder
    say_skipped_captures(PROG, [args.path])
    cards = index["cards"]
    ok = sum(c["status"] == "ok" for c in cards)
    print(f"{ok} of {len(cards)} card(s) summarised in {index['seconds']:.1f} s into {terminal_safe(args.out)}; "
          f"{len(index['slow_cards'])} slow card flag(s), {len(index['slow_links'])} slow link(s), "
          f"{len(index['findings'])} finding(s)", file=sys.stderr)
    return EXIT_OK if ok else EXIT_NOTHING_READABLE


def _out_problem(out: Path) -> str:
    """Why ``--out`` cannot be the summary folder ("" when it can: it is made if missing)."""
    if out.exists() and not out.is_dir():
        return f"--out {out} exists and is not a folder"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--out {out} cannot be made a folder ({exc.strerror or exc})"
    return ""


def main() -> None:  # ``python -m timelineview.distributed.cli``
    sys.exit(summarize_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
