"""Which user a LangChain face acts for: one rule for every face.

A call names its user by the input's ``user_id``, the one fixed when the face was made, or
``config["configurable"]["user_id"]`` (how LangChain and LangGraph pass per-call settings), the
first of them that is given. ``None``, given, is the persona's shared memory; a call that names no
user at all is refused, since there a missing user is most often a forgotten config.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, Final

from memory.errors import InvalidInputError

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig


class Unset(Enum):
    """No user named (unlike ``None``, which names the persona's shared memory)."""

    UNSET = "unset"


UNSET: Final = Unset.UNSET
UserChoice = str | None | Unset
"""A user as a LangChain face is given it: a user id, ``None`` (the shared memory) or nothing."""


def configured_user(config: RunnableConfig | None) -> Any:
    """``config["configurable"]["user_id"]`` (``None`` included), else :data:`UNSET`."""
    return ((config or {}).get("configurable") or {}).get("user_id", UNSET)


def chosen_user(*choices: Any) -> Any:
    """The first user named among ``choices`` (most specific first: the call's input, the one
    fixed at creation, the config's); ``None``, named, is the persona's shared memory.

    Raises:
        InvalidInputError: no choice names a user.
    """
    for choice in choices:
        if choice is not UNSET:
            return choice
    raise no_user_error()


def no_user_error() -> InvalidInputError:
    """The error of a per-user surface used without a user."""
    return InvalidInputError(
        "user_id",
        "no user named: pass user_id='...' or config={'configurable': {'user_id': '...'}} "
        "(user_id=None, said, is the persona's shared memory)",
    )
