"""Light and dark colours for the timeline, following the system colour scheme."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.viewstate.palette import DERIVED_COLOURS, SLICE_COLOURS, text_on


def _rgb(rgb: tuple[int, int, int], alpha: int = 255) -> QtGui.QColor:
    return QtGui.QColor(rgb[0], rgb[1], rgb[2], alpha)


@dataclass
class Theme:
    """Every colour the timeline paints with; slice fills are indexed by palette id."""

    dark: bool
    background: QtGui.QColor
    band: QtGui.QColor  # alternate lane background
    header: QtGui.QColor  # card / process header rows
    text: QtGui.QColor
    muted: QtGui.QColor
    grid: QtGui.QColor
    busy: QtGui.QColor  # folded runs of tiny slices
    busy_label: QtGui.QColor  # text on a folded run
    summary: QtGui.QColor  # collapsed-group busy strip
    selection: QtGui.QColor
    area_fill: QtGui.QColor
    area_edge: QtGui.QColor
    mark_fill: QtGui.QColor
    mark_edge: QtGui.QColor
    match: QtGui.QColor
    cursor: QtGui.QColor
    flow: QtGui.QColor
    fills: list[QtGui.QColor]
    label_colours: list[QtGui.QColor]
    derived: dict[str, QtGui.QColor]

    @staticmethod
    def build(dark: bool) -> Theme:
        def shade(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
            # dark backgrounds want slightly deeper fills so white labels stay readable
            return tuple(int(c * 0.78) for c in rgb) if dark else rgb  # type: ignore[return-value]

        fills = [shade(c) for c in SLICE_COLOURS]
        if dark:
            base = dict(background=(30, 31, 34), band=(36, 37, 41), header=(44, 46, 51), text=(222, 224, 228),
                        muted=(150, 156, 164), grid=(58, 60, 66), busy=(112, 120, 132),
                        summary=(96, 140, 200), selection=(255, 255, 255), cursor=(255, 120, 100),
                        flow=(230, 230, 235))
        else:
            base = dict(background=(252, 252, 253), band=(244, 245, 247), header=(233, 236, 240),
                        text=(32, 33, 36), muted=(100, 106, 115), grid=(222, 225, 230), busy=(150, 158, 170),
                        summary=(80, 125, 190), selection=(20, 20, 25), cursor=(210, 60, 50),
                        flow=(40, 40, 48))
        return Theme(
            dark=dark,
            **{k: _rgb(v) for k, v in base.items()},
            area_fill=QtGui.QColor(66, 133, 244, 45),
            area_edge=QtGui.QColor(66, 133, 244, 200),
            mark_fill=QtGui.QColor(250, 190, 20, 40),
            mark_edge=QtGui.QColor(220, 160, 0, 220),
            busy_label=_rgb(text_on(base["busy"])),
            match=QtGui.QColor(255, 200, 0) if not dark else QtGui.QColor(255, 215, 60),
            fills=[_rgb(c) for c in fills],
            label_colours=[_rgb(text_on(c)) for c in fills],
            derived={k: _rgb(shade(v)) for k, v in DERIVED_COLOURS.items()},
        )


def system_is_dark() -> bool:
    """Whether the application currently shows a dark colour scheme."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        return False
    hints = QtGui.QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hasattr(hints, "colorScheme") else QtCore.Qt.ColorScheme.Unknown
    if scheme == QtCore.Qt.ColorScheme.Dark:
        return True
    if scheme == QtCore.Qt.ColorScheme.Light:
        return False
    return app.palette().color(QtGui.QPalette.ColorRole.Window).lightness() < 128


def apply_dark_palette(app: QtWidgets.QApplication) -> None:
    """Force a dark Fusion palette (``--theme dark`` and platforms without a dark style)."""
    app.setStyle("Fusion")
    p = QtGui.QPalette()
    role = QtGui.QPalette.ColorRole
    for r, c in {
        role.Window: (37, 38, 42), role.WindowText: (222, 224, 228), role.Base: (30, 31, 34),
        role.AlternateBase: (40, 41, 46), role.ToolTipBase: (50, 52, 58), role.ToolTipText: (230, 230, 230),
        role.Text: (222, 224, 228), role.Button: (45, 47, 52), role.ButtonText: (222, 224, 228),
        role.BrightText: (255, 90, 90), role.Highlight: (66, 133, 244), role.HighlightedText: (255, 255, 255),
        role.PlaceholderText: (130, 135, 142), role.Link: (110, 160, 250), role.Mid: (60, 62, 68),
        role.Dark: (24, 25, 28), role.Light: (70, 72, 78),
    }.items():
        p.setColor(r, QtGui.QColor(*c))
    for r in (role.Text, role.WindowText, role.ButtonText):
        p.setColor(QtGui.QPalette.ColorGroup.Disabled, r, QtGui.QColor(120, 124, 130))
    app.setPalette(p)


def apply_light_palette(app: QtWidgets.QApplication) -> None:
    """Force Fusion's light palette (``--theme light``)."""
    app.setStyle("Fusion")
    app.setPalette(app.style().standardPalette())
