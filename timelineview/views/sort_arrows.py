"""Sort arrows that point the way the rows run: ▲ over an ascending column, ▼ over a descending one.

Qt's header hands the style "sort down" for an ascending column. Fusion (the default on Linux) and
the classic Windows style draw that as a downward arrow, so a table opened largest-first (sorted
descending) showed ▲ and read as smallest-first. Other styles are left as they draw.
"""

from __future__ import annotations

from PySide6 import QtWidgets

# styles that draw the header's "sort down" as a downward arrow (the ones Qt draws itself)
DOWN_FOR_ASCENDING = frozenset({"fusion", "windows"})

_style: QtWidgets.QProxyStyle | None = None


class SortArrowStyle(QtWidgets.QProxyStyle):
    """The desktop style, with the header's sort arrow turned where that style points it against the order."""

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802 - Qt's name
        if (element == QtWidgets.QStyle.PrimitiveElement.PE_IndicatorHeaderArrow
                and isinstance(option, QtWidgets.QStyleOptionHeader) and flips(self.baseStyle().name())):
            option = QtWidgets.QStyleOptionHeader(option)
            option.sortIndicator = flipped(option.sortIndicator)
        super().drawPrimitive(element, option, painter, widget)


def flips(style_name: str) -> bool:
    """Whether the style ``style_name`` points an ascending column's arrow down."""
    return style_name.lower() in DOWN_FOR_ASCENDING


def flipped(indicator: QtWidgets.QStyleOptionHeader.SortIndicator) -> QtWidgets.QStyleOptionHeader.SortIndicator:
    up, down = QtWidgets.QStyleOptionHeader.SortIndicator.SortUp, QtWidgets.QStyleOptionHeader.SortIndicator.SortDown
    return down if indicator == up else up if indicator == down else indicator


def conventional_sort_arrows(view: QtWidgets.QAbstractItemView) -> None:
    """Give ``view``'s horizontal header sort arrows that point the way its rows run."""
    global _style
    if _style is None:  # the application's style (a copy: the proxy owns its base), as the theme chose it
        base = QtWidgets.QStyleFactory.create(QtWidgets.QApplication.style().name())
        _style = SortArrowStyle(base) if base is not None else SortArrowStyle()
    view.horizontalHeader().setStyle(_style)
