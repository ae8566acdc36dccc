"""timelineview: a viewer and analyser for Ascend NPU profiler timelines."""

__version__ = "0.2.0"  # the one place the version is written: packaging reads it from here
