"""Bound the work of parsing a summary's JSON by what such a file may hold, before it is parsed: every JSON value
past the first follows a ``[``, ``{``, ``,`` or ``:``, so counting those bytes (in C, without parsing) bounds the
number of Python objects the parse would build. A file within its byte bound can still be made of tiny values
(``[],`` is three bytes and about 60 bytes of memory once parsed: 200 MB of them took 3.3 GB and minutes)."""

from __future__ import annotations

from timelineview.model.summary.guarded_files import SummaryFileError

_SEPARATORS = (b"[", b"{", b",", b":")


def json_values_at_most(data: bytes) -> int:
    """An upper bound of the JSON values in ``data`` (separators in strings are counted too)."""
    return 1 + sum(data.count(s) for s in _SEPARATORS)


def check_json_weight(data: bytes, max_values: int, where: str) -> None:
    """``SummaryFileError`` when ``data`` may hold more than ``max_values`` JSON values."""
    values = json_values_at_most(data)
    if values > max_values:
        raise SummaryFileError(f"{where}: up to {values:,} JSON values, more than such a file may hold "
                               f"({max_values:,}); not read")
