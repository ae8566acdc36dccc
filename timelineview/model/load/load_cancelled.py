"""The exception a cancelled load raises."""


class LoadCancelled(Exception):
    """Raised by ``load`` when its cancel event is set."""
