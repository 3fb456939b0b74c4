"""What a vector is to the engine."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Vector = Sequence[float] | npt.NDArray[np.float32]
"""A vector: as an embedder returns it (floats), or as the index stores it (a float32 row: no
Python float is made for a vector read back)."""
