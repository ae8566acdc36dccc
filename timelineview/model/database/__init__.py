"""The SQLite generation of the Ascend profilers (torch_npu ``export_type=db``, msprof ``.db``):
a database read as one card's ``TraceStore``, laid out as the JSON generation of the same producer.

``load_database_card`` builds the card, ``database_rank`` reads its rank, ``is_database`` tells a
database file by its header, ``table_columns`` reads any table as numpy columns by name.
"""

from timelineview.model.database.card import (
    database_bytes,
    database_rank,
    is_database_source,
    load_database_card,
    load_database_source,
)
from timelineview.model.database.sqlite.connection import is_database
from timelineview.model.database.sqlite.tables import table_columns

__all__ = ["database_bytes", "database_rank", "is_database", "is_database_source", "load_database_card",
           "load_database_source", "table_columns"]
