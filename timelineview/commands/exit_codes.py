"""Exit codes of the command-line tools, and the one-line reasons that go with them."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence

from timelineview.model.store.report import card_line
from timelineview.terminal_text import terminal_safe

EXIT_OK = 0  # something was loaded (problems, if any, are reported on stderr)
EXIT_NOTHING_READABLE = 1  # no event could be read from the input: one line on stderr says why
EXIT_USAGE = 2  # wrong arguments (argparse's own code)
EXIT_INTERNAL_ERROR = 3  # a defect in timelineview: one line on stderr, the traceback only on request
EXIT_INTERRUPTED = 130  # Ctrl+C
TRACEBACK_VARIABLE = "TIMELINEVIEW_TRACEBACK"  # set to 1 to see the traceback of an internal error
EPILOG = ("Exit status: 0 something was loaded, 1 nothing readable (the reason on stderr), "
          "2 wrong arguments, 3 internal error, 130 interrupted.")


def holds_events(store) -> bool:
    """Whether a loaded card kept any event (slice, counter sample, instant or flow)."""
    return bool(len(store.slices) or len(store.counters.ts) or len(store.instants) or len(store.flows.src_ts))


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
