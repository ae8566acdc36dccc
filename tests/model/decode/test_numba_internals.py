"""numba's private API, used in one module (``numba_internals``): still there in the installed numba, and a
kernel cache keyed on extra text is missed when that text changes and hit when it does not."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest

from timelineview.model.decode.scan import numba_internals
from timelineview.model.load.jit import scanner_available

needs_numba = pytest.mark.skipif(not scanner_available(), reason="numba is not installed")


@needs_numba
def test_the_installed_numba_has_every_internal_the_scanner_uses():
    from timelineview.model.decode.scan.scan_jit import numba

    missing = numba_internals.missing_internals(numba)
    assert not missing, numba_internals.describe_missing(numba, missing)


def test_a_numba_without_them_is_named_with_its_version():
    """What the test above says when numba changes: the version and each missing attribute."""
    core = types.SimpleNamespace(caching=types.SimpleNamespace())  # no FunctionCache
    fake = types.SimpleNamespace(__version__="9.99.0", core=core)
    missing = numba_internals.missing_internals(fake)
    assert missing == ["numba.core.caching.FunctionCache"]
    message = numba_internals.describe_missing(fake, missing)
    assert "numba 9.99.0" in message and "numba.core.caching.FunctionCache" in message

    class CacheWithoutStamp:  # a FunctionCache whose index file no longer has ``_source_stamp``
        def __init__(self, py_func) -> None:
            self._cache_file = object()

    core.caching.FunctionCache = CacheWithoutStamp
    fake.njit = lambda fn: types.SimpleNamespace(_cache=None)
    missing = numba_internals.missing_internals(fake, compile_probe=False)
    assert missing == ["numba.core.caching.FunctionCache()._cache_file._source_stamp"]
    assert not numba_internals.key_cache(fake, types.SimpleNamespace(_cache=None), len, "x")


KERNEL = "def add_one(x):\n    return x + 1\n"
# numba keeps a weak proxy to each dispatcher it compiled: one dropped leaves a dead proxy among the
# objects the collector tracks, which a later test walking them trips over
_COMPILED: list = []


@needs_numba
def test_a_keyed_cache_is_missed_when_its_text_changes_and_hit_when_not(tmp_path, monkeypatch):
    from timelineview.model.decode.scan.scan_jit import numba

    (tmp_path / "probe_kernel.py").write_text(KERNEL)  # numba caches it in a __pycache__ beside it
    spec = importlib.util.spec_from_file_location("probe_kernel", tmp_path / "probe_kernel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "probe_kernel", module)

    def compiled(extra: str) -> tuple[int, int]:
        dispatcher = numba.njit(module.add_one)
        _COMPILED.append(dispatcher)
        assert numba_internals.key_cache(numba, dispatcher, module.add_one, extra)
        assert numba_internals.cache_extra(dispatcher) == extra
        assert dispatcher(41) == 42
        return sum(dispatcher.stats.cache_hits.values()), sum(dispatcher.stats.cache_misses.values())

    assert compiled("sources A") == (0, 1)  # compiled and saved
    assert compiled("sources A") == (1, 0)  # the same sources: loaded
    assert compiled("sources B") == (0, 1)  # another module edited: compiled again, not the stale code
