"""The ``entries`` table: every memory of every layer, the one owner of its SQL.

Layers hold the rules (capacity, decay, thresholds, clean-up) and call this table with their
:class:`~memory.model.Layer` as a parameter; the sync reads and sets the derived-store states
(:class:`~memory.model.IndexState`, :class:`~memory.model.ExportState`). No other module writes
SQL on ``entries``.
"""

from memory.entries.schema import install
from memory.entries.table import EntryTable

__all__ = ["EntryTable", "install"]
