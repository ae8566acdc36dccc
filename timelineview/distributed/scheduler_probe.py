"""Check a ``--scheduler`` address before a Dask client is made on it: one clear line, in seconds.

Dask's client waits 30 s for an address that does not answer, and a server that is not Dask makes it
fail deep inside its protocol (a length prefix read from an HTTP answer asks for exabytes); either way
the user gets a traceback. ``probe`` opens one connection and asks the server who it is, bounded by
``CONNECT_TIMEOUT_S``. Answering that question already means reading what the server sends, which Dask
may unpickle: connect only to a scheduler you trust (docs/summaries.md).
"""

from __future__ import annotations

import asyncio

CONNECT_TIMEOUT_S = 5.0  # a scheduler on a network answers in well under a second
# Dask's handshake after connecting has no bound of its own: the whole probe gets this much more, so that a
# refused or unreachable address still fails with the connect's own reason first
HANDSHAKE_GRACE_S = 1.0


class SchedulerUnusable(Exception):
    """The address cannot be used as a Dask scheduler; the message says why, in one line."""


class _OtherProtocol(Exception):
    """The server answered, in something that is not Dask's protocol."""


def probe(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Return when ``address`` is a Dask scheduler that answers within ``timeout`` seconds; else raise
    ``SchedulerUnusable``."""
    try:
        kind = asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout + HANDSHAKE_GRACE_S))
    except ValueError as exc:  # distributed's parser: an unknown scheme, a malformed address
        raise SchedulerUnusable(f"{address} is not a scheduler address ({exc}); e.g. tcp://head:8786") from None
    except asyncio.TimeoutError:  # connected, and then nothing: the handshake never came
        raise SchedulerUnusable(f"nothing at {address} answered as a Dask scheduler within "
                                f"{timeout + HANDSHAKE_GRACE_S:g} s") from None
    except OSError as exc:  # refused, unreachable, timed out connecting
        raise SchedulerUnusable(f"cannot reach a Dask scheduler at {address} within {timeout:g} s "
                                f"({_first_line(exc) or type(exc).__name__})") from None
    except _OtherProtocol as exc:
        raise SchedulerUnusable(f"{address} is not a Dask scheduler ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - whatever a server that is not Dask makes the protocol raise
        raise SchedulerUnusable(f"{address} does not answer as a Dask scheduler "
                                f"({type(exc).__name__}: {_first_line(exc)})") from None
    if kind != "Scheduler":
        raise SchedulerUnusable(f"{address} is not a Dask scheduler (it says it is {kind or 'nothing known'})")


async def _identity(address: str, timeout: float) -> str:
    """The ``type`` the server at ``address`` gives in answer to Dask's ``identity`` message."""
    from distributed.comm import connect

    try:
        comm = await connect(address, timeout=timeout)
    except MemoryError:  # its handshake read a huge length prefix: the bytes of another protocol
        raise _OtherProtocol("it answers in another protocol") from None
    try:
        await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), timeout)
        reply = await asyncio.wait_for(comm.read(), timeout)
    except MemoryError:  # a huge length prefix: the bytes of another protocol
        raise _OtherProtocol("it answers in another protocol") from None
    finally:
        comm.abort()
    return str(reply.get("type", "")) if isinstance(reply, dict) else ""


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else ""
