"""Reading a damaged range: split it into its elements (``range_split``, with compiled verdicts from
``stretch_walk``) and parse what does not decode whole one element at a time (``tolerant``)."""
