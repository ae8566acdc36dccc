"""Asks which capture to open when a folder holds several captures of the same cards (``level0/`` and
``level1/`` of one job): a load reads one capture per card, so opening the folder would show one of them
and leave the others aside with only a line in the load report to say so."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

CHOICE_TITLE = "Several captures"
LIST_ROWS = 10
DIALOG_WIDTH = 520


def choice_text(folder: Path, captures: list[Path]) -> str:
    return (f"{folder} holds {len(captures)} separate captures of the same cards. "
            "Which one should open? (Each opens as a run of its own; open another later with File ▸ Open folder.)")


def capture_label(folder: Path, capture: Path) -> str:
    """A capture as the list names it: its path under the folder opened."""
    return str(capture.relative_to(folder)) if folder in capture.parents else str(capture)


class CaptureChoice(QtWidgets.QDialog):
    """A window-modal list of ``captures`` under ``folder``; ``chosen(Path)`` when one is opened."""

    chosen = QtCore.Signal(object)

    def __init__(self, folder: Path, captures: list[Path], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(CHOICE_TITLE)
        self.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        self.captures = list(captures)
        text = QtWidgets.QLabel(choice_text(folder, self.captures))
        text.setWordWrap(True)
        self.list = QtWidgets.QListWidget()
        for capture in self.captures:
            item = QtWidgets.QListWidgetItem(capture_label(folder, capture))
            item.setToolTip(str(capture))
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        rows = min(len(self.captures), LIST_ROWS)  # the list as tall as its captures (scrolls past LIST_ROWS)
        self.list.setFixedHeight(rows * self.list.sizeHintForRow(0) + 2 * self.list.frameWidth() + 4)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Open
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(text)
        lay.addWidget(self.list)
        lay.addWidget(buttons)
        self.setMinimumWidth(DIALOG_WIDTH)

    def accept(self) -> None:
        row = self.list.currentRow()
        super().accept()
        if 0 <= row < len(self.captures):
            self.chosen.emit(self.captures[row])
