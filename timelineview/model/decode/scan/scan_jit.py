"""How the scanner's kernels are compiled: ``jit``, and ``byte_at`` (an unchecked byte read).

The kernels span several modules (``byte_scan`` calls those of ``byte_scan_text``,
``byte_scan_numbers`` and ``byte_scan_tables``, and compiles in constants from
``scan_codes`` and ``scan_columns``). numba keys a cached function on its
own file only, so after an edit to one of the others it would load the old machine code.
Every kernel is therefore keyed on all of ``KERNEL_MODULES`` (through ``numba_internals``, the one
module that uses numba's private API).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from timelineview.model.decode.scan import numba_internals
from timelineview.provenance import text_digest

# numba colours its error messages with colorama, which rebinds sys.stdout and sys.stderr around each message
# and then restores the streams it saw when it started. Typing errors are routine inside a compile, and the
# scanner compiles in a warm-up thread: a redirection made meanwhile (a caller's redirect_stderr, pytest's
# capsys) was silently undone. Set before numba's first import, which reads it once; every module takes
# numba from here.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

try:  # numba is a dependency, but the loader must work (slower) without it
    import numba
    from numba.core import types
    from numba.extending import intrinsic
except ImportError:  # pragma: no cover - exercised only where numba is missing
    numba = None

# the modules whose text goes into the compiled scanner (functions or constants), by path in the decode package
KERNEL_MODULES = ("scan/scan_jit", "scan/numba_internals", "scan/scan_codes", "scan/scan_columns", "timestamps",
                  "scan/element_start", "scan/byte_scan_text", "scan/byte_scan_numbers", "scan/byte_scan_tables",
                  "scan/byte_scan_arrays", "scan/byte_scan", "damaged/stretch_walk")
DECODE_DIR = Path(__file__).resolve().parents[1]


@functools.cache
def _stamp() -> str:
    return text_digest(DECODE_DIR / f"{name}.py" for name in KERNEL_MODULES)


def jit(fn):
    """Compile ``fn`` as a scanner kernel (the plain function without numba), cached on the text of
    every one of ``KERNEL_MODULES``.

    Without NRT: no reference counting, which numba otherwise does with an atomic
    instruction each time an array is handed to a helper (once 40 % of the scan). The
    compiled code therefore allocates nothing; the caller owns every array.
    """
    if numba is None:
        return fn
    dispatcher = numba.njit(nogil=True, boundscheck=False, **numba_internals.NO_NRT)(fn)
    if not numba_internals.key_cache(numba, dispatcher, fn, _stamp()):  # numba's internals moved
        dispatcher.enable_caching()  # its own keying, per file
    return dispatcher


def byte_at(buf, i):
    """buf[i] as an int."""
    return int(buf[i])


if numba is not None:
    @intrinsic
    def byte_at(typingctx, arr, i):  # noqa: F811 - the compiled form of the one above
        """buf[i] without numba's negative-index wraparound: the scanner's indices are
        never negative, and the check cost a third of the scan."""
        sig = types.uint8(arr, i)

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, value=args[0])
            return builder.load(builder.gep(ary.data, [args[1]]))

        return sig, codegen
