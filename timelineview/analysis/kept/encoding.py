"""A result of a card's analysis as a JSON tree plus numpy columns, and back, value for value.

Results are dataclasses, named tuples, plain objects of this package (their ``__dict__``), lists, dicts,
numbers, strings and numpy arrays. The tree keeps
each value's exact type (a tuple stays a tuple, an ``np.float64`` stays one, a NaN stays a NaN) so a
result read back is the result computed: the documents printed from it are the same bytes. Arrays go
to a separate list (saved as columns). Objects met twice in one result are written once and come back
as one object; ``siblings`` names objects that are another field of the same analysis (the derived
interval sets hold the card's classification), written as a reference to that field. Classes are only
ever looked up in this package, and only dataclasses, named tuples, enums and plain classes (built
without their ``__init__``, their ``__dict__`` filled) among them.
Anything else raises :class:`NotKeepable` (that result is then computed each time, not kept).

A list or dict made only of JSON's own types (dicts with text keys, lists, text, 64-bit integers, finite floats,
booleans, None; no other field of the analysis inside) is written as it is, tagged ``json``, and read back as
the JSON parser gives it: a card's §5 object is a few thousand such nodes, and walking each through the tagged
form cost about 3 ms to write and 5 ms to read per card, more than the rest of a small card's re-open.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

TAG = "~"  # the key of a tagged node; a plain dict holding it is written in the tagged form
PACKAGE = "timelineview."
_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_ATOMS = frozenset({type(None), bool, int, float, str})  # what JSON parses to that is not a container
_INT_RANGE = (-(1 << 63), 1 << 64)  # what a JSON parser reads back as the same int (orjson: 64 bits)
_SCALARS = (str, bool, type(None))


def _plain_json(v: Any, siblings: dict[int, str]) -> bool:
    """Whether ``v`` (a list or dict) holds only JSON's own types, exactly (no subclass, no NaN, no integer past
    64 bits, text keys only) and no other field of the analysis: then it reads back as the same value."""
    if id(v) in siblings:
        return False
    t = type(v)
    if t is dict:
        for k in v:
            if type(k) is not str:
                return False
        items = v.values()
    elif t is list:
        items = v
    else:
        return False
    low, high = _INT_RANGE
    for x in items:
        tx = type(x)
        if tx in _SCALARS:
            continue
        if tx is int:
            if not low <= x < high:
                return False
        elif tx is float:
            if not math.isfinite(x):
                return False
        elif not _plain_json(x, siblings):
            return False
    return True


class NotKeepable(TypeError):
    """A value of a type this encoding does not keep."""


class BadTree(ValueError):
    """A tree that this encoding did not write (or that no longer fits the code's classes)."""


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _float(x: float) -> Any:
    return x if math.isfinite(x) else {TAG: "float", "v": "nan" if x != x else ("inf" if x > 0 else "-inf")}


class Encoder:
    """Encode values into a JSON tree, collecting their arrays in ``arrays``."""

    def __init__(self, siblings: dict[int, str] | None = None) -> None:
        self.arrays: list[np.ndarray] = []
        self.siblings = siblings or {}
        self._seen: dict[int, int] = {}  # id of an object written -> its reference number
        self._keep: list[Any] = []  # the objects of ``_seen`` (their ids stay theirs meanwhile)

    def encode(self, v: Any) -> Any:
        t = type(v)
        if v is None or t is bool or t is str:
            return v
        if t is int:
            return v
        if t is float:
            return _float(v)
        if id(v) in self.siblings:
            return {TAG: "field", "name": self.siblings[id(v)]}
        if (t is list or t is dict) and v and _plain_json(v, self.siblings):
            return {TAG: "json", "v": v}
        if t is list:
            return [self.encode(x) for x in v]
        if t is dict:
            if all(type(k) is str for k in v) and TAG not in v:
                return {k: self.encode(x) for k, x in v.items()}
            return {TAG: "dict", "k": [self.encode(k) for k in v], "v": [self.encode(x) for x in v.values()]}
        if t is Counter:
            return {TAG: "counter", "k": [self.encode(k) for k in v], "v": [self.encode(x) for x in v.values()]}
        if t is tuple:
            return {TAG: "tuple", "v": [self.encode(x) for x in v]}
        if t is set or t is frozenset:
            return {TAG: t.__name__, "v": [self.encode(x) for x in v]}
        if isinstance(v, np.generic):
            return {TAG: "np", "dtype": v.dtype.str, "v": self.encode(v.item())}
        if t is np.ndarray:
            return self._array(v)
        if isinstance(v, enum.Enum) and t.__module__.startswith(PACKAGE):
            return {TAG: "enum", "cls": _class_name(t), "v": self.encode(v.value)}
        if isinstance(v, tuple) and hasattr(t, "_fields") and t.__module__.startswith(PACKAGE):
            return self._shared(v, lambda n: {TAG: "nt", "cls": _class_name(t), "n": n,
                                              "v": [self.encode(x) for x in v]})
        if dataclasses.is_dataclass(v) and t.__module__.startswith(PACKAGE):
            return self._shared(v, lambda n: {TAG: "dc", "cls": _class_name(t), "n": n,
                                              "f": {f.name: self.encode(getattr(v, f.name))
                                                    for f in dataclasses.fields(v)}})
        if t.__module__.startswith(PACKAGE) and _plain_object(v):
            return self._shared(v, lambda n: {TAG: "obj", "cls": _class_name(t), "n": n,
                                              "d": {k: self.encode(x) for k, x in vars(v).items()}})
        raise NotKeepable(f"{t.__module__}.{t.__qualname__}")

    def _shared(self, v: Any, write: Callable[[int], dict]) -> dict:
        n = self._seen.get(id(v))
        if n is not None:
            return {TAG: "ref", "n": n}
        n = self._seen[id(v)] = len(self._seen)
        self._keep.append(v)
        return write(n)

    def _array(self, a: np.ndarray) -> dict:
        if a.dtype.kind == "O":
            return self._shared(a, lambda n: {TAG: "objects", "n": n, "shape": list(a.shape),
                                              "v": [self.encode(x) for x in a.ravel().tolist()]})
        if a.dtype.hasobject or a.dtype.fields is not None:
            raise NotKeepable(f"array of {a.dtype}")

        def write(n: int) -> dict:
            self.arrays.append(a)
            return {TAG: "array", "n": n, "i": len(self.arrays) - 1}

        return self._shared(a, write)


def _plain_object(v: Any) -> bool:
    """An instance of a plain class of this package: its state is its ``__dict__`` (no slots, no callables)."""
    t = type(v)
    return (isinstance(getattr(v, "__dict__", None), dict) and not hasattr(t, "__slots__")
            and type(t) is type and not callable(v))


_found: dict[str, type] = {}  # classes found by name: the kept fields name the same few thousands of times


def _lookup(name: Any) -> type:
    if isinstance(name, str) and name in _found:
        return _found[name]
    cls = _find(name)
    _found[name] = cls
    return cls


def _find(name: Any) -> type:
    if not isinstance(name, str) or not name.startswith(PACKAGE) or ":" not in name:
        raise BadTree(f"class {name!r}")
    module, _, qualname = name.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise BadTree(f"class {name!r} not found") from None
    if not isinstance(obj, type):
        raise BadTree(f"{name!r} is not a class")
    return obj


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


class Decoder:
    """Rebuild values from a tree that :class:`Encoder` wrote, with its ``arrays``; ``field(name)`` gives
    another field of the analysis (for references to siblings). The tree is used up: its plain lists and dicts
    become the values' (decode a tree once, as parsed)."""

    def __init__(self, arrays: list[np.ndarray], field: Callable[[str], Any] | None = None) -> None:
        self.arrays = arrays
        self.field = field
        self._made: dict[int, Any] = {}

    def decode(self, node: Any) -> Any:
        """The value ``node`` stands for. A plain list or dict of the tree is decoded in place and returned
        itself: the tree is the decoder's own (parsed for this decoding, dropped after it), and copying each
        of its containers made every kept field's lists and dicts twice."""
        kind = type(node)
        if kind in _ATOMS:
            return node
        if kind is list:
            for i, x in enumerate(node):
                if type(x) not in _ATOMS:
                    node[i] = self.decode(x)
            return node
        if kind is not dict:
            raise BadTree(kind.__name__)
        tag = node.get(TAG)
        if tag is None:
            for k, x in node.items():
                if type(x) not in _ATOMS:
                    node[k] = self.decode(x)  # a value replaced, no key added: the walk stays valid
            return node
        try:
            return getattr(self, f"_{tag}")(node)
        except (KeyError, TypeError, IndexError) as exc:
            raise BadTree(f"{tag}: {exc}") from None

    def _made_as(self, node: dict, obj: Any) -> Any:
        self._made[int(node["n"])] = obj
        return obj

    def _float(self, node: dict) -> float:
        return _SPECIAL_FLOATS[node["v"]]

    def _json(self, node: dict) -> Any:
        value = node["v"]  # as parsed: new objects of JSON's own types, nothing in it tagged
        if type(value) not in (list, dict):
            raise BadTree("json: not a list or dict")
        return value

    def _field(self, node: dict) -> Any:
        if self.field is None:
            raise BadTree("a reference to another field")
        return self.field(node["name"])

    def _dict(self, node: dict) -> dict:
        return dict(zip([self.decode(k) for k in node["k"]], [self.decode(x) for x in node["v"]], strict=True))

    def _counter(self, node: dict) -> Counter:
        return Counter(self._dict(node))

    def _tuple(self, node: dict) -> tuple:
        return tuple(self.decode(x) for x in node["v"])

    def _set(self, node: dict) -> set:
        return {self.decode(x) for x in node["v"]}

    def _frozenset(self, node: dict) -> frozenset:
        return frozenset(self.decode(x) for x in node["v"])

    def _np(self, node: dict) -> np.generic:
        return np.dtype(node["dtype"]).type(self.decode(node["v"]))

    def _array(self, node: dict) -> np.ndarray:
        return self._made_as(node, self.arrays[int(node["i"])])

    def _objects(self, node: dict) -> np.ndarray:
        values = [self.decode(x) for x in node["v"]]
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return self._made_as(node, out.reshape(node["shape"]))

    def _ref(self, node: dict) -> Any:
        return self._made[int(node["n"])]

    def _enum(self, node: dict) -> enum.Enum:
        cls = _lookup(node["cls"])
        if not issubclass(cls, enum.Enum):
            raise BadTree(f"{node['cls']} is not an enum")
        return cls(self.decode(node["v"]))

    def _nt(self, node: dict) -> tuple:
        cls = _lookup(node["cls"])
        if not (issubclass(cls, tuple) and hasattr(cls, "_fields")) or len(node["v"]) != len(cls._fields):
            raise BadTree(f"{node['cls']} is not this named tuple")
        return self._made_as(node, cls(*(self.decode(x) for x in node["v"])))

    def _obj(self, node: dict) -> Any:
        cls = _lookup(node["cls"])
        if dataclasses.is_dataclass(cls) or hasattr(cls, "__slots__") or type(cls) is not type:
            raise BadTree(f"{node['cls']} is not a plain class")
        obj = cls.__new__(cls)
        self._made_as(node, obj)
        obj.__dict__.update({k: self.decode(x) for k, x in node["d"].items()})
        return obj

    def _dc(self, node: dict) -> Any:
        cls = _lookup(node["cls"])
        if not dataclasses.is_dataclass(cls):
            raise BadTree(f"{node['cls']} is not a dataclass")
        values = node["f"]
        if not isinstance(values, dict) or _field_names(cls) != values.keys():
            raise BadTree(f"{node['cls']}: other fields")
        obj = cls.__new__(cls)  # built field by field: no __init__ / __post_init__ runs again
        self._made_as(node, obj)
        for name, x in values.items():
            object.__setattr__(obj, name, self.decode(x))
        return obj
