"""Bytes decoded, reported over all cards and per card."""

from __future__ import annotations

from collections.abc import Callable

from timelineview.model.load.chunked.file_job import FileJob

Progress = Callable[[int, int], None]
CardProgress = Callable[[int, int, int], None]  # card index, bytes done, bytes of that card


class ProgressMeter:
    """Bytes decoded, over all cards and per card."""

    def __init__(self, jobs: list[FileJob], n_cards: int, progress: Progress | None,
                 card_progress: CardProgress | None) -> None:
        self.progress, self.card_progress = progress, card_progress
        self.card_total = [0] * n_cards
        for job in jobs:
            self.card_total[job.card] += sum(b - a for a, b in job.ranges)
        self.card_done = [0] * n_cards
        self.total = sum(self.card_total) or 1
        self.done = 0
        if progress:
            progress(0, self.total)
        if card_progress:
            for c, t in enumerate(self.card_total):
                card_progress(c, 0, t)

    def finish(self) -> None:
        if self.progress and self.done < self.total:
            self.done = self.total
            self.progress(self.total, self.total)

    def add(self, card: int, nbytes: int) -> None:
        self.done += nbytes
        self.card_done[card] += nbytes
        if self.card_progress:
            self.card_progress(card, self.card_done[card], self.card_total[card])
        if self.progress:
            self.progress(self.done, self.total)
