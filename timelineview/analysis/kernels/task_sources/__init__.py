"""Where a card's compute tasks are described from (metrics.md §7.1): the profiler database's compute-task
table, ``kernel_details.csv`` beside a JSON trace, the host operator that launched each task; each gives a
``SourceResult``."""
