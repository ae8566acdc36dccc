"""The window's messages: one non-blocking dialog at a time (a message or the load report), printed to
stderr instead when the window is headless (``--screenshot``)."""

from __future__ import annotations

import sys

from PySide6 import QtWidgets

from timelineview.terminal_text import terminal_safe
from timelineview.views.panels.load_report import LoadReportDialog, ReportText


class Messages:
    """Shows messages over ``parent``; ``interactive`` False prints them. ``last`` is the last one's text."""

    def __init__(self, parent: QtWidgets.QWidget, interactive: bool) -> None:
        self.parent, self.interactive = parent, interactive
        self.dialog: QtWidgets.QDialog | None = None  # the one open
        self.last = ""

    def _printed(self, message: str) -> bool:
        """Keep ``message`` as the last one; headless, print it instead of showing it (True)."""
        self.last = message
        if not self.interactive:
            print(terminal_safe(message, lines=True), file=sys.stderr)  # names and paths from the traces
        return not self.interactive

    def show(self, title: str, text: str, details: str = "", warning: bool = True) -> None:
        """A non-blocking message (the window stays usable)."""
        if self._printed(f"{title}: {text}\n{details}".strip()):
            return
        icon = QtWidgets.QMessageBox.Icon.Warning if warning else QtWidgets.QMessageBox.Icon.Information
        self.close()
        box = QtWidgets.QMessageBox(icon, title, text, QtWidgets.QMessageBox.StandardButton.Ok, self.parent)
        if details:
            box.setDetailedText(details)
        box.setModal(False)
        box.show()
        self.dialog = box

    def show_report(self, report: ReportText) -> None:
        """The load report dialog (its headline and body printed when headless)."""
        if self._printed(f"Load report: {report.headline}\n{report.body}".strip()):
            return
        self.close()
        self.dialog = LoadReportDialog(report, self.parent)
        self.dialog.show()

    def close(self) -> None:
        """One dialog at a time: a new message or report replaces the one open."""
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
