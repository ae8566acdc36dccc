"""timelineview: a viewer and analyser for Ascend NPU profiler timelines."""

__version__ = "0.2.0"  # the one place the version is written: packaging reads it from here


def __getattr__(name: str):
    # ``timelineview.open`` is the Python API (timelineview.api); imported on first use so that importing
    # the package stays cheap and Qt-free
    if name == "open":
        from timelineview.api import open as open_run

        return open_run
    raise AttributeError(f"module 'timelineview' has no attribute {name!r}")
