"""Visible time window maths: zoom, pan, fit and undo, in integer nanoseconds.

Times here are ns relative to the timeline origin (the first slice of the earliest card), kept as
Python ints so zooming stays exact down to 1 ns at any distance from the origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MIN_SPAN_NS = 10  # narrowest window: 1 ns is then ~1/10 of the view, so single ns are visible
HISTORY_LIMIT = 200


@dataclass
class Viewport:
    """The window [t0, t1] shown across ``width_px`` pixels, clamped to the data extent."""

    t_min: int = 0
    t_max: int = 1
    width_px: int = 1000
    t0: int = 0
    t1: int = 1
    history: list[tuple[int, int]] = field(default_factory=list)
    # ((x px, t0, t1) after the last zoom at a pixel, the time under that pixel when the zooms
    # began): zooms that follow at the same pixel keep that time there, instead of re-reading the
    # ns-rounded time each step, so rounding never adds up to a drift (it did: a whole view at the
    # deepest zoom)
    _anchor: tuple[tuple[float, int, int], int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.t1 <= self.t0:
            self.show_all(remember=False)

    # ------------------------------------------------------------------ extent
    @property
    def span(self) -> int:
        return self.t1 - self.t0

    @property
    def pad(self) -> int:
        """Margin shown around the data by 'show all' (1 % each side)."""
        return max(1, (self.t_max - self.t_min) // 100)

    @property
    def max_span(self) -> int:
        return max(MIN_SPAN_NS, self.t_max - self.t_min + 2 * self.pad)

    def set_extent(self, t_min: int, t_max: int) -> None:
        """New data extent (after loading); shows everything and clears the history."""
        self.t_min, self.t_max = int(t_min), max(int(t_max), int(t_min) + 1)
        self.history.clear()
        self.show_all(remember=False)

    def set_width(self, width_px: int) -> None:
        self.width_px = max(1, int(width_px))

    # ------------------------------------------------------------------ mapping
    @property
    def ns_per_px(self) -> float:
        return self.span / self.width_px

    def x_of(self, t: int) -> float:
        """Pixel x (from the left edge) of time ``t``; exact int subtraction first."""
        return (int(t) - self.t0) * self.width_px / self.span

    def t_of(self, x: float) -> int:
        """Time under pixel ``x``, rounded to the ns."""
        return self.t0 + round(x * self.span / self.width_px)

    # ------------------------------------------------------------------ changes
    def remember(self) -> None:
        """Push the current window so :meth:`undo` can return to it."""
        state = (self.t0, self.t1)
        if not self.history or self.history[-1] != state:
            self.history.append(state)
            del self.history[:-HISTORY_LIMIT]

    def undo(self) -> bool:
        """Return to the last remembered window; False when there is none."""
        while self.history:
            t0, t1 = self.history.pop()
            if (t0, t1) != (self.t0, self.t1):
                self.t0, self.t1 = t0, t1
                return True
        return False

    def set_range(self, t0: int, t1: int, remember: bool = True) -> None:
        """Show [t0, t1] (clamped); the span never goes below :data:`MIN_SPAN_NS`."""
        t0, t1 = int(t0), int(t1)
        if t1 < t0:
            t0, t1 = t1, t0
        if remember:
            self.remember()
        span = min(max(t1 - t0, MIN_SPAN_NS), self.max_span)
        centre2 = t0 + t1  # twice the centre keeps odd spans exact
        self._place(centre2 // 2 - span // 2, span)

    def show_all(self, remember: bool = True) -> None:
        if remember:
            self.remember()
        self._place(self.t_min - self.pad, self.max_span)

    def fit(self, t0: int, t1: int, margin: float = 0.05, remember: bool = True) -> None:
        """Show [t0, t1] with a small margin each side (F key, search hits)."""
        span = max(int(t1) - int(t0), MIN_SPAN_NS)
        extra = int(span * margin)
        self.set_range(int(t0) - extra, int(t1) + extra, remember=remember)

    def zoom(self, factor: float, anchor: int | None = None, remember: bool = False) -> None:
        """Scale the span by ``factor`` (< 1 zooms in) keeping ``anchor`` at the same pixel."""
        if remember:
            self.remember()
        if anchor is None:
            anchor = self.t0 + self.span // 2
        anchor = int(anchor)
        old = self.span
        new = min(max(round(old * factor), MIN_SPAN_NS), self.max_span)
        if new == old:
            return
        # anchor keeps its fraction of the window: t0' = a - (a - t0) * new / old, rounded exactly
        num = (anchor - self.t0) * new
        self._place(anchor - (num + old // 2) // old, new)

    def zoom_at_px(self, factor: float, x_px: float | None, remember: bool = False) -> None:
        """Zoom around pixel ``x_px`` (the view centre when None or outside the view): the time
        under that pixel stays under it, to the ns, however many zooms follow."""
        if x_px is None or not 0 <= x_px <= self.width_px:
            self.zoom(factor, None, remember=remember)
            return
        if remember:
            self.remember()
        x = float(x_px)
        if self._anchor is not None and self._anchor[0] == (x, self.t0, self.t1):
            anchor = self._anchor[1]
        else:
            anchor = self.t_of(x)  # the time the status line shows under the mouse
        old = self.span
        new = min(max(round(old * factor), MIN_SPAN_NS), self.max_span)
        if new == old:
            return
        self._place(round(anchor - x * new / self.width_px), new)
        self._anchor = ((x, self.t0, self.t1), anchor)

    def pan(self, delta_ns: int, remember: bool = False) -> None:
        """Move the window by ``delta_ns`` (positive moves later in time)."""
        if remember:
            self.remember()
        self._place(self.t0 + int(delta_ns), self.span)

    def pan_fraction(self, fraction: float, remember: bool = False) -> None:
        """Pan by a fraction of the span, at least 1 ns so a deep zoom still moves."""
        delta = round(self.span * fraction)
        if delta == 0 and fraction != 0:
            delta = 1 if fraction > 0 else -1
        self.pan(delta, remember=remember)

    def pan_px(self, dx_px: float, remember: bool = False) -> None:
        """Pan by a pixel distance (drag): content follows the mouse."""
        self.pan(-round(dx_px * self.span / self.width_px), remember=remember)

    def _place(self, t0: int, span: int) -> None:
        """Set the window, keeping it inside the padded data extent."""
        lo = self.t_min - self.pad
        hi = self.t_max + self.pad
        span = min(max(int(span), MIN_SPAN_NS), max(hi - lo, MIN_SPAN_NS))
        t0 = min(max(int(t0), lo), hi - span)
        self.t0, self.t1 = t0, t0 + span


def held_key_rate(held_s: float, base: float, top: float, ramp_s: float = 1.2) -> float:
    """Speed of a held navigation key: ``base`` at press, growing linearly to ``top`` after ``ramp_s``."""
    k = min(max(held_s / ramp_s, 0.0), 1.0)
    return base + (top - base) * k
