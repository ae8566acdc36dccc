"""A load's JSON trace files decoded in chunks, in parallel: the decode pool, the choice of decoder, the
tasks handed out, and each card fed its chunks in file order with its files' reports."""
