"""The one-line message when Qt's X11 plugin cannot load. No Qt needed."""

from __future__ import annotations

from timelineview import app
from timelineview.views import platform_check
from timelineview.views.platform_check import XCB_LIBRARIES, missing_packages, platform_problem, uses_xcb


def test_xcb_is_used_on_linux_unless_another_platform_is_chosen():
    assert uses_xcb({"DISPLAY": ":0"}, "linux")
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not uses_xcb({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not uses_xcb({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0"}, "darwin")


def test_missing_libraries_are_named_by_their_packages():
    absent = {"libxcb-icccm.so.4", "libxcb-cursor.so.0"}
    assert missing_packages(lambda soname: soname not in absent) == ["libxcb-cursor0", "libxcb-icccm4"]
    assert missing_packages(lambda soname: True) == []
    assert len(set(XCB_LIBRARIES.values())) == len(XCB_LIBRARIES)


def test_problem_line_says_what_to_install_or_that_there_is_no_display():
    line = platform_problem({"DISPLAY": ":0"}, lambda s: s != "libxcb-keysyms.so.1", "linux")
    assert line is not None and "\n" not in line
    assert line.endswith("sudo apt-get install libxcb-keysyms1")
    assert "DISPLAY" in platform_problem({}, lambda s: True, "linux")
    assert platform_problem({"DISPLAY": ":0"}, lambda s: True, "linux") is None
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}, lambda s: False, "linux") is None


def test_app_prints_the_line_and_exits_1_before_qt_aborts(monkeypatch, capsys):
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(platform_check, "_loads", lambda soname: soname != "libxcb-cursor.so.0")
    assert app.main(["--size", "800x600"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["timelineview: Qt cannot open a window: system libraries are missing. "
                   "Install them with: sudo apt-get install libxcb-cursor0"]
