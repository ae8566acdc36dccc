"""Names that are bare numbers: operator hashes the producer did not resolve to names.

msprof writes an operator's name through the graph engine's hash table; a hash missing from it stays
a number, and one that passed through a floating-point column reaches ``STRING_IDS`` in SQLite's
15-digit form (``1.83976461015564e+19``): no table of the capture turns it back into a name, its
digits are lost. Such a name is shown as written and said in the load report, never taken for a name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBER = re.compile(r"^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$")
NOTE = ("{count:,} {what} of {table} are named by a bare number, not a name: a hash the producer did not resolve "
        "(e.g. {example}); shown as written")


def is_bare_number(name: str) -> bool:
    """Whether ``name`` is a number written as text (integer, decimal or exponent form)."""
    return bool(_NUMBER.match(name))


def bare_number_note(names: Iterable[str], counts: Iterable[int], what: str, table: str) -> str | None:
    """The load-report line for the rows whose name is a bare number (``names`` distinct, ``counts`` rows
    each), or None when there is none."""
    found = [(n, k) for n, k in zip(names, counts, strict=True) if is_bare_number(n)]
    if not found:
        return None
    return NOTE.format(count=sum(k for _, k in found), what=what, table=table, example=found[0][0])
