"""Domain types at the bottom of the package: layers, scopes, interactions, entries, results.

Every other module may import this one; it imports nothing of the package. Values that cross
module lines are frozen dataclasses; the states an entry passes through with the derived stores
(vector index, archive file) are the two enums below, defined here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import IntEnum, StrEnum


class Layer(StrEnum):
    """Where an entry lives.

    ``ARCHIVED`` is the cold tier: entries forgotten by decay or clean-up. They leave the prompt
    and the hot layers but stay searchable; a retrieval that returns one revives it.
    """

    ACTIVE = "active"
    TEMPORARY = "temporary"
    SUMMARY = "summary"
    STATIC = "static"
    ARCHIVED = "archived"


@dataclass(frozen=True)
class LayerKind:
    """What a layer does. :data:`LAYER_KINDS` declares every layer once; every list of layers
    elsewhere (which decay, which a query searches, which hold a user's memories, their order in
    a prompt) is derived from it."""

    layer: Layer
    searched: bool = False
    """A query searches it: its memories have vectors and keyword rows."""
    decays: bool = False
    """Its memories' significance decays with retrievals: they go to the cold tier and come back
    from it (so a retrieval searches its cold memories too: deep recall)."""
    users: bool = False
    """It holds a user's own memories (listed by the LangGraph store; static ones are the
    persona's)."""


LAYER_KINDS: tuple[LayerKind, ...] = (
    LayerKind(Layer.ACTIVE, users=True),
    LayerKind(Layer.TEMPORARY, searched=True, decays=True, users=True),
    LayerKind(Layer.SUMMARY, searched=True, decays=True, users=True),
    LayerKind(Layer.STATIC, searched=True),
    LayerKind(Layer.ARCHIVED),
)
"""Every layer, once. The cold tier (``ARCHIVED``) is searched through the decaying layers."""
DECAYING_LAYERS: tuple[Layer, ...] = tuple(kind.layer for kind in LAYER_KINDS if kind.decays)
"""The layers whose memories decay (:attr:`LayerKind.decays`)."""
RAG_LAYERS: tuple[Layer, ...] = tuple(kind.layer for kind in LAYER_KINDS if kind.searched)
"""The hot layers a query searches (active is injected whole; the cold tier is searched with them)."""
INDEXED_LAYERS: tuple[Layer, ...] = (*RAG_LAYERS, Layer.ARCHIVED)
"""The layers whose entries have vectors (each in its own collections)."""
USER_LAYERS: tuple[Layer, ...] = tuple(kind.layer for kind in LAYER_KINDS if kind.users)
"""The layers that hold a user's own memories."""
PROMPT_ORDER: tuple[Layer, ...] = tuple(reversed(RAG_LAYERS))
"""The order of the searched layers' blocks in a prompt: the reverse of their declaration (the
persona's memories first, the newest kind last, next to the question)."""


class IndexState(IntEnum):
    """An entry's place in the vector index (the ``entries.indexed`` column).

    ``PENDING`` -> ``INDEXED`` when the background sync embeds it; back to ``PENDING`` when its
    text changes or the index must be rebuilt. Active entries are ``NOT_SEARCHED``: they are
    injected whole into the prompt and enter the index only when they overflow (``PENDING``).
    With a tiered embedder, ``PENDING`` -> ``SEARCHABLE`` (its cheap vector is in the index) ->
    ``INDEXED`` when background enrichment has stored its full vector.
    """

    PENDING = 0
    INDEXED = 1
    NOT_SEARCHED = 2
    SEARCHABLE = 3


class ExportState(IntEnum):
    """An archived entry's way into the archive file (the ``entries.exported`` column).

    Archiving sets ``PENDING``; the sync marks ``EXPORTING`` before it appends the line and
    ``DONE`` after, so a crash in between is recovered without writing a line twice. Entries that
    were never archived are ``DONE`` (nothing to export).
    """

    PENDING = 0
    DONE = 1
    EXPORTING = 2


class ManagerState(StrEnum):
    """Where a manager is in its life: opening, open (files open), or closed for good."""

    UNOPENED = "unopened"
    OPEN = "open"
    CLOSED = "closed"


SHARED_SCOPE = ""
"""The scope key of ``user_id=None``: the persona's shared memory."""


def scope_of(user_id: str | None) -> str:
    """The storage key of a user scope (``None`` is the shared scope)."""
    return SHARED_SCOPE if user_id is None else user_id


def user_of(scope: str) -> str | None:
    """The inverse of :func:`scope_of`."""
    return None if scope == SHARED_SCOPE else scope


def utcnow() -> datetime:
    """The current time, UTC, aware."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Interaction:
    """One user message and the persona's reply, as recorded."""

    id: str
    user_input: str
    response: str
    timestamp: datetime
    user_id: str | None = None
    note: str | None = None


def index_text(note: str | None, content: str) -> str:
    """The text of an entry that is embedded and keyword-indexed: its note (a model's summary),
    if any, then its content. The only definition: the keyword index's triggers call it too."""
    return f"{note}\n{content}" if note else content


@dataclass(frozen=True)
class MemoryEntry:
    """One memory in one layer; ``significance`` is as of tick ``changed_at``."""

    id: str
    layer: Layer
    content: str
    created_at: datetime
    user_id: str | None = None
    significance: float = 1.0
    changed_at: int = 0
    note: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    source: str | None = None
    origin: Layer | None = None
    """For a cold (archived) entry, the layer it was forgotten from."""
    pinned: bool = False
    """Remembered on purpose (``remember``): never decays, never forgotten."""
    importance: float | None = None
    """How much it matters (0 to 1), when the summary model's gate judged it."""
    key: str | None = None
    """Its key in a LangGraph store namespace (a ``put`` to the same key replaces its text)."""
    item: str | None = None
    """The store value it was put with (a JSON object), kept as given."""
    provisional: bool = False
    """Its vector in the index is the cheap tier (the full one waits for background enrichment)."""

    @property
    def index_text(self) -> str:
        """The text embedded and keyword-indexed (:func:`index_text`)."""
        return index_text(self.note, self.content)

    @property
    def display_text(self) -> str:
        """The text shown in a prompt for a retrieved memory."""
        return self.note or self.content


@dataclass(frozen=True)
class ProfileFact:
    """One keyed fact about a user ("allergy": "花生"), current until ``valid_until``."""

    id: str
    key: str
    value: str
    since: datetime
    source: str
    """``"remember"`` (told explicitly) or ``"model"`` (extracted by the summary model)."""
    user_id: str | None = None
    valid_until: datetime | None = None


@dataclass(frozen=True)
class RetrievedMemory:
    """A memory returned by a retrieval, with how it was scored.

    ``score`` is what the selection ranked by (fused score in hybrid mode, similarity in quota
    mode, similarity x layer weight in weighted mode); the ranks are 1-based places in the dense
    and keyword rankings (hybrid: over every layer's candidates; else of its layer; ``None``: not
    in that ranking).
    """

    entry: MemoryEntry
    score: float
    similarity: float
    significance: float
    dense_rank: int | None = None
    keyword_rank: int | None = None
    revived: bool = False
    """Found in the cold tier: the retrieval brings it back to its layer (``entry.layer``)."""
    below_floor: bool = False
    """Matches the query no better than small talk does: never returned (a near miss at most)."""
    superseded: bool = False
    """What it says of a slot (home, job, ...) was replaced by a newer statement: shown as history."""
    outdated: tuple[str, ...] = ()
    """Statements a summary quotes that newer ones replaced: their lines are shown as history."""
    answers: str | None = None
    """The slot the query asked about (home, job, ...) when this is the user's newest statement
    likely about it, raised above the others: for this retrieval, that slot's current value."""
