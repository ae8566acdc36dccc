"""An operator's type from its name alone (the last component of the name), and a table of the types seen.

The producers' own op-type columns are read elsewhere; the critical path only needs a stable grouping
that is the same on every card, which the name's last component gives (``…_MatMulV2`` → ``MatMulV2``,
MindSpore's ``…/MatMul-op12`` → ``MatMul``).
"""

from __future__ import annotations

import re

_MINDSPORE_SUFFIX = re.compile(r"-op\d+$")


def op_type_of(name: str) -> str:
    """The op type a compute task's name says."""
    last = name.rsplit("/", 1)[-1]
    last = _MINDSPORE_SUFFIX.sub("", last)
    if "_" in last:
        last = last.rsplit("_", 1)[-1] or last
    return last or name


class OpTypeTable:
    """Op type names and their ids, shared by the cards of a cluster."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._ids: dict[str, int] = {}

    def id_of(self, type_name: str) -> int:
        """The id of ``type_name``, added when new."""
        found = self._ids.get(type_name)
        if found is None:
            found = self._ids[type_name] = len(self.names)
            self.names.append(type_name)
        return found

    def ids_of_names(self, names: list[str]) -> list[int]:
        """Type id per operator name."""
        return [self.id_of(op_type_of(n)) for n in names]
