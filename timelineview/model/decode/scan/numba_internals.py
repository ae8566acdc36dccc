"""What the scanner takes from numba beyond its public API, in one place.

Two things: compiling a kernel without NRT (the private ``_nrt`` option, see ``scan_jit.jit``), and a
kernel cache keyed on more source text than the kernel's own file (numba keys a cached function on
its file only, and the kernels span several modules). The cache subclasses
``numba.core.caching.FunctionCache`` and extends the stamp its index is checked against
(``_cache_file._source_stamp``), set on the dispatcher as its ``_cache``.

numba is never imported here: ``scan_jit`` imports it (after setting its environment) and passes the
module in. ``missing_internals`` names what of the above a numba lacks; the tests fail on it, and
at run time a kernel whose cache cannot be keyed so is cached as numba does (per file).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

CACHE_CLASS = "numba.core.caching.FunctionCache"
CACHE_FILE = "_cache_file"  # a FunctionCache's index file
SOURCE_STAMP = "_source_stamp"  # what the index file holds and is checked against when loaded
DISPATCHER_CACHE = "_cache"  # a dispatcher's cache (numba's NullCache until caching is on)
NO_NRT = {"_nrt": False}  # the compile option that turns NRT off


def _probe() -> int:
    """A function to build numba's objects for, when checking its internals."""
    return 0


@functools.cache
def _compiled_probe(numba: ModuleType) -> Any:
    """``_probe`` compiled without NRT, once: numba keeps a weak proxy to every dispatcher it compiled,
    and one dropped leaves a dead proxy behind."""
    dispatcher = numba.njit(**NO_NRT)(_probe)
    dispatcher()
    return dispatcher


def _function_cache(numba: ModuleType) -> Any:
    caching = getattr(getattr(numba, "core", None), "caching", None)
    return getattr(caching, "FunctionCache", None)


@functools.cache
def _keyed_class(function_cache: type) -> type:
    class KernelCache(function_cache):
        """numba's cache of one kernel, stale as soon as ``extra`` (a digest of its sources) changes."""

        def __init__(self, py_func, extra: str) -> None:
            super().__init__(py_func)
            cache_file = getattr(self, CACHE_FILE)
            setattr(cache_file, SOURCE_STAMP, (getattr(cache_file, SOURCE_STAMP), extra))

    return KernelCache


def key_cache(numba: ModuleType, dispatcher: Any, py_func, extra: str) -> bool:
    """Cache ``dispatcher`` (of ``py_func``) keyed on its file and on ``extra`` as well. False, changing
    nothing, when this numba lacks the internals that takes (the caller then enables numba's own cache)."""
    function_cache = _function_cache(numba)
    if function_cache is None or not hasattr(dispatcher, DISPATCHER_CACHE):
        return False
    try:
        cache = _keyed_class(function_cache)(py_func, extra)
    except (AttributeError, TypeError):
        return False
    setattr(dispatcher, DISPATCHER_CACHE, cache)
    return True


def cache_extra(dispatcher: Any) -> str | None:
    """The ``extra`` a dispatcher's cache is keyed on (``key_cache``), or None when it is not so keyed."""
    stamp = getattr(getattr(getattr(dispatcher, DISPATCHER_CACHE, None), CACHE_FILE, None), SOURCE_STAMP, None)
    return stamp[1] if isinstance(stamp, tuple) and len(stamp) == 2 and isinstance(stamp[1], str) else None


def missing_internals(numba: ModuleType, compile_probe: bool = True) -> list[str]:
    """The internals used here that ``numba`` lacks, by name (empty when it has them all).
    ``compile_probe``: also compile a trivial function without NRT (``NO_NRT``, ~0.3 s)."""
    function_cache = _function_cache(numba)
    if function_cache is None:
        return [CACHE_CLASS]
    missing = []
    try:
        cache_file = getattr(function_cache(_probe), CACHE_FILE, None)
    except Exception as exc:  # any failure to build one: the API changed
        return [f"{CACHE_CLASS}(py_func) ({type(exc).__name__}: {exc})"]
    if cache_file is None:
        missing.append(f"{CACHE_CLASS}().{CACHE_FILE}")
    elif not hasattr(cache_file, SOURCE_STAMP):
        missing.append(f"{CACHE_CLASS}().{CACHE_FILE}.{SOURCE_STAMP}")
    dispatcher = numba.njit(_probe)
    if not hasattr(dispatcher, DISPATCHER_CACHE):
        missing.append(f"numba.njit(...).{DISPATCHER_CACHE}")
    if compile_probe:
        try:
            _compiled_probe(numba)
        except Exception as exc:  # an option numba no longer knows fails the compile
            missing.append(f"numba.njit option {', '.join(NO_NRT)} ({type(exc).__name__}: {exc})")
    return missing


def describe_missing(numba: ModuleType, missing: list[str]) -> str:
    """The message for a numba that lacks internals the scanner uses."""
    version = getattr(numba, "__version__", "of unknown version")
    return (f"numba {version} lacks {', '.join(missing)}: the scanner's kernels are then cached per file "
            f"(stale after an edit to another kernel module) or compiled with NRT; update "
            f"timelineview/model/decode/scan/numba_internals.py for this numba")
