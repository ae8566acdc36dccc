"""What a card's ``card.json`` and ``details.json`` must hold to be read: each field's type, checked once.

The digests tell a file changed since it was written, not that what was written is a summary: a folder
whose digests were rewritten after an edit, or a card written by a foreign tool, passes them. The reader
then checks every field it takes against what ``write_card_summary`` writes, so that a wrong type is this
card's failure, with the field named, rather than an exception deep in the cluster analysis. No Qt.
"""

from __future__ import annotations

from collections.abc import Callable

from timelineview.analysis.card_results.registry import placed_results
from timelineview.analysis.card_results.section import rows_in

Check = Callable[[object], bool]


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and v == v and abs(v) != float("inf")


def _str(v) -> bool:
    return isinstance(v, str)


def _opt(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _list(check: Check) -> Check:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _dict(fields: dict[str, Check]) -> Check:
    return lambda v: isinstance(v, dict) and all(k in v and c(v[k]) for k, c in fields.items())


_STEP = _dict({"step": _int, "start": _int, "end": _int, "fp": _int, "bp": _int, "source": _str})
_LAYOUT = lambda v: isinstance(v, dict) and all(_str(k) and isinstance(e, list) for k, e in v.items())  # noqa: E731
MANIFEST_FIELDS: dict[str, Check] = {
    "card": _str, "rank": _opt(_int), "run": _str, "dir": _str, "key": _opt(_str), "worker": _str,
    "version": _str, "code": _str, "details": _str, "details_digest": _str, "error": _opt(_str),
    "comparison_error": _opt(_str), "comparison_steps": _opt(_list(lambda s: isinstance(s, dict))),
    "steps": _list(_STEP), "t_origin": _int, "t_end": _int,
    "columns": lambda v: isinstance(v, dict) and all(_str(k) and _str(f) for k, f in v.items()),
    "column_layout": _LAYOUT, "sources": _list(_str),
    "pyramid": _dict({"t0": _int, "t1": _int, "rows": _list(_str), "levels": _int}),
}
OPTIONAL_FIELDS: dict[str, Check] = {
    "derived": _dict({"span": _list(_int), "min_gap_ns": _int}),
    "collective_names": _list(_str), "collective_ends": _list(_int),
    "producer": _str,  # summaries made before the producer was kept have none (read as the Ascend words)
    "load_report": lambda v: isinstance(v, dict),  # summaries made before the load report was kept have none
}
_TABLE = _dict({"labels": _list(_str), "compute_total_ns": _int})
DETAILS_FIELDS: dict[str, Check] = {
    "document": lambda v: isinstance(v, dict),
    "operators": _opt(_dict({"by_name": _TABLE, "by_type": _TABLE})),
    "communication": _opt(_dict({"op_names": _list(_str), "transport": _list(_str), "link_type": _list(_str)})),
    "signals": _opt(lambda v: isinstance(v, dict)),
}


def _fields_problem(d: dict, fields: dict[str, Check]) -> str:
    """The first of ``fields`` that ``d`` lacks or holds with a wrong type, said ("" when none)."""
    for name, check in fields.items():
        if name not in d:
            return f"it has no {name}"
        if not check(d[name]):
            return f"its {name} is not what a summary holds"
    return ""


def manifest_problem(m: dict) -> str:
    """Why ``m`` is not a manifest ``write_card_summary`` writes ("" when it is one)."""
    if problem := _fields_problem(m, MANIFEST_FIELDS):
        return problem
    for name, check in OPTIONAL_FIELDS.items():
        if name in m and not check(m[name]):
            return f"its {name} is not what a summary holds"
    if len(m.get("collective_names", [])) != len(m.get("collective_ends", [])):
        return "its collective_names and collective_ends differ in length"
    if "derived" in m and len(m["derived"]["span"]) != 2:
        return "its derived span is not [start, end]"
    return ""


def details_problem(d: dict) -> str:
    """Why ``d`` is not a ``details.json`` ``write_card_summary`` writes ("" when it is one): its fields, and
    the rows of each declared result its card object holds (a summary made before a result was declared has
    none of it)."""
    if problem := _fields_problem(d, DETAILS_FIELDS):
        return problem
    for result in placed_results():
        rows = rows_in(d["document"], result)
        if rows is not None and (problem := result.rows_problem(rows, printed=True)):
            return f"its card object's {problem}"
    return ""
