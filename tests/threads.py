"""Running test code in threads that start at the same moment (races, concurrent requests)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from django.db import connection


def at_once(jobs: Iterable[Callable[[], object]], *, timeout: float = 60) -> None:
    """Run each job in a thread of its own, all released together by a barrier; each thread
    closes its own database connection when its job is done. Returns when every thread has
    ended (or ``timeout`` seconds have passed for each)."""
    jobs = list(jobs)
    barrier = threading.Barrier(len(jobs))

    def run(job):
        barrier.wait(timeout=10)
        try:
            job()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
