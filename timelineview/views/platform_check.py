"""Before Qt opens a window on X11: are the system libraries its ``xcb`` plugin needs there?

Without them Qt aborts the process with a hint that names the wrong fix (reinstalling Qt). We
try to load each library the plugin links against and, when some are missing, say in one line
which Debian/Ubuntu packages provide them. No Qt here: this runs before PySide6 is imported.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

# Shared libraries Qt 6's xcb platform plugin loads, and the Debian/Ubuntu package of each.
XCB_LIBRARIES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libfontconfig.so.1": "libfontconfig1",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
}


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def uses_xcb(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Will Qt pick its X11 (xcb) plugin in this environment?"""
    if not platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(":")[0].split(";")[0] == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def missing_packages(loads: Callable[[str], bool] | None = None) -> list[str]:
    """Packages whose library the xcb plugin needs and this machine cannot load, in table order."""
    loads = loads or _loads
    return [package for soname, package in XCB_LIBRARIES.items() if not loads(soname)]


def platform_problem(env: Mapping[str, str] | None = None, loads: Callable[[str], bool] | None = None,
                     platform: str = sys.platform) -> str | None:
    """One line saying why Qt cannot open a window here and what to do, or None when it can."""
    env = os.environ if env is None else env
    if not uses_xcb(env, platform):
        return None
    missing = missing_packages(loads)
    if missing:
        return ("timelineview: Qt cannot open a window: system libraries are missing. Install them with: "
                f"sudo apt-get install {' '.join(missing)}")
    if not env.get("DISPLAY"):
        return ("timelineview: no display to open a window on (DISPLAY is not set). Run it in a desktop "
                "session, or render a picture with --screenshot OUT.png")
    return None
