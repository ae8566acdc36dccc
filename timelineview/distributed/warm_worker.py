"""A Dask worker preload (``dask worker ADDRESS --preload timelineview.distributed.warm_worker``; the local
cluster of ``summarize`` sets it): the card task's imports and the compiled scanner, readied as the worker
starts rather than in its first task (about 0.7 s of CPU per worker), while the client is still finding
the cards."""

from __future__ import annotations


def dask_setup(worker) -> None:  # noqa: ARG001 - the signature Dask calls
    """Import what a card task needs and ready the scanner."""
    from timelineview.distributed import card_task  # noqa: F401 - imported for its side effect
    from timelineview.model.load.jit import warm_scanner

    warm_scanner()
