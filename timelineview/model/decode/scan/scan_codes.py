"""The scanner's constants: the bytes it matches and the codes of the event keys it knows, and the
codes it writes for the code that reads its output.

Plain module-level ints: numba compiles them into the scanner as constants. Kept apart from
``byte_scan`` so that reading them does not import numba (and its LLVM libraries) into a process
that never scans.
"""

from __future__ import annotations

# ------------------------------------------------------------------ what the scanner reads
# JSON structure
QUOTE, BACKSLASH, COLON, COMMA = (ord(c) for c in '"\\:,')
OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY = (ord(c) for c in "{}[]")
SPACE, NEWLINE, RETURN, TAB = (ord(c) for c in " \n\r\t")
# numbers
MINUS, PLUS, POINT, ZERO, ONE, NINE = (ord(c) for c in "-+.019")
EXP, EXP_UPPER = ord("e"), ord("E")
# the first byte of true, false, null
TRUE_START, FALSE_START, NULL_START = ord("t"), ord("f"), ord("n")
# string escapes: \uXXXX, and the one-letter ones
ESCAPE_UNICODE = ord("u")
ESCAPE_LETTERS = tuple(ord(c) for c in '"\\/bfnrt')
HEX_UPPER_A, HEX_UPPER_F, HEX_LOWER_A, HEX_LOWER_F = (ord(c) for c in "AFaf")
FIRST_PRINTABLE = 0x20  # bytes below are control characters, never raw inside a JSON string
FIRST_NON_ASCII = 0x80
# UTF-8: continuation bytes, and the lead bytes of 2-, 3- and 4-byte sequences (RFC 3629)
CONT_MIN, CONT_MAX = 0x80, 0xBF
LEAD2_MIN, LEAD2_MAX = 0xC2, 0xDF
LEAD3_MIN, LEAD3_MAX = 0xE0, 0xEF
LEAD4_MIN, LEAD4_MAX = 0xF0, 0xF4
# lead bytes whose second byte has a narrower range (no overlong forms, surrogates, or > U+10FFFF)
LEAD3_OVERLONG, LEAD3_SURROGATE, LEAD4_OVERLONG, LEAD4_LAST = 0xE0, 0xED, 0xF0, 0xF4
OVERLONG3_MIN, SURROGATE_MAX, OVERLONG4_MIN, LAST4_MAX = 0xA0, 0x9F, 0x90, 0x8F

# phases ("ph") the scanner reads itself; BP_END is "bp": "e"
PH_X, PH_FLOW_START, PH_FLOW_STEP, PH_FLOW_END = (ord(c) for c in "Xstf")
PH_INSTANT, PH_METADATA, PH_COUNTER = (ord(c) for c in "iMC")
BP_END = ord("e")


def _word(key: str) -> int:
    """A key of 2-4 ASCII bytes as one integer (first byte highest), as ``key_code`` reads it."""
    return int.from_bytes(key.encode("ascii"), "big")


# the event keys the scanner reads (``key_code``); KEY_COUNTER_ARG + m is the m-th member
# of a counter's args, for the strings held until an element's phase is known
KEY_OTHER, KEY_PH, KEY_NAME, KEY_PID, KEY_TID, KEY_TS, KEY_DUR, KEY_CAT, KEY_ID, KEY_BP, KEY_ARGS = range(11)
KEY_COUNTER_ARG = 11
WORD_PH, WORD_NAME, WORD_PID, WORD_TID, WORD_TS = _word("ph"), _word("name"), _word("pid"), _word("tid"), _word("ts")
WORD_DUR, WORD_CAT, WORD_ID, WORD_BP, WORD_ARGS = _word("dur"), _word("cat"), _word("id"), _word("bp"), _word("args")


# ------------------------------------------------------------------ what it writes
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
RANGE_OK, RANGE_HOLES = 0, 1  # every element read; or some not (damaged, or a shape left to the typed path)
# string flags
HAS_ESCAPES, HAS_NON_ASCII = 1, 2
# a TIME_FLOAT value holds where its number's text is: start << TEXT_SHIFT | length (capped)
TEXT_SHIFT = 16
TEXT_MAX_LENGTH = (1 << TEXT_SHIFT) - 1

STRAY_CHARS = 32  # a damaged stretch this short without a "ph" key held no event (stray bytes)
# ``range_split.split``'s walk (and its compiled steps, ``stretch_walk``)
DEEP_RUN = 16  # stretches per run once one was nested too deep for msgspec (each such run fails whole)
DENSE = 8  # damaged events in one range from which each stretch is first weighed by its brackets
LOOK = 32  # blanks looked across around a '{' when telling whether an element starts there
