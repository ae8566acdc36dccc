"""The critical path on the timeline, without Qt: which slices lie on a step's path and where their outlines go
on screen."""
