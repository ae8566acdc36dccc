"""Lone surrogates: JSON text may escape half of a UTF-16 pair on its own (``"op\\ud800x"``).

That is valid JSON but no Unicode text: a Python ``str`` holds it, and every writer that
encodes it (UTF-8 output, orjson, Qt, Arrow) refuses it. The card builder and the args
reader pass what they decode through ``repaired_texts`` / ``repair_in_place``, so each
such character becomes U+FFFD once, in the model, and every surface downstream is safe.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a decoded pair is one code point: any left is lone
REPAIRED_WARNING = ("{n} text(s) held lone UTF-16 surrogates (valid JSON, invalid Unicode): "
                    "each such character is shown as U+FFFD")


def is_clean(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def repaired(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD."""
    return text if is_clean(text) else _LONE_SURROGATE.sub(REPLACEMENT, text)


def repaired_texts(texts: list) -> tuple[list, int]:
    """``texts`` (strings, or other values left as they are) with lone surrogates replaced, and how
    many strings were repaired. The same list comes back when none needed it (the usual case, one
    check over the joined text)."""
    strings = [t for t in texts if type(t) is str]
    if is_clean("\0".join(strings)):
        return texts, 0
    out = [repaired(t) if type(t) is str else t for t in texts]
    return out, sum(1 for a, b in zip(texts, out) if a is not b)


def repair_in_place(value: Any, max_depth: int = 64) -> tuple[Any, int]:
    """``value`` (decoded JSON) with lone surrogates in its strings and keys replaced, dicts and
    lists changed in place without recursion (down to ``max_depth`` levels), and how many strings
    were repaired."""
    if type(value) is str:
        fixed = repaired(value)
        return fixed, int(fixed is not value)
    if not isinstance(value, (dict, list)):
        return value, 0
    count = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            bad_keys = [k for k in node if type(k) is str and not is_clean(k)]
            for k in bad_keys:  # re-keyed at the end: the order of the others is kept as read
                node[repaired(k)] = node.pop(k)
            count += len(bad_keys)
            keys = list(node)
        else:
            keys = range(len(node))
        for k in keys:
            child = node[k]
            if type(child) is str:
                if not is_clean(child):
                    node[k] = repaired(child)
                    count += 1
            elif isinstance(child, (dict, list)) and depth < max_depth:
                stack.append((child, depth + 1))
    return value, count
