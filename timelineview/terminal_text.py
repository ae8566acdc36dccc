"""Text from a trace made safe to print on a terminal.

A name or path in a trace can hold control characters: ``ESC [2J`` clears the screen, ``ESC ]0;…``
sets the window title, ``\\r`` and ``\\n`` forge lines, the bidi overrides reorder what follows. Every
readable (non-JSON) output passes what it prints through ``terminal_safe``, which shows each such
character as a Python-style escape, as ``ls`` does with its own escape style:

- ``\\n``, ``\\r``, ``\\t`` for newline, carriage return and tab;
- ``\\xHH`` for the other C0 controls (U+0000–U+001F), DEL (U+007F) and the C1 controls (U+0080–U+009F),
  so ``ESC`` shows as ``\\x1b``;
- ``\\uHHHH`` for the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line
  and paragraph separators (U+2028, U+2029).

A backslash already in the text is left as it is (names and paths read unchanged). JSON output needs
none of this: JSON escapes control characters itself.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
_FORMAT_CONTROLS = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]
_ESCAPES = {c: _NAMED.get(chr(c), f"\\x{c:02x}") for c in _CONTROLS}
_ESCAPES.update({c: f"\\u{c:04x}" for c in _FORMAT_CONTROLS})
_ESCAPES_KEEPING_NEWLINES = {c: e for c, e in _ESCAPES.items() if c != ord("\n")}


def terminal_safe(text: object, *, lines: bool = False) -> str:
    """``text`` (made a string) with every control character escaped as the module says. With
    ``lines`` the newlines are kept: for a whole output whose fields were escaped already, as a
    last guard of the lines it writes."""
    return str(text).translate(_ESCAPES_KEEPING_NEWLINES if lines else _ESCAPES)
