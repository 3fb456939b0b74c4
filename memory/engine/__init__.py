"""The composition root: builds every part of one persona's memory and closes them in order.

:class:`~memory.manager.MemoryManager` owns one :class:`Engine` and is the public face of it;
this package is the only place that knows how the parts are wired together.
"""

from memory.engine.opened import Engine, open_engine
from memory.engine.wiring import Job

__all__ = ["Engine", "Job", "open_engine"]
