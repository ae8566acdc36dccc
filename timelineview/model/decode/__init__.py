"""Bytes of a trace file -> chunk results: layout scan, compiled scanner, typed and tolerant decode."""
