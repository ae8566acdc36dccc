"""Exit codes of the command-line tools, and the one-line reasons that go with them."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence

from timelineview.model.store.report import EMPTY_CAPTURE, card_line
from timelineview.terminal_text import terminal_safe

EXIT_OK = 0  # something was loaded (problems, if any, are reported on stderr)
EXIT_NOTHING_READABLE = 1  # no event could be read from the input: one line on stderr says why
EXIT_USAGE = 2  # wrong arguments (argparse's own code), or an extra the command needs is not installed
EXIT_INTERNAL_ERROR = 3  # a defect in timelineview: one line on stderr, the traceback only on request
EXIT_INTERRUPTED = 130  # Ctrl+C
TRACEBACK_VARIABLE = "TIMELINEVIEW_TRACEBACK"  # set to 1 to see the traceback of an internal error
EPILOG = ("Exit status: 0 something was loaded, 1 nothing readable (the reason on stderr), "
          "2 wrong arguments or a missing extra (the line says what to install), 3 internal error, "
          "130 interrupted.")


def holds_events(store) -> bool:
    """Whether a loaded card kept any event (slice, counter sample, instant or flow)."""
    return bool(len(store.slices) or len(store.counters.ts) or len(store.instants) or len(store.flows.src_ts))


def empty_capture(store) -> bool:
    """Whether a card is a valid capture that holds no event (metadata only): it was read, so
    the exit is 0, with the note ``EMPTY_CAPTURE``."""
    return not holds_events(store) and store.report.read_whole_capture


def read_something(stores: Sequence) -> bool:
    """Whether any card holds an event or is an empty capture read whole (exit 0; else 1)."""
    return any(holds_events(s) or empty_capture(s) for s in stores)


def card_note(store) -> str:
    """The one line a card that holds no event gets on stderr: an empty capture, or why nothing was read."""
    return EMPTY_CAPTURE if empty_capture(store) else "no events in the input"


def nothing_readable_reason(stores: Sequence) -> str:
    """Why no card of ``stores`` holds an event, in one line."""
    reasons = []
    for store in stores:
        reasons.append(card_line(store.card, store.report.headline() or "no events in the input"))
    return "; ".join(reasons) or "no input"


def run_guarded(prog: str, main: Callable[[], int]) -> int:
    """Run a subcommand; a defect prints one line (no traceback unless asked for) and exits 3."""
    try:
        return main()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except MemoryError:
        print(f"{prog}: out of memory", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    except Exception as exc:  # noqa: BLE001 - the last guard of the process: say what, not how
        if os.environ.get(TRACEBACK_VARIABLE) == "1":
            traceback.print_exc()
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"{prog}: internal error: {type(exc).__name__}: {terminal_safe(first)} "
              f"(set {TRACEBACK_VARIABLE}=1 for the details)", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
