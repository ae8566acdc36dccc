"""Tables → slices, one function per source table, all columnar: ``device_slices`` (``TASK`` and the
communication tables), ``host_slices`` (``CANN_API``, ``PYTORCH_API``), ``overlap_slices`` and ``step_slices``,
each appending to one ``slice_parts.SliceParts`` through ``table_reads.read_table``.

Each slice also records where its args live (``kind``, the ``rowid`` of its row, the ``rowid``
of its info row or -1), so that ``args.DatabaseArgs`` can read them when asked, not at load: not
slice by slice but block by block (``arg_locator.ArgLocator``), a block being the slices one ``SliceParts.add``
appended, whose rowids are mostly runs of consecutive rowids (tables are read in rowid order, ``rowids``).
"""
