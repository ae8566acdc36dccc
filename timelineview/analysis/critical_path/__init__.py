"""Critical path and what-if of a cluster's steps (metrics.md §12). No Qt."""
