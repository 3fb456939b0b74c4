"""APScheduler jobs for the summary and clean-up (the only module that imports apscheduler)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from memory.summary.jobs import CLEANUP_JOB, SUMMARY_JOB

logger = logging.getLogger(__name__)

Job = Callable[[], Awaitable[object]]


class MemoryScheduler:
    """Runs the summary and clean-up jobs on an ``AsyncIOScheduler``; start/stop are idempotent.

    Args:
        summary_job: the coroutine function run every ``summary_interval`` seconds.
        cleanup_job: the coroutine function run every ``cleanup_interval`` seconds.
        first_runs: when each job should first run (from the bookkeeping of a previous run,
            so a restart neither summarises twice nor skips); missing means one interval from now.
    """

    def __init__(
        self,
        summary_job: Job,
        cleanup_job: Job,
        *,
        summary_interval: float,
        cleanup_interval: float,
    ) -> None:
        self._jobs = {
            SUMMARY_JOB: (summary_job, summary_interval),
            CLEANUP_JOB: (cleanup_job, cleanup_interval),
        }
        self._scheduler: AsyncIOScheduler | None = None

    @property
    def running(self) -> bool:
        """Whether the jobs are scheduled."""
        return self._scheduler is not None and self._scheduler.running

    def start(self, first_runs: dict[str, datetime] | None = None) -> None:
        """Schedule both jobs on the running event loop (no-op when already running)."""
        if self.running:
            return
        scheduler = AsyncIOScheduler(timezone="UTC")
        first_runs = first_runs or {}
        for name, (job, interval) in self._jobs.items():
            scheduler.add_job(
                _logged(name, job),
                IntervalTrigger(seconds=interval, timezone="UTC"),
                id=name,
                name=name,
                max_instances=1,
                coalesce=True,
                misfire_grace_time=None,
                next_run_time=first_runs.get(name)
                or datetime.now().astimezone() + timedelta(seconds=interval),
            )
        scheduler.start()
        self._scheduler = scheduler

    def shutdown(self) -> None:
        """Stop scheduling now (no-op when stopped); running jobs are not waited for."""
        if self._scheduler is None:
            return
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
        self._scheduler = None

    async def stop(self) -> None:
        """Stop scheduling and let the loop take the shutdown (no-op when stopped)."""
        self.shutdown()
        await asyncio.sleep(0)

    def next_runs(self) -> dict[str, str | None]:
        """Job name -> next run time (ISO 8601), ``None`` when not scheduled."""
        if self._scheduler is None:
            return {name: None for name in self._jobs}
        result: dict[str, str | None] = {}
        for name in self._jobs:
            job = self._scheduler.get_job(name)
            when = getattr(job, "next_run_time", None)
            result[name] = when.isoformat() if when else None
        return result


def _logged(name: str, job: Job) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        try:
            await job()
        except Exception:
            logger.exception("scheduled %s job failed; it will run again next interval", name)

    run.__name__ = f"persona_memory_{name}"
    return run
