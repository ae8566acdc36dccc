"""Per-card results declared once (:class:`~.declaration.CardResult`): their analysis stage, kept encoding,
place in the card object and its summary, JSON-schema fragment and SQL table are derived from the declaration.
No Qt."""
