"""The REST server under concurrent clients loses nothing (a short run of ``python -m bench server``;
``make bench`` runs the full 20 x 50 and reports its latencies)."""

from __future__ import annotations

import pytest

from bench.server import run


@pytest.mark.slow
def test_twenty_concurrent_clients_lose_nothing() -> None:
    results = run(clients=20, calls=5, baseline_calls=5, paced_turns=1)
    assert results["errors"] == 0
    assert results["acked"] == results["expected"] == 120
    assert results["lost"] == 0 and results["pending_index_after_shutdown"] == 0
    assert results["exit_code"] == 0  # SIGTERM: a graceful stop, not a death by the signal
