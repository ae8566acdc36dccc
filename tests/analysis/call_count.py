"""Count the calls of a function wherever the package holds it (``from x import f`` binds a copy)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable


def count_calls(monkeypatch, function: Callable, key: Callable = lambda *args, **kwargs: None) -> Counter:
    """Wrap ``function`` in every loaded ``timelineview`` module that holds it by name; the returned
    counter counts calls by ``key(*args, **kwargs)``. Import the modules under test first."""
    calls: Counter = Counter()

    def counting(*args, **kwargs):
        calls[key(*args, **kwargs)] += 1
        return function(*args, **kwargs)

    name = function.__name__
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("timelineview") and getattr(module, name, None) is function:
            monkeypatch.setattr(module, name, counting)
    return calls
