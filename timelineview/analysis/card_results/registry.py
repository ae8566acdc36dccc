"""Every per-card result declared (``CARD_RESULTS``, in declaration order) and who derives something from them.

The card analysis makes a stage of each result and the API a table: they subscribe with :func:`when_declared`
and are told of every result declared before and after. The kept encoding, the card object, the summary and
the JSON schema read ``CARD_RESULTS`` when they need it. No Qt.
"""

from __future__ import annotations

from collections.abc import Callable

from timelineview.analysis.card_results.declaration import CardResult
from timelineview.analysis.kernels.declared_results import KERNEL_RESULTS

CARD_RESULTS: dict[str, CardResult] = {}
_subscribers: list[tuple[Callable[[CardResult], None], Callable[[CardResult], None]]] = []


def declare(result: CardResult) -> CardResult:
    """Add a per-card result (its name new): every surface derived from declarations has it from now on."""
    if result.name in CARD_RESULTS:
        raise ValueError(f"a card result {result.name!r} is declared already")
    CARD_RESULTS[result.name] = result
    for added, _ in _subscribers:
        added(result)
    return result


def withdraw(name: str) -> None:
    """Remove the result ``name`` declared earlier (a test's own result, once the test is done)."""
    result = CARD_RESULTS.pop(name)
    for _, removed in _subscribers:
        removed(result)


def when_declared(added: Callable[[CardResult], None], removed: Callable[[CardResult], None]) -> None:
    """Call ``added`` for each result declared so far and each declared later, ``removed`` for each withdrawn."""
    _subscribers.append((added, removed))
    for result in CARD_RESULTS.values():
        added(result)


def placed_results() -> list[CardResult]:
    """The results that are part of the card object, in declaration order."""
    return [r for r in CARD_RESULTS.values() if r.summarised]


for _result in KERNEL_RESULTS:
    declare(_result)
