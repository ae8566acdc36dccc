"""Navigation keys by physical position, and held-key acceleration.

W/A/S/D are read from the key's position (native scan code) so AZERTY, Dvorak and other layouts
navigate with the same fingers; mnemonic keys (F fit, M mark, 0 show all) use the character.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.viewstate.timeline.viewport import held_key_rate

ZOOM_IN, ZOOM_OUT, PAN_LEFT, PAN_RIGHT = "zoom_in", "zoom_out", "pan_left", "pan_right"

# Physical WASD: X11/Wayland xkb keycodes (evdev + 8), Windows set-1 scan codes, macOS virtual keys.
_XKB = {25: ZOOM_IN, 38: PAN_LEFT, 39: ZOOM_OUT, 40: PAN_RIGHT}
_WINDOWS = {0x11: ZOOM_IN, 0x1E: PAN_LEFT, 0x1F: ZOOM_OUT, 0x20: PAN_RIGHT}
_MAC_VIRTUAL = {13: ZOOM_IN, 0: PAN_LEFT, 1: ZOOM_OUT, 2: PAN_RIGHT}
_BY_CHARACTER = {
    QtCore.Qt.Key.Key_W: ZOOM_IN, QtCore.Qt.Key.Key_S: ZOOM_OUT,
    QtCore.Qt.Key.Key_A: PAN_LEFT, QtCore.Qt.Key.Key_D: PAN_RIGHT,
}
_DISCRETE = {
    QtCore.Qt.Key.Key_F: "fit", QtCore.Qt.Key.Key_0: "show_all", QtCore.Qt.Key.Key_Backspace: "undo",
    QtCore.Qt.Key.Key_M: "mark", QtCore.Qt.Key.Key_Question: "help", QtCore.Qt.Key.Key_Left: "prev",
    QtCore.Qt.Key.Key_Right: "next", QtCore.Qt.Key.Key_Up: "up", QtCore.Qt.Key.Key_Down: "down",
    QtCore.Qt.Key.Key_Escape: "escape",
}

STEP_ZOOM = 0.8  # one press of W; S is the inverse
STEP_PAN = 0.1  # one press of A/D, as a fraction of the visible span
HOLD_DELAY_S = 0.25  # continuous motion starts after this, so a tap is exactly one step
# Some X servers report auto-repeat as release/press pairs without the auto-repeat flag, both with
# the same timestamp: a release ends a hold unless a press of the same key follows within
# AUTOREPEAT_PAIR_MS of it (event time), and the hold ends RELEASE_GRACE_S (wall time) after a
# release that no such press followed. Synthetic events (timestamp 0) release at once.
AUTOREPEAT_PAIR_MS = 15
RELEASE_GRACE_S = 0.06
ZOOM_RATE = (1.5, 6.0)  # e-folds of span per second, at press and after the ramp
PAN_RATE = (0.8, 3.0)  # spans per second


def _platform() -> str:
    return QtGui.QGuiApplication.platformName()


def physical_action(ev: QtGui.QKeyEvent) -> str | None:
    """The WASD navigation action of a key event, by key position when the platform says it."""
    if ev.modifiers() & (QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.AltModifier
                         | QtCore.Qt.KeyboardModifier.MetaModifier):
        return None
    plat = _platform()
    table = None
    code = 0
    if plat in ("xcb", "wayland"):
        table, code = _XKB, ev.nativeScanCode()
    elif plat == "windows":
        table, code = _WINDOWS, ev.nativeScanCode() & 0xFF
    elif plat == "cocoa":
        table, code = _MAC_VIRTUAL, ev.nativeVirtualKey()
        if code == 0 and ev.key() != QtCore.Qt.Key.Key_A:  # 0 is also "unknown" on synthetic events
            table = None
    if table is not None and code:
        return table.get(code)
    return _BY_CHARACTER.get(QtCore.Qt.Key(ev.key()))


def discrete_action(ev: QtGui.QKeyEvent) -> str | None:
    """Single-shot actions: fit, show all, undo, mark, help, slice/lane steps, escape."""
    if ev.modifiers() & (QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.AltModifier):
        return None
    if ev.text() == "?":
        return "help"
    if ev.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):  # through the highlighted slices
        return "previous_match" if ev.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier else "next_match"
    return _DISCRETE.get(QtCore.Qt.Key(ev.key()))


class HeldKeys(QtCore.QObject):
    """Applies one step per press, then moves continuously and faster while the key stays down."""

    def __init__(self, step: Callable[[str, float | None], None], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._step = step  # step(action, None) for a press; step(action, rate × dt) while held
        self._held: dict[str, float] = {}  # action -> when its hold began
        self._releasing: dict[str, tuple[int, float]] = {}  # action -> (event ms, wall s) of its release
        self._last = 0.0
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(16)
        self._timer.timeout.connect(self._tick)

    def press(self, action: str, stamp_ms: int = 0) -> None:
        """A key went down (``stamp_ms``: the event's timestamp, 0 when unknown)."""
        released = self._releasing.pop(action, None)
        if released is not None:
            if stamp_ms and 0 <= stamp_ms - released[0] <= AUTOREPEAT_PAIR_MS:
                return  # a release/press pair of auto-repeat: the same hold goes on
            self._held.pop(action, None)  # a new press after a real release: a new hold
        if action in self._held:
            return  # auto-repeat: the timer already moves
        now = time.monotonic()
        self._held[action] = now
        self._step(action, None)
        self._last = now
        if not self._timer.isActive():
            self._timer.start()

    def release(self, action: str, stamp_ms: int = 0) -> None:
        """The key went up, or auto-repeat sent a release: the hold ends unless a press follows at
        once (timestamped events only)."""
        if action not in self._held:
            return
        if stamp_ms:
            self._releasing[action] = (stamp_ms, time.monotonic())
            return
        self._held.pop(action)
        if not self._held:
            self._timer.stop()

    def take_press(self, ev: QtGui.QKeyEvent) -> bool:
        """A navigation key's press event (auto-repeats change nothing); False for other keys."""
        action = physical_action(ev)
        if action is None:
            return False
        if not ev.isAutoRepeat():
            self.press(action, ev.timestamp())
        return True

    def take_release(self, ev: QtGui.QKeyEvent) -> bool:
        """A navigation key's release event; False for other keys and for auto-repeat."""
        action = physical_action(ev)
        if action is None or ev.isAutoRepeat():
            return False
        self.release(action, ev.timestamp())
        return True

    def release_all(self) -> None:
        self._held.clear()
        self._releasing.clear()
        self._timer.stop()

    @property
    def active(self) -> bool:
        return bool(self._held)

    def _tick(self) -> None:
        now = time.monotonic()
        dt = min(now - self._last, 0.1)
        self._last = now
        for action, (_, released) in list(self._releasing.items()):
            if now - released >= RELEASE_GRACE_S:
                del self._releasing[action]
                self._held.pop(action, None)
        if not self._held:
            self._timer.stop()
            return
        for action, since in list(self._held.items()):
            if action in self._releasing:
                continue  # released, perhaps for good: no motion while that is unknown
            held = now - since - HOLD_DELAY_S
            if held <= 0:
                continue
            lo, hi = ZOOM_RATE if action in (ZOOM_IN, ZOOM_OUT) else PAN_RATE
            self._step(action, held_key_rate(held, lo, hi) * dt)


class HeldKeyEvents:
    """Key releases and focus loss for a widget whose view ``held`` (``HeldKeys``) moves: a key
    released elsewhere must not keep the view moving. Mixed in before the Qt widget class."""

    held: HeldKeys

    def keyReleaseEvent(self, ev: QtGui.QKeyEvent) -> None:
        if self.held.take_release(ev):
            ev.accept()
            return
        super().keyReleaseEvent(ev)

    def focusOutEvent(self, ev: QtGui.QFocusEvent) -> None:
        self.held.release_all()
        super().focusOutEvent(ev)


WHEEL_ZOOM = 0.85  # per 120 units of wheel (one notch)
WHEEL_GESTURE_S = 0.6  # wheel events closer than this form one undo step


def nav_step(viewport, action: str, amount: float | None, mouse_x: float | None) -> None:
    """Move ``viewport`` (a ``Viewport``) for one W/A/S/D press (``amount`` None: one step, kept for
    undo) or a held key's increment (``amount``: rate × dt), zooming about ``mouse_x`` when given."""
    if action in (ZOOM_IN, "zoom_out"):
        if amount is None:
            viewport.zoom_at_px(STEP_ZOOM if action == ZOOM_IN else 1 / STEP_ZOOM, mouse_x, remember=True)
        else:
            viewport.zoom_at_px(float(np.exp(-amount if action == ZOOM_IN else amount)), mouse_x)
    else:
        sign = 1 if action == PAN_RIGHT else -1
        viewport.pan_fraction(sign * (STEP_PAN if amount is None else amount), remember=amount is None)


def wheel_zoom(viewport, notches_dy: int, x: float, last_wheel: float) -> float:
    """Zoom ``viewport`` about ``x`` for a wheel turn (``notches_dy``: angle delta, 120 a notch); the
    events of one gesture make one undo step. Returns the time to pass as ``last_wheel`` next."""
    now = time.monotonic()
    viewport.zoom_at_px(WHEEL_ZOOM ** (notches_dy / 120), x, remember=now - last_wheel > WHEEL_GESTURE_S)
    return now
