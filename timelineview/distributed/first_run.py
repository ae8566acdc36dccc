"""A first ``summarize`` never waits for the compiler.

With the scanner not in numba's cache a worker would compile it (20-30 s) before its first card, every
worker at once. Instead the workers read with the typed decode (``card_task.ready_cached_scanner``), the
client says so once, and when the run's cards are done one low-priority compile per cache is started
(``jit.compile_in_background``: a lock in the cache lets one process compile) for the next run.
"""

from __future__ import annotations

FIRST_RUN_NOTE = ("first run: cards are read with the slower typed reader; the fast reader is compiled "
                  "in the background for next time")


def scanner_cold() -> bool:
    """On a worker: would readying the scanner mean a compile (usable here, but not in numba's cache)."""
    from timelineview.model.load import jit

    return jit.scanner_available() and not jit.scanner_cached()


def compile_for_next_time() -> bool:
    """On a worker: start the background compile into its numba cache (none when one is under way)."""
    from timelineview.model.load import jit

    return jit.compile_in_background()


def cold_workers(client) -> list[str]:
    """The addresses of the workers whose numba cache does not hold the scanner."""
    return [address for address, cold in client.run(scanner_cold).items() if cold]


def start_compile(client, workers: list[str]) -> dict[str, bool]:
    """Start the compile for next time on ``workers`` (one process per cache compiles, the others see its
    lock); per worker, whether a compile is under way. A worker lost during the run is skipped: asking it
    would wait 30 s for a connection, then fail the run whose cards are all done."""
    alive = set(client.scheduler_info()["workers"])
    workers = [w for w in workers if w in alive]
    return client.run(compile_for_next_time, workers=workers, on_error="ignore") if workers else {}
