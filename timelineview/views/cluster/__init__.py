"""The cluster comparison tab: per-card table, stacked bars, progress while loading."""
