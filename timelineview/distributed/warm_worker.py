"""A Dask worker preload (``dask worker ADDRESS --preload timelineview.distributed.warm_worker``; the local
cluster of ``summarize`` sets it): the card task's imports and the compiled scanner, readied as the worker
starts rather than in its first task (about 0.7 s of CPU per worker), while the client is still finding
the cards. A scanner not in numba's cache is not compiled here (20-30 s in every worker at once): the
cards are read with the typed decode and ``summarize`` starts one compile for next time (``first_run``)."""

from __future__ import annotations


def dask_setup(worker) -> None:  # noqa: ARG001 - the signature Dask calls
    """Import what a card task needs and ready the scanner when numba's cache holds it."""
    from timelineview.distributed.card_task import ready_cached_scanner

    ready_cached_scanner()
