"""The status bar's job display: what the running job does, its progress bar and a Cancel button."""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtWidgets

from timelineview.views.jobs.job import Progress

PROGRESS_STEPS = 1000  # the bar's range: a job's share done in thousandths
PROGRESS_WIDTH = 220  # px


class JobStatus:
    """Stage label, progress bar and Cancel button on ``status_bar``, hidden while no job runs."""

    def __init__(self, status_bar: QtWidgets.QStatusBar, cancel: Callable[[], None]) -> None:
        self.stage_label = QtWidgets.QLabel()
        self.progress = QtWidgets.QProgressBar()
        self.progress.setFixedWidth(PROGRESS_WIDTH)
        self.progress.setRange(0, PROGRESS_STEPS)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(lambda *_: cancel())
        for w in self.widgets:
            status_bar.addPermanentWidget(w)
            w.hide()

    @property
    def widgets(self) -> tuple[QtWidgets.QWidget, ...]:
        return self.stage_label, self.progress, self.cancel_button

    def begin(self, text: str) -> None:
        """A job started: its first words, the bar at zero."""
        self.progress.setValue(0)
        self.stage_label.setText(text)
        for w in self.widgets:
            w.show()

    def show(self, progress: Progress) -> None:
        """Where the job is (a count of 0 of 0 keeps the bar where it is: the stage changed alone)."""
        if progress.text:
            self.stage_label.setText(progress.text)
        if progress.total > 0:
            self.progress.setValue(round(PROGRESS_STEPS * progress.share))

    def cancelling(self) -> None:
        self.stage_label.setText("Cancelling…")

    def end(self) -> None:
        for w in self.widgets:
            w.hide()
