"""Decompress a ``.gz`` trace to a file the decoders can read by path, safely.

The copy is bounded (a sane expansion ratio and the free disk), keeps whatever decompressed
before damage or the bound (the loader reads it as a truncated trace), and is gone when the
process ends however it ends: on Linux it is unlinked as soon as it is created and read
through ``/proc/<pid>/fd/<n>``; elsewhere it lives in a folder named after the process,
removed at exit and by the next run if the process was killed.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

MAX_RATIO = 200  # decompressed / compressed bytes; JSON traces compress 10-50x
MIN_ALLOWED = 64 << 20  # small files may expand beyond the ratio up to this
DISK_RESERVE = 256 << 20  # free bytes left on the temporary folder's disk
READ_BLOCK = 1 << 20  # compressed bytes read at once
FEED_BLOCK = 64 << 10  # compressed bytes given to zlib at once
SALVAGE_BLOCK = 256  # ... and after damage, to keep what comes before it
OUT_BLOCK = 16 << 20  # decompressed bytes produced at once (bounds the memory of one step)
GZIP_WBITS = 31  # zlib: a gzip header and trailer
FOLDER_PREFIX = "timelineview-gz-"
_PROC_FD = "/proc/self/fd"

_kept_fds: list[int] = []  # unlinked copies in use: closed when the process ends
_folder: str | None = None
_lock = threading.Lock()


class Cancelled(Exception):
    """The cancel event was set while decompressing."""


@dataclass
class Gunzipped:
    """The decompressed copy: where to read it, and why it ended early (``problem``)."""

    read_path: str
    size: int
    problem: str = ""


def decompress(path: Path, cancel: threading.Event | None = None, *, temp_dir: str | None = None,
               max_ratio: int = MAX_RATIO, min_allowed: int = MIN_ALLOWED) -> Gunzipped:
    """Decompress ``path`` to a temporary copy; damage or the size bound ends it early (reported)."""
    temp_dir = temp_dir or tempfile.gettempdir()
    compressed = os.path.getsize(path)
    limit = max(compressed * max_ratio, min_allowed)
    free = shutil.disk_usage(temp_dir).free - DISK_RESERVE
    out_fd, read_path = _new_copy(temp_dir, path.name)
    written = 0
    problem = ""
    try:
        with open(path, "rb") as src, os.fdopen(os.dup(out_fd), "wb") as dst:
            stream = _Inflater()
            while not problem:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                block = src.read(READ_BLOCK)
                for out in stream.feed(block):
                    bound = min(limit, free)
                    if written + len(out) > bound:
                        dst.write(out[:max(0, bound - written)])
                        written = max(written, bound)
                        problem = _bound_message(written, compressed, limit, free, temp_dir)
                        break
                    dst.write(out)
                    written += len(out)
                problem = problem or stream.problem
                if not block:
                    break
    except BaseException:
        _discard(out_fd, read_path)
        raise
    if not read_path.startswith("/proc/"):
        os.close(out_fd)  # read by its name, removed with the folder
    return Gunzipped(read_path, written, problem)


class _Inflater:
    """gzip members one after another; output comes in bounded pieces, and on damage
    everything before the damaged bytes is still given out."""

    def __init__(self) -> None:
        self.z = zlib.decompressobj(GZIP_WBITS)
        self.in_member = False  # some bytes of the current member were read
        self.consumed = 0
        self.problem = ""

    def feed(self, data: bytes):
        """Yield the decompressed pieces of ``data`` (b"" ends the stream)."""
        if not data:
            if self.in_member:
                self.problem = f"the compressed data ends early (at byte {self.consumed})"
            return
        for k in range(0, len(data), FEED_BLOCK):
            part = data[k:k + FEED_BLOCK]
            saved = self.z.copy()
            try:
                yield from self._inflate(part)
            except zlib.error:  # again in small steps from before this part, to keep what precedes the damage
                self.z = saved
                try:
                    for j in range(0, len(part), SALVAGE_BLOCK):
                        yield from self._inflate(part[j:j + SALVAGE_BLOCK])
                except zlib.error as exc:
                    self.problem = f"corrupt compressed data near byte {self.consumed} ({exc})"
                    return
            if self.problem:
                return

    def _inflate(self, data: bytes):
        while data:
            self.in_member = True
            out = self.z.decompress(data, OUT_BLOCK)
            used = len(data) - len(self.z.unconsumed_tail) - len(self.z.unused_data)
            self.consumed += used
            data = self.z.unconsumed_tail
            if out:
                yield out
            if self.z.eof:  # a member ended: another may follow (``cat a.gz b.gz``)
                data = self.z.unused_data
                self.z = zlib.decompressobj(GZIP_WBITS)
                self.in_member = False
                if not data.strip(b"\0"):  # padding after the last member
                    self.consumed += len(data)
                    return


def _bound_message(written: int, compressed: int, limit: int, free: int, temp_dir: str) -> str:
    if limit <= free:
        return (f"decompression stopped at {written / 1e6:,.0f} MB: more than {limit // max(compressed, 1)}x "
                f"the compressed size ({compressed / 1e6:,.1f} MB), which no trace reaches (a gzip bomb?)")
    return (f"decompression stopped at {written / 1e6:,.0f} MB: the disk of {temp_dir} would have less "
            f"than {DISK_RESERVE >> 20} MB free (set TMPDIR to a larger disk)")


def _new_copy(temp_dir: str, name: str) -> tuple[int, str]:
    """A new file for the copy: (an open descriptor, the path to read it by)."""
    if os.path.isdir(_PROC_FD):
        fd, path = tempfile.mkstemp(prefix=FOLDER_PREFIX, suffix=".json", dir=temp_dir)
        os.unlink(path)  # gone from the folder now; its bytes go when the last descriptor closes
        with _lock:
            _kept_fds.append(fd)
        return fd, f"/proc/{os.getpid()}/fd/{fd}"
    folder = _own_folder(temp_dir)
    fd, path = tempfile.mkstemp(suffix="_" + name.removesuffix(".gz"), dir=folder)
    return fd, path


def _discard(fd: int, read_path: str) -> None:
    with _lock:
        if fd in _kept_fds:
            _kept_fds.remove(fd)
    try:
        os.close(fd)
    except OSError:
        pass
    if not read_path.startswith("/proc/"):
        try:
            os.unlink(read_path)
        except OSError:
            pass


def _own_folder(temp_dir: str) -> str:
    global _folder
    with _lock:
        if _folder is None:
            remove_leftovers(temp_dir)
            _folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-", dir=temp_dir)
            atexit.register(cleanup)
        return _folder


def remove_leftovers(temp_dir: str | None = None) -> list[str]:
    """Remove the copies of earlier runs that were killed (folders of processes not running)."""
    temp_dir = temp_dir or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(temp_dir)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(FOLDER_PREFIX):
            continue
        pid_text = name[len(FOLDER_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _running(int(pid_text)):
            continue
        shutil.rmtree(os.path.join(temp_dir, name), ignore_errors=True)
        removed.append(name)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def cleanup() -> None:
    """Close and remove every copy of this process (at exit)."""
    global _folder
    with _lock:
        fds, _kept_fds[:] = list(_kept_fds), []
        folder, _folder = _folder, None
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
