"""The ``entries`` table: every memory of every layer, the one owner of its SQL.

Layers hold the rules (capacity, decay, thresholds, clean-up) and call this table with their
:class:`~memory.domain.types.Layer` as a parameter; the sync reads and sets the derived-store states
(:class:`~memory.domain.types.IndexState`, :class:`~memory.domain.types.ExportState`). No other module writes
SQL on ``entries``.
"""

from memory.record.entries.schema import install
from memory.record.entries.table import EntryTable

__all__ = ["EntryTable", "install"]
