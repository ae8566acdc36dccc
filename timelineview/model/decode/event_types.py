"""Typed msgspec structs for the bulk decode of trace events.

One struct per phase, tagged by ``ph`` so a single pass decodes every kind. Undeclared
keys (most of ``args``) are skipped without being materialised. Anything that does not
fit these types makes the fast decode fail, and the chunk goes through the tolerant
path, which builds the same structs from plain dicts after checking every field.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from timelineview.producers import TASK_TYPE_ARG

Number = Union[float, str, None]
Token = Union[int, str, None]


class XArgs(msgspec.Struct, gc=False):
    """The only args key read at load time: the hardware task type."""

    task_type: Any = msgspec.field(default=None, name=TASK_TYPE_ARG)


class _Event(msgspec.Struct, gc=False, tag_field="ph"):
    name: str = ""
    pid: Token = None
    tid: Token = None


class XEvent(_Event, tag="X"):
    ts: Number = None
    dur: Number = None
    cat: str | None = None
    args: XArgs | None = None


class BEvent(_Event, tag="B"):
    ts: Number = None
    cat: str | None = None


class EEvent(_Event, tag="E"):
    ts: Number = None


class IEvent(_Event, tag="i"):
    ts: Number = None


class ICapEvent(_Event, tag="I"):
    ts: Number = None


class CEvent(_Event, tag="C"):
    ts: Number = None
    id: Any = None
    args: Any = None


class MEvent(_Event, tag="M"):
    args: Any = None


class FlowStart(_Event, tag="s"):
    ts: Number = None
    cat: str | None = None
    id: Any = None
    bp: str | None = None


class FlowStep(FlowStart, tag="t"):
    pass


class FlowEnd(FlowStart, tag="f"):
    pass


def _ignored(tag: str) -> type:
    return type(f"Ignored_{tag}", (_Event,), {}, tag=tag)


# Standard phases we count but do not keep (async, object, sample, mark, context).
IGNORED_PHASES = ("b", "e", "n", "S", "T", "F", "O", "N", "D", "P", "R", "(", ")", "c", "v", "V")
IGNORED_TYPES = tuple(_ignored(t) for t in IGNORED_PHASES)

EVENT_TYPES = (XEvent, BEvent, EEvent, IEvent, ICapEvent, CEvent, MEvent, FlowStart, FlowStep, FlowEnd,
               *IGNORED_TYPES)
AnyEvent = Union[EVENT_TYPES]  # type: ignore[valid-type]
PHASE_OF = {cls: cls.__struct_config__.tag for cls in EVENT_TYPES}
TYPE_OF_PHASE = {v: k for k, v in PHASE_OF.items()}

typed_decoder = msgspec.json.Decoder(list[AnyEvent])
raw_list_decoder = msgspec.json.Decoder(list[msgspec.Raw])
