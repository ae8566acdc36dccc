"""Panels under and beside the timeline: details of a slice or an area, per-name tables."""
