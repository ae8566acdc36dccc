"""Chunk results -> ``TraceStore``: tables, lanes, flows, interval index, args, report, cache."""
