"""The HCCL plane tasks coloured by transport / link type, and a transfer's bandwidth in words (no Qt).

The colour mode replaces, on the plane tasks only, the colour a slice's name gives it: each
(transport, link type) pair has one palette colour on every card (a fixed table for the usual
pairs, a hash of the pair for the others), wait tasks are grey, other plane tasks keep their colour.
"""

from __future__ import annotations

import zlib

import numpy as np

from timelineview.producers import hccl
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.palette import SLICE_COLOURS
from timelineview.viewstate.tabs.comm_matrix import format_bytes
from timelineview.viewstate.time_format import format_duration

KEEP = -1  # not a plane task: the name's colour
# Palette ids (viewstate.palette.SLICE_COLOURS) of the usual (transport, link type) pairs.
PAIR_COLOURS: dict[tuple[str, str], int] = {
    (hccl.TRANSPORT_SDMA, hccl.LINK_HCCS): 0, (hccl.TRANSPORT_SDMA, hccl.LINK_PCIE): 5,
    (hccl.TRANSPORT_SDMA, hccl.LINK_SIO): 4, (hccl.TRANSPORT_SDMA, hccl.LINK_ON_CHIP): 8,
    (hccl.TRANSPORT_RDMA, hccl.LINK_ROCE): 7, (hccl.TRANSPORT_RDMA, hccl.LINK_HCCS): 9,
    (hccl.TRANSPORT_RDMA, hccl.LINK_PCIE): 12, (hccl.TRANSPORT_LOCAL, hccl.LINK_ON_CHIP): 1,
}
WAIT_COLOUR = 2  # the palette's grey-blue: waiting, not moving data


def pair_colour(transport: str, link_type: str) -> int:
    """Palette id of a (transport, link type) pair, the same on every card."""
    known = PAIR_COLOURS.get((transport, link_type))
    if known is not None:
        return known
    return zlib.crc32(f"{transport}/{link_type}".encode()) % len(SLICE_COLOURS)


def plane_colour_ids(card: CardView) -> np.ndarray | None:
    """int16 palette id per slice of the card (``KEEP`` off the plane tasks), computed once per
    card; None when its communication analysis is absent."""
    cached = card.plane_colour_ids
    if cached is not None:
        return cached
    cc = getattr(card.analysis, "communication", None)
    if cc is None:
        return None
    t = cc.tasks
    out = np.full(len(card.store.slices), KEEP, dtype=np.int16)
    pairs = np.array([[pair_colour(tr, lt) for lt in t.link_types] for tr in t.transports], dtype=np.int16) \
        if t.transports and t.link_types else np.zeros((1, 1), np.int16)
    moving = t.transfer | (t.size > 0)
    out[t.slice[moving]] = pairs[t.transport[moving], t.link_type[moving]]
    out[t.slice[t.wait & ~moving]] = WAIT_COLOUR
    card.plane_colour_ids = out
    return out


def override_colours(card: CardView, slice_idx: np.ndarray, colour_ids: np.ndarray) -> np.ndarray:
    """``colour_ids`` of the rects of slices ``slice_idx`` (-1: a folded run) with the plane tasks'
    colours put in."""
    ids = plane_colour_ids(card)
    if ids is None or not len(slice_idx):
        return colour_ids
    over = np.where(slice_idx >= 0, ids[np.maximum(slice_idx, 0)], KEEP)
    return np.where(over >= 0, over.astype(colour_ids.dtype), colour_ids)


def transfer_details(card: CardView, index: int) -> list[tuple[str, str]]:
    """(field, text) about slice ``index`` when it is a plane task moving bytes: its link and its
    measured bandwidth (bytes / duration); empty otherwise."""
    cc = getattr(card.analysis, "communication", None)
    if cc is None or not len(cc.tasks):
        return []
    t = cc.tasks
    k = int(np.searchsorted(t.slice, index))
    if k >= len(t) or int(t.slice[k]) != index or not t.transfer[k]:
        return []
    dur = int(t.end[k] - t.start[k])
    size = int(t.size[k])
    link = (f"rank {int(t.src[k])} → rank {int(t.dst[k])}, {t.transports[int(t.transport[k])]} / "
            f"{t.link_types[int(t.link_type[k])]}")
    speed = f"{size / dur:.3g} GB/s" if dur > 0 else "— (0 ns)"
    return [("Bandwidth", f"{speed}: {format_bytes(size)} in {format_duration(dur)}"), ("Link", link)]
