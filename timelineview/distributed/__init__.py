"""Summaries of clusters beyond one machine (metrics.md §10): one Dask task per card, run where its files
are; the cluster-level results computed from the summaries. Needs ``distributed`` (the ``scale`` extra)."""
