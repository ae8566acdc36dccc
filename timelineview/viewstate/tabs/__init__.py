"""The numbers and geometry of the analysis tabs, without Qt: matrices, heat maps, paired bars, run alignment."""
