"""A table of the op types seen on the cards of a cluster: each card's op types are its own (its compute
tasks described, metrics.md §7.1), given one id across the cards."""

from __future__ import annotations


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
