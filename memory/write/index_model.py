"""Which embedding model and layout built the vector index, named in the record.

Vectors of another model do not compare with this one's: an index built by another is dropped
at start, and the start-up repair and the index worker embed every entry again.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from memory.domain.types import IndexState
from memory.errors import ReadOnlyStoreError, StoreUnavailableError
from memory.layers.rag import RagLayer
from memory.layers.summary_lines import LINES_RULE
from memory.record.db import Database

logger = logging.getLogger(__name__)

INDEX_KEY = "index_built_by"
"""The ``meta`` row naming what built the vector index: the embedding model and the layout."""
LEGACY_INDEX = "use-multilingual:use-multilingual-v3; scopes in clear"
"""What built an index before the record named it (USE alone, user ids in its metadata)."""


def adopt_index(db: Database, layers: Collection[RagLayer], name: str) -> bool:
    """Drop the index if another embedding model or layout built it (``name`` says which:
    vectors of another model do not compare with this one's); the start-up repair and the
    worker then embed every entry again. Returns whether it did.
    """
    built_by = db.get_meta(INDEX_KEY)
    if db.read_only and built_by != name:
        raise ReadOnlyStoreError(
            f"the vector index was built by {built_by or 'an older version'}, not {name}, and "
            "the folder is read-only: open the memory once where it can be written"
        )
    try:
        if built_by is None and any(layer.stores.existing_names() for layer in layers):
            built_by = LEGACY_INDEX
        if built_by not in (None, name):
            logger.warning("the vector index was built by %s, not %s: embedding it again", built_by, name)
            for layer in layers:
                layer.index.drop_all()
    except StoreUnavailableError as exc:  # a server that is down: look again at the next start
        logger.warning("cannot check which model built the vector index: %s", exc)
        return False
    if built_by != name:
        db.set_meta(INDEX_KEY, name)
    return built_by not in (None, name)


LINES_KEY = "index_line_vectors"
"""The ``meta`` row saying which rule made the sentence vectors of the layers scored by them."""


def adopt_line_vectors(db: Database, layers: Collection[RagLayer]) -> bool:
    """Index the entries of the layers scored by their sentences once more (few: summaries) in a
    record whose sentence vectors an earlier rule made, or none, so that they get this rule's.
    Returns whether it did."""
    if db.read_only or db.get_meta(LINES_KEY) == LINES_RULE:
        return False
    redo = [layer for layer in layers if layer.scored_by_lines]
    for layer in redo:
        layer.table.set_index_state(layer.layer, None, IndexState.PENDING)
    db.set_meta(LINES_KEY, LINES_RULE)
    return bool(redo)
