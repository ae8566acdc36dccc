"""A task's floating-point operations from its operator's shapes (metrics.md §7.1): the formulas per
operator kind, and the output shape a convolution's recorded inputs imply when the trace gives none."""
