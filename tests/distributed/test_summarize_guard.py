"""``summarize`` with arguments it cannot use says why in one line, at once, with the documented exit status;
servers in these tests listen on 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from timelineview.commands.exit_codes import EXIT_USAGE
from timelineview.distributed.scheduler_probe import CONNECT_TIMEOUT_S, HANDSHAKE_GRACE_S, SchedulerUnusable, probe

ROOT = Path(__file__).resolve().parents[2]
HANG_S = 300  # only stops a hung command; how soon the probe gives up is in its message, not in a wall clock


class PlainServer:
    """A TCP server on 127.0.0.1 that is not Dask: it answers every connection with ``reply`` (or, with
    None, says nothing and keeps the connection open)."""

    def __init__(self, reply: bytes | None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.reply = reply
        self.held: list[socket.socket] = []
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.reply is not None:
                conn.sendall(self.reply)

    def close(self) -> None:
        for conn in self.held:
            conn.close()
        self.sock.close()


@pytest.fixture
def http_server():
    server = PlainServer(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nnot dask\n")
    yield server
    server.close()


@pytest.fixture
def silent_server():
    server = PlainServer(None)
    yield server
    server.close()


def summarize(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "job").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "timelineview", "summarize", str(tmp_path / "job"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)


def one_line(run: subprocess.CompletedProcess) -> str:
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    return lines[0]


def test_a_server_that_is_not_dask(tmp_path, http_server):
    run = summarize(tmp_path, "--out", str(tmp_path / "out"), "--scheduler", http_server.address)
    assert run.returncode == EXIT_USAGE
    assert one_line(run) == f"timelineview summarize: {http_server.address} is not a Dask scheduler " \
                            "(it answers in another protocol)"


def test_a_server_that_says_nothing(tmp_path, silent_server):
    run = summarize(tmp_path, "--out", str(tmp_path / "out"), "--scheduler", silent_server.address)
    assert run.returncode == EXIT_USAGE
    assert one_line(run) == (f"timelineview summarize: nothing at {silent_server.address} answered as a Dask "
                             f"scheduler within {CONNECT_TIMEOUT_S + HANDSHAKE_GRACE_S:g} s")


def test_an_address_nobody_listens_on(tmp_path):
    with socket.socket() as s:  # a port just freed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = summarize(tmp_path, "--out", str(tmp_path / "out"), "--scheduler", f"tcp://127.0.0.1:{port}")
    assert run.returncode == EXIT_USAGE
    assert one_line(run).startswith(f"timelineview summarize: cannot reach a Dask scheduler at tcp://127.0.0.1:{port}")


def test_a_bad_scheme(tmp_path):
    run = summarize(tmp_path, "--out", str(tmp_path / "out"), "--scheduler", "foo://127.0.0.1:8786")
    assert run.returncode == EXIT_USAGE
    assert one_line(run).startswith("timelineview summarize: foo://127.0.0.1:8786 is not a scheduler address "
                                    "(unknown address scheme 'foo'")


def test_out_an_existing_file(tmp_path):
    (tmp_path / "taken").write_text("x")
    run = summarize(tmp_path, "--out", str(tmp_path / "taken"))
    assert run.returncode == EXIT_USAGE
    assert one_line(run) == f"timelineview summarize: --out {tmp_path / 'taken'} exists and is not a folder"


def test_out_where_no_folder_can_be_made(tmp_path):
    run = summarize(tmp_path, "--out", "/proc/timelineview-summary")
    assert run.returncode == EXIT_USAGE
    assert one_line(run).startswith("timelineview summarize: --out /proc/timelineview-summary cannot be made a folder")


def test_dask_missing_is_one_line_and_exit_2_as_every_missing_extra(tmp_path):
    script = ("import sys; sys.modules['distributed'] = None\n"  # makes `import distributed` fail
              "from timelineview.distributed.cli import summarize_main\n"
              f"sys.exit(summarize_main([{str(tmp_path)!r}, '--out', {str(tmp_path / 'out')!r}]))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == EXIT_USAGE
    assert one_line(run) == ("timelineview summarize: needs Dask, which is not installed: "
                             "pip install 'timelineview[scale]'")


def test_the_probe_accepts_a_real_scheduler():
    from distributed import Scheduler

    async def check() -> None:
        async with Scheduler(host="127.0.0.1", port=0, dashboard=False) as scheduler:
            await asyncio.get_running_loop().run_in_executor(None, probe, scheduler.address)

    asyncio.run(check())


def test_the_probe_refuses_a_server_that_is_not_dask(http_server):
    with pytest.raises(SchedulerUnusable, match="is not a Dask scheduler"):
        probe(http_server.address, timeout=2)


def test_a_card_with_a_lone_surrogate_is_summarised(dask_client, tmp_path):
    """One name escaped as a lone UTF-16 surrogate made the card's summary fail; it is shown as U+FFFD."""
    from timelineview.analysis.summaries.summary_session import SummarySession
    from timelineview.distributed.summarize import summarize as summarize_folder

    job = tmp_path / "job"
    job.mkdir()
    core = {"Task Type": "AI_CORE"}
    events = [{"name": "process_name", "ph": "M", "pid": 10, "args": {"name": "Ascend Hardware"}},
              {"name": "op\\ud800x", "ph": "X", "pid": 10, "tid": 2, "ts": 1, "dur": 5, "args": core},
              {"name": "op2", "ph": "X", "pid": 10, "tid": 2, "ts": 10, "dur": 5, "args": core}]
    text = ",".join(json.dumps(e).replace("\\\\ud800", "\\ud800") for e in events)
    (job / "ascend_timeline_display_0.json").write_text(f"[{text}]")
    assert "\\ud800" in (job / "ascend_timeline_display_0.json").read_text()
    index = summarize_folder(job, tmp_path / "s", client=dask_client, progress=None)
    assert [c["status"] for c in index["cards"]] == ["ok"], index["cards"]
    names = {op["name"] for op in SummarySession(tmp_path / "s").stats_document()["cards"][0]["operators"]["by_name"]}
    assert "op\ufffdx" in names
