"""The request bodies of the REST routes (strict: an unknown field or a wrong type is a 422)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class InteractionIn(_Body):
    """One exchange to record."""

    user_input: str = Field(description="what the user said")
    response: str = Field(description="what the persona answered")
    user_id: str | None = Field(None, description="the user (none: the persona's shared memory)")
    timestamp: Annotated[datetime | None, Field(strict=False)] = Field(None, description="ISO 8601, aware")


class RetrieveIn(_Body):
    """A retrieval before a reply."""

    query: str = Field(description="the user's message")
    user_id: str | None = None
    top_k: int | None = Field(None, description="at most this many memories")


class RememberIn(_Body):
    """A fact stored on purpose."""

    text: str
    user_id: str | None = None
    key: str | None = Field(None, description="a profile key (allergy, home_city): replaces its old value")
    pinned: bool = Field(True, description="pinned memories never decay")
