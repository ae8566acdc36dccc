"""The Communication tab's operator tables as plain records (no Qt): per card, and per collective
across cards with each card's wait and the card the others wait for, where that is a verdict."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.communication import CardCommunication, CollectiveWaits, MainPlane
from timelineview.analysis.findings.marks import headline_text

NS_PER_US = 1000.0


def _us(v) -> float:
    return float(v) / NS_PER_US


FIGURES = ("transit", "wait", "synchronization", "idle")  # the fields of ``MainPlane`` / ``CommOps`` shown
PRODUCER_KEYS = ("plane", *(f"{f}_us" for f in FIGURES), "wait_ratio")  # the producer's, on the main plane


def all_planes_key(key: str) -> str:
    """Record key of an all-planes figure (``"wait_us"`` → ``"all_planes_wait_us"``)."""
    return f"all_planes_{key}"


def _ratio(wait: float, transit: float) -> float | None:
    return wait / (wait + transit) if wait + transit > 0 else None


def _producer_record(main: MainPlane | None, i: int) -> dict:
    """Operator ``i``'s headline fields: the producer's figures on its main plane ``plane`` (µs), all None
    without one."""
    if main is None or main.plane[i] < 0:
        return dict.fromkeys(PRODUCER_KEYS)
    rec = {"plane": int(main.plane[i]), **{f"{f}_us": _us(getattr(main, f)[i]) for f in FIGURES}}
    rec["wait_ratio"] = _ratio(rec["wait_us"], rec["transit_us"])
    return rec


def card_rows(cc: CardCommunication | None) -> list[dict]:
    """One record per communication operator of a card (µs; ``op`` is its row in ``cc.ops``): the
    producer's figures of its main plane (None where it has none) and the unions over every plane
    (``all_planes_…``)."""
    if cc is None:
        return []
    ops = cc.ops
    ratio = ops.wait_ratio
    rows = []
    for i in range(len(ops)):
        rec = {"op": i, "name": ops.name[i], "step": int(ops.step[i]) if ops.step[i] >= 0 else None,
               "elapse_us": _us(ops.elapse[i]), **_producer_record(ops.main, i)}
        for f in FIGURES:
            rec[all_planes_key(f"{f}_us")] = _us(getattr(ops, f)[i])
        rec[all_planes_key("wait_ratio")] = float(ratio[i]) if np.isfinite(ratio[i]) else None
        rec["tasks"] = int(ops.tasks[i])
        rows.append(rec)
    return rows


def has_main_plane(rows: list[dict]) -> bool:
    """Whether some operator of ``rows`` has the producer's figures (else their columns say nothing)."""
    return any(r.get("plane") is not None for r in rows)


def card_key(k: int) -> str:
    """Record key of the wait of card column ``k``."""
    return f"wait_{k}"


def across_rows(waits: CollectiveWaits) -> list[dict]:
    """One record per collective matched across cards: each card's wait, the least, the most and
    the card waited for (``waited_for`` its column, ``waited_for_card`` its name); ``call`` the
    0-based occurrence of its name on each card, ``call_number`` the same counted from 1."""
    rows = []
    for r in range(len(waits)):
        w = waits.wait[r]
        present = np.isfinite(w)
        who = int(waits.waited_for[r])
        call = int(waits.occurrence[r])  # 0-based: how collectives are matched (and found again on a card)
        rec = {"collective": r, "name": waits.name[r], "call": call, "call_number": call + 1,
               "waited_for": who, "waited_for_card": waits.cards[who] if who >= 0 else None,
               "least_wait_us": _us(np.nanmin(w)) if present.any() else None,
               "most_wait_us": _us(np.nanmax(w)) if present.any() else None,
               "cards": int(present.sum())}
        for k in range(len(waits.cards)):
            rec[card_key(k)] = _us(w[k]) if present[k] else None
        rows.append(rec)
    return rows


def names_repeat(rows: list[dict]) -> bool:
    """Whether some collective name is called more than once on a card (e.g. a graph's every iteration):
    only then does the call number tell rows apart (torch_npu names each call apart)."""
    return any(r["call"] > 0 for r in rows)


def waited_for_note(waits: CollectiveWaits, collectives: int) -> str:
    """The headline under the table: who the others wait for (a verdict, metrics.md §4), or that nobody is."""
    if not waits.flags:
        return (f"Across {collectives} collectives, no card makes the others wait: no card's lateness stands out "
                "from the others' over the steps.")
    counts = waits.least_wait_counts()
    credited = ", ".join(f"{f.card} in {int(counts[waits.cards.index(f.card)])}" for f in waits.flags)
    return (f"Across {collectives} collectives, {headline_text(waits.flags)}; the rows name it where it waited "
            f"least ({credited}).")
