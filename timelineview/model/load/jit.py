"""Readiness of the compiled scanner: is it usable here, warm it, and keep numba's objects out of the GC.

The decoders take whether to scan as an argument; this module is the one place that
decides it (numba installed, not turned off with ``TIMELINEVIEW_JIT=0``) and that readies
the compiled code of this process.

A first run has no machine code in numba's cache and compiling takes 20-30 s. No load
waits for that: ``scanner_cached`` says (without importing numba) whether the cache holds
this scanner, and when it does not, ``compile_in_background`` compiles it in a separate
process for the next load while this one uses the typed decode. That process
compiles every other set of compiled loops too (``ON_DEMAND_KERNELS``: those a process
compiles on their first use), so that their first use after an install finds them cached. The scanner
comes first and is marked ready on its own (about half the compile's CPU time): on a machine loaded many
times its cores, where the compile gets a small share of a core, JSON loads use it that much sooner.

The compile waits until the process that launched it is done or idle (a compile beside the load that
started it cost that load 1.3-1.9x), then runs at the launching session's normal priority: a low priority
(a high nice value, the idle class) starved it on a machine loaded several times its cores. It runs in a
process group of its own (a Ctrl+C for the launching command does not reach it). One compile per cache at
a time: it holds an advisory lock on the lock file for as long as it lives, which the system drops when it
ends however it ends.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib.metadata
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from timelineview import provenance
from timelineview.model.load.library_pages import drop_library_pages
from timelineview.numba_cache import user_cache_root

_warm = False
_warm_lock = threading.Lock()
_compile_started = False
LAUNCHER_POLL_S = 0.5  # how often the compile looks whether its launcher is still busy
LAUNCHER_IDLE_SHARE = 0.2  # below this share of a core over a poll, the launcher counts as idle
LAUNCHER_WAIT_S = 120.0  # the compile starts after this long even beside a launcher that stays busy
CLOCK_TICKS = "SC_CLK_TCK"  # the unit of /proc/PID/stat's CPU times
_DECODE_DIR = Path(__file__).resolve().parents[1] / "decode"
SCANNER_FOLDER = "scan"  # the decode package's folder of the scanner's kernels, where numba caches them
BLAS_MODULE = "scipy.linalg.cython_blas"  # what numba imports to look for BLAS
COMPILE_MODULE = "timelineview.model.load.jit"  # this module, as ``-m`` runs it
# modules of the kernel sets ``warm_scanner`` readies in a process before its loads (each has ``warm()``)
SCANNER_KERNELS = ("timelineview.model.decode.scan.byte_scan", "timelineview.model.store.stack_walk")
# modules of the kernel sets compiled on their first use in a process (a ~3 s compile each when numba's cache
# does not hold them): the background compile puts them in the cache after the scanner (each has ``warm()``);
# the walk over a damaged file's stretches is among them: only a damaged JSON file needs it
ON_DEMAND_KERNELS = ("timelineview.model.decode.damaged.stretch_walk", "timelineview.model.database.sqlite.pages",
                     "timelineview.model.memory.csv_kernels")


@functools.cache
def _numba_installed() -> bool:
    return importlib.util.find_spec("numba") is not None


def scanner_available() -> bool:
    """True when the compiled scanner can be used (numba installed, not turned off with
    ``TIMELINEVIEW_JIT=0``). Does not import numba."""
    return os.environ.get("TIMELINEVIEW_JIT", "1") != "0" and _numba_installed()


def warm_scanner() -> None:
    """Compile the scanner (or load it from numba's cache) now, not during the first load.

    numba leaves ~120 000 Python objects that live as long as the process; they are
    frozen out of the garbage collector's way (``gc.freeze``), since a full collection
    walking them held the GIL for 50-80 ms, twice per load, and stalled the GUI thread.
    """
    global _warm
    with _warm_lock:
        if scanner_available() and not _warm:
            _warm_sets(SCANNER_KERNELS)  # stack_walk's: the index build uses it once numba is here
            drop_library_pages("libllvmlite")  # compiling is done: LLVM's code is not needed to run
            gc.collect()
            gc.freeze()
            _warm = True


def compile_kernels() -> None:
    """Put every set of compiled loops in numba's cache: the scanner's first (readied in this process too),
    marked as held at once (``scanner_cached``), then ``ON_DEMAND_KERNELS`` (``kernels_cached``)."""
    if not scanner_available():
        return
    compile_scanner()
    compile_on_demand()


def compile_scanner() -> None:
    """Put the scanner's kernel sets in numba's cache (readied in this process too) and mark them held."""
    if scanner_available():
        warm_scanner()
        _touch(_marker())


def compile_on_demand() -> None:
    """Put ``ON_DEMAND_KERNELS`` in numba's cache and mark them held (apart from the scanner: two processes
    may compile the two parts side by side)."""
    if scanner_available():
        _warm_sets(ON_DEMAND_KERNELS)
        _touch(_kernels_marker())


def _warm_sets(modules: tuple[str, ...]) -> None:
    """Compile (or load from numba's cache) the kernels of ``modules``, each by its ``warm()``."""
    with _numba_without_blas():  # numba imports its array maths at the first compile or cache load
        for name in modules:  # imported where used: ~100 MB
            importlib.import_module(name).warm()


@contextlib.contextmanager
def _numba_without_blas():
    """Import numba without its BLAS check: at import it loads scipy's linear algebra to see
    whether ``np.dot`` can be compiled (~40 % of readying the scanner from the cache), and the
    scanner uses no linear algebra. The project imports no scipy, so nothing else misses it."""
    if "numba" in sys.modules or BLAS_MODULE in sys.modules:
        yield
        return
    sys.modules[BLAS_MODULE] = None  # the import fails at once: numba takes it as "no BLAS"
    try:
        yield
    finally:
        if BLAS_MODULE in sys.modules and sys.modules[BLAS_MODULE] is None:
            del sys.modules[BLAS_MODULE]


def scanner_is_warm() -> bool:
    """True when this process has the scanner ready (using it then costs nothing extra)."""
    return _warm and scanner_available()


def _cache_dir() -> Path:
    """Where numba keeps the scanner's machine code (``NUMBA_CACHE_DIR``, else the ``__pycache__`` of the
    kernels' folder), or where the marker goes when that is not writable."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env)
    kernels = _DECODE_DIR / SCANNER_FOLDER
    local = kernels / "__pycache__"
    if os.access(local if local.exists() else kernels, os.W_OK):
        return local
    return user_cache_root()


def kernel_file(module: str) -> Path:
    """The source file of the kernel module ``module`` (found without importing it)."""
    return _package_root().joinpath(*module.split(".")).with_suffix(".py")


def _cache_key(folder: Path) -> str:
    """What numba's cached code depends on: the kernels' text, numba, the Python version, the folder."""
    digest = hashlib.sha256()
    # the kernels' stamp is computed by provenance: a change there changes numba's keys too
    kernels = [kernel_file(name) for name in SCANNER_KERNELS + ON_DEMAND_KERNELS]
    sources = sorted(set(_DECODE_DIR.rglob("*.py")) | set(kernels)) + [Path(provenance.__file__)]
    digest.update(provenance.text_digest(sources).encode())
    try:
        numba_version = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        numba_version = ""
    digest.update("\0".join((numba_version, sys.version, str(folder))).encode())
    return digest.hexdigest()[:20]


def _marker() -> Path:
    """The file that says numba's cache holds the scanner (``SCANNER_KERNELS``)."""
    folder = _cache_dir()
    return folder / f"timelineview-scanner-{_cache_key(folder)}.ready"


def _kernels_marker() -> Path:
    """The file that says numba's cache holds every other kernel set too (``ON_DEMAND_KERNELS``)."""
    return _marker().with_name(_marker().name.replace("-scanner-", "-kernels-"))


def scanner_cached() -> bool:
    """True when an earlier ``compile_kernels`` left this scanner's machine code in numba's cache, so
    readying it costs ~0.5 s instead of a compile. Does not import numba."""
    return scanner_available() and _marker().exists()


def on_demand_cached() -> bool:
    """True when numba's cache holds ``ON_DEMAND_KERNELS`` (whatever it holds of the scanner)."""
    return scanner_available() and _kernels_marker().exists()


def kernels_cached() -> bool:
    """True when numba's cache holds every kernel set, the scanner's and ``ON_DEMAND_KERNELS``: nothing is
    left for a compile to do. Does not import numba."""
    return scanner_cached() and _kernels_marker().exists()


def _touch(marker: Path) -> None:
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:  # a read-only install: each process then decides the scanner is cold
        pass


def _mark_cached() -> None:
    """Mark numba's cache as holding every kernel set."""
    _touch(_marker())
    _touch(_kernels_marker())


def _compile_lock() -> Path:
    return _marker().with_suffix(".compiling")


def compile_in_background() -> bool:
    """Start compiling the scanner and every other kernel set (``compile_kernels``) into numba's cache in a
    process of its own that waits for this one to be done or idle (it outlives a ``stats`` run, so the next
    run is fast). At most one such process per cache, whoever started it; returns whether one is under way."""
    global _compile_started
    if not scanner_available() or kernels_cached():
        return False
    if _compile_started:
        return True
    try:
        import fcntl
    except ImportError:  # no advisory locks here: no background compile, each process compiles on first use
        return False
    lock = _compile_lock()
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return True  # another process compiles it now
    try:
        # the child inherits the locked descriptor: the lock is held as long as the compile lives
        child = subprocess.Popen(_compile_command(lock), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(fd,),
                                 cwd=tempfile.gettempdir(), env=compile_child_env())
    except OSError:
        os.close(fd)
        return False
    os.ftruncate(fd, 0)
    os.write(fd, str(child.pid).encode())  # who compiles (a benchmark ends it, a user may)
    os.close(fd)
    _reap_when_done(child)
    _compile_started = True
    return True


def _compile_command(lock: Path) -> list[str]:
    """The background compile's command line: this module run as a program."""
    return [sys.executable, "-m", COMPILE_MODULE, str(lock)]


def _package_root() -> Path:
    """The folder that holds the ``timelineview`` package this process runs."""
    return Path(provenance.__file__).resolve().parents[1]


def compile_child_env() -> dict[str, str]:
    """The background compile's environment: this one, with the folder of this process's package first on
    ``PYTHONPATH`` (the child starts in the temporary folder, so a source checkout that is not the installed
    copy would otherwise compile the installed copy's scanner), unless that folder is site-packages itself
    (putting it before the standard library could shadow it)."""
    env = dict(os.environ)
    root = _package_root()
    if str(root) in {str(Path(p).resolve()) for p in _site_folders()}:
        return env
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _site_folders() -> list[str]:
    import site  # here: only a background compile needs it

    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    return folders + [site.getusersitepackages()]


def _reap_when_done(child: subprocess.Popen) -> None:
    """Wait for the compile on a daemon thread, so that its end is collected at once (no zombie until this
    process exits) while this process may still exit first (the compile, in a session of its own, goes on)."""
    threading.Thread(target=child.wait, name="scanner-compile-reaper", daemon=True).start()


def _detach() -> None:
    """A process group of its own, deaf to Ctrl+C and hang-ups: they are meant for the launching command."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def _cpu_seconds(pid: int) -> float | None:
    """CPU time ``pid`` has used (user and system), from /proc; None when that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf(CLOCK_TICKS)
    except (OSError, IndexError, ValueError):
        return None


def wait_for_launcher(launcher: int, wait_s: float = LAUNCHER_WAIT_S) -> str:
    """Wait until the launching process ``launcher`` has ended or idles (below ``LAUNCHER_IDLE_SHARE`` of a
    core over a poll), at most ``wait_s``; says which: "ended", "idle", "busy" or "unknown" (no /proc)."""
    used = _cpu_seconds(launcher)
    if used is None:
        return "ended" if os.getppid() != launcher else "unknown"
    for _ in range(max(1, int(wait_s / LAUNCHER_POLL_S))):
        threading.Event().wait(LAUNCHER_POLL_S)
        if os.getppid() != launcher:  # the launcher ended: this process was handed to another parent
            return "ended"
        now = _cpu_seconds(launcher)
        if now is None:
            return "ended"
        if now - used < LAUNCHER_IDLE_SHARE * LAUNCHER_POLL_S:
            return "idle"
        used = now
    return "busy"


def _compile_main(lock: str) -> None:
    """The background compile: once its launcher is done or idle, the lock file removed once the cache holds
    the kernels (the lock itself ends with this process)."""
    try:
        launcher = os.getppid()
        _detach()
        wait_for_launcher(launcher)
        compile_kernels()
    finally:
        Path(lock).unlink(missing_ok=True)


if __name__ == "__main__":
    _compile_main(sys.argv[1])
