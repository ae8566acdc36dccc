"""A cancelled load lets go of its memory before ``load`` returns: decode
tasks already running have ended, and nothing of the load stays referenced."""

from __future__ import annotations

import gc
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from timelineview.model import LoadCancelled, load
from timelineview.model.decode.chunk_result import ChunkResult
from timelineview.model.load.chunked import decode_pool, decode_run, decode_tasks

from ..tracefile import x_event

TASK_SECONDS = 0.3


def test_cancel_returns_once_the_running_tasks_have_ended_and_keeps_nothing(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([x_event(f"op{i}", 1, 1, i * 2.0, 1.0) for i in range(6000)]))
    real = decode_run.decode_group
    running = []
    lock = threading.Lock()

    def slow_decode(*args):
        with lock:
            running.append(1)
        try:
            time.sleep(TASK_SECONDS)
            return real(*args)
        finally:
            with lock:
                running.pop()

    pool = ThreadPoolExecutor(max_workers=2)
    monkeypatch.setattr(decode_run, "decode_group", slow_decode)
    monkeypatch.setattr(decode_run, "get_pool", lambda workers=None, threads=None: pool)
    monkeypatch.setattr(decode_pool, "_pool_workers", 2)
    for name in ("INLINE_BYTES", "SCANNER_WORTH_BYTES"):
        monkeypatch.setattr(decode_run, name, 0)  # a pool, not the calling thread
    for module, name in ((decode_tasks, "TASK_BYTES"), (decode_run, "TYPED_TASK_BYTES")):
        monkeypatch.setattr(module, name, 16 << 10)  # many tasks
    cancel = threading.Event()

    def progress(done: int, total: int) -> None:
        if done:
            cancel.set()

    try:
        with pytest.raises(LoadCancelled):
            load(path, progress=progress, cancel=cancel, workers=2, chunk_bytes=4096)
        assert running == []  # no task of the cancelled load is still decoding (holding memory)
        gc.collect()
        assert not [o for o in gc.get_objects() if isinstance(o, ChunkResult)]
    finally:
        pool.shutdown(wait=True)
