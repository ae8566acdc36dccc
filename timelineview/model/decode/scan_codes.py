"""Codes shared by the compiled byte scanner and the code that reads its output.

Kept apart from ``byte_scan`` so that reading them does not import numba (and its
LLVM libraries) into a process that never scans.
"""

from __future__ import annotations

# element kinds
KIND_X, KIND_S, KIND_T, KIND_F, KIND_OTHER, KIND_C = 0, 1, 2, 3, 4, 5
KIND_META_COPY = 6  # an M event byte for byte the same as a later one of its range: counted, not read
KIND_I = 7  # an "i" instant
MAX_COUNTER_KEYS = 8  # a counter with more args members is left to the typed decoder
# token kinds of pid / tid / id
TOK_INT, TOK_STR, TOK_NULL = 0, 1, 2
# time value states; FLOAT: a JSON number the caller converts through float64
TIME_EXACT, TIME_FLOAT = 0, 1
# range states
RANGE_OK, RANGE_FAILED = 0, 1
# string flags
HAS_ESCAPES, HAS_NON_ASCII = 1, 2
# a TIME_FLOAT value holds where its number's text is: start << TEXT_SHIFT | length (capped)
TEXT_SHIFT = 16
TEXT_MAX_LENGTH = (1 << TEXT_SHIFT) - 1
