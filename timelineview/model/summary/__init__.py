"""Card summaries on disk (metrics.md §10): per card a folder of ``.npy`` columns and a JSON manifest,
and the ``index.json`` of a summary folder. No Qt, no analysis: only the format and its reader."""
