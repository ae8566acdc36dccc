"""Application entry: ``timelineview [PATH...]``, ``--screenshot``, and ``timelineview stats ...``."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from timelineview.terminal_text import terminal_safe

NS_PER_US = 1000
SIGNALLED_EXIT_BASE = 128  # shells report a process ended by signal N as 128 + N
SIGNAL_POLL_MS = 200  # how soon a Ctrl+C closes the window
LOG_FORMAT = "%(asctime)s %(name)s %(levelname)s: %(message)s"  # the window's failures, with their tracebacks


# name: (module, entry function, what it does) — each entry takes the arguments after the name, returns the exit code
COMMANDS = {
    "stats": ("timelineview.cli", "stats_main",
              "print each card's metrics, steps, communication, operators and the findings (--json: one document)"),
    "diff": ("timelineview.commands.diff", "diff_main", "what changed between a baseline run and a new one"),
    "summarize": ("timelineview.distributed.cli", "summarize_main",
                  "summarise every card on a Dask cluster into a folder (needs the [scale] extra)"),
    "query": ("timelineview.commands.query", "query_main", "SQL over a run's slices, steps, operators, "
              "communication and findings (needs the [api] extra)"),
    "docs": ("timelineview.commands.docs", "docs_main",
             "where the documents are: timelineview docs metrics (the figures), timelineview docs sql (the tables)"),
    "sample": ("timelineview.commands.sample", "sample_main",
               "print the bundled sample cluster's folder: timelineview stats \"$(timelineview sample)\""),
}


def _commands_help() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  timelineview {name:<{width}}  {text}" for name, (_, _, text) in COMMANDS.items()]
    return "commands (each has its own --help):\n" + "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    from timelineview import __version__
    from timelineview.commands.exit_codes import EPILOG

    ap = argparse.ArgumentParser(
        prog="timelineview", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fast viewer and analyser for Ascend NPU profiler timelines: opens trace files or profiler "
                    "folders in a window.",
        epilog=_commands_help() + "\n\n" + EPILOG)
    ap.add_argument("--version", action="version", version=f"timelineview {__version__}")
    ap.add_argument("paths", nargs="*", type=Path, help="trace file(s) or a profiler folder; "
                    "without one the bundled sample cluster opens")
    ap.add_argument("--screenshot", type=Path, metavar="OUT.png",
                    help="render the window offscreen to OUT.png and exit")
    ap.add_argument("--size", default="1600x900", metavar="WxH", help="window size (default 1600x900)")
    ap.add_argument("--range", nargs=2, type=float, metavar=("T0_US", "T1_US"),
                    help="show this window, µs from the trace start")
    ap.add_argument("--theme", choices=("system", "light", "dark"), default="system")
    ap.add_argument("--compare", nargs="+", type=Path, metavar="NEW",
                    help="open NEW (files or a folder) as the comparison of the run given first (Compare tab)")
    ap.add_argument("--view", choices=("timeline", "cluster"), default=None,
                    help="with --screenshot: the tab to render (cluster: the card comparison; default: the "
                         "timeline, or for a summary folder its comparison, its first card's timeline with --range)")
    return ap.parse_args(argv)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"timelineview: --size wants WxH such as 1600x900, not {text!r}") from None
    return max(w, 200), max(h, 150)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: a Ctrl+C at any moment (imports included) ends it with exit 130, no traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return SIGNALLED_EXIT_BASE + signal.SIGINT


def _main(argv: list[str] | None) -> int:
    from timelineview.numba_cache import use_user_numba_cache

    use_user_numba_cache()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        module, function, _ = COMMANDS[argv[0]]
        return getattr(importlib.import_module(module), function)(argv[1:])
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT, stream=sys.stderr)  # the library adds none
    size = _size(args.size)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from timelineview.views.platform_check import platform_problem

    problem = platform_problem()
    if problem:  # Qt would abort the process with a misleading hint
        print(problem, file=sys.stderr)
        return 1
    from PySide6 import QtCore, QtWidgets

    from timelineview.views import theme as theme_mod

    QtCore.QCoreApplication.setOrganizationName("timelineview")
    QtCore.QCoreApplication.setApplicationName("timelineview")
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0]])
    if args.theme == "dark":
        theme_mod.apply_dark_palette(app)
    elif args.theme == "light":
        theme_mod.apply_light_palette(app)
    from timelineview.views.main_window import MainWindow

    if args.screenshot:
        return _screenshot(args, size)
    win = MainWindow()
    win.show()
    threading.Thread(target=_warm_decoders, name="warm-decoders", daemon=True).start()
    if args.paths:
        win.open_paths(args.paths)
    else:
        win.open_sample()
    if args.compare:
        from timelineview.views.analysis_tabs.compare.open_menu import open_comparison

        open_comparison(win, args.compare)
    received = _quit_on_signals(app)
    code = app.exec()
    _shutdown_pool()
    return SIGNALLED_EXIT_BASE + received[0] if received else code


def _quit_on_signals(app) -> list[int]:
    """Ctrl+C in the launching terminal (SIGINT) and SIGTERM close the window as its Quit does; returns the
    list that receives the signal's number. Python runs its handlers only between bytecodes, so a timer
    hands it the GUI thread now and then while Qt waits for events."""
    from PySide6 import QtCore

    received: list[int] = []

    def close(signum: int, _frame) -> None:
        received.append(signum)
        app.closeAllWindows()
        app.quit()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, close)
    timer = QtCore.QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(SIGNAL_POLL_MS)
    return received


def _screenshot(args: argparse.Namespace, size: tuple[int, int]) -> int:
    from PySide6 import QtCore

    from timelineview.views.main_window import MainWindow
    from timelineview.views.screenshot import has_content, render_window

    # scratch settings: headless renders neither read nor change the user's window layout
    scratch = tempfile.TemporaryDirectory()
    settings = QtCore.QSettings(str(Path(scratch.name) / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, interactive=False)
    win.resize(*size)
    if args.paths:
        win.open_paths(args.paths, remember=False)
    else:
        win.open_sample()
    win.wait_loaded()
    range_us = tuple(args.range) if args.range else None
    if win.cluster.summary is not None:
        _summary_view(win, args.view, range_us)
        range_us = None  # set on the card's pyramid (or its trace) already
    elif args.view == "cluster":
        win.cluster.show_comparison()
    ok = render_window(win, args.screenshot, size, range_us)
    has_cards = has_content(win)  # a summary folder shows its comparison, with no trace on the timeline
    win.close()
    del settings
    scratch.cleanup()
    _shutdown_pool()
    if not ok:
        print(f"timelineview: could not write {terminal_safe(args.screenshot)}", file=sys.stderr)
        return 1
    return 0 if has_cards else 2


def _summary_view(win, view: str | None, range_us: tuple[float, float] | None) -> None:
    """A summary folder opens on its comparison; ``--view timeline`` (or a ``--range``) shows its first card
    by rank from its pyramid, over ``range_us`` (µs from the card's start). A range finer than the pyramid
    loads the card's trace, as zooming in does in the window, and that is what is rendered then."""
    if view == "cluster" or (view is None and range_us is None):
        if range_us is not None:
            print("timelineview: --range applies to a card's timeline (--view timeline), not to the comparison "
                  "of a summary folder; ignored", file=sys.stderr)
        return
    session = win.cluster.summary
    if not session.cards:
        return
    win.cluster.show_overview(session.order[0])
    if range_us is not None:
        t0, t1 = (int(round(t * NS_PER_US)) for t in range_us)
        win.cluster.overview.set_range(t0, t1)
        win.wait_loaded()  # the card's trace, when the range asked for it


def _warm_decoders() -> None:
    """Start the decode workers (and their compiled scanner, when numba's cache holds it) while
    the user looks around: the first load then starts at full speed."""
    try:
        from timelineview.model.load.loader import warm_pool

        warm_pool()
    except Exception:  # a load still starts its own workers
        pass


def _shutdown_pool() -> None:
    try:
        from timelineview.model.load.loader import shutdown_pool

        shutdown_pool()
    except Exception:
        pass


if __name__ == "__main__":
    sys.exit(main())
