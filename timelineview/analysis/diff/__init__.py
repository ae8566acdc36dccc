"""Two runs compared (``timelineview diff``, the Compare tab): cards paired (``run_matching``), steps,
operators and memory side by side (``run_diff``), and their links (``link_diff``)."""
