"""The test run's share of Redis: the database of ``REDIS_URL``, and in it only the keys the run
makes (README, "Tests and Redis").

- The cache: every key carries this run's prefix, ``RUN_PREFIX``. The test process's cache uses
  it (tests/conftest.py), and every process the tests start (Celery workers, ``manage.py``)
  gets it through ``CACHE_KEY_PREFIX``, which tests/conftest.py exports.
- Celery: the site's tasks that tests start (on-commit hooks sending notices, bots' moves) go to
  this run's queue, ``RUN_QUEUE``, not to the default "celery" that a site's workers would
  take them from (tests/conftest.py sets it, and ``CELERY_QUEUE`` for the processes tests
  start); each test that runs a worker has a queue of its own too (``own_queue``).

Cleaning up deletes those keys and nothing else: never FLUSHDB, never FLUSHALL. A site, or
another test run, may use the same Redis database, and its data is not ours to empty.
"""

from __future__ import annotations

import os
import uuid

import redis
from django.conf import settings

_RUN = uuid.uuid4().hex[:8]
# The site's prefix (CACHE_KEY_PREFIX, "saboteur" by default), then this run's own part.
RUN_PREFIX = f"{os.environ.get('CACHE_KEY_PREFIX') or 'saboteur'}-test-{_RUN}"
RUN_QUEUE = f"pytest-run-{_RUN}"


def redis_url() -> str:
    """The test run's Redis database: ``REDIS_URL``, the one setting it all derives from."""
    return os.environ["REDIS_URL"]


def clear_run_cache() -> int:
    """Empty this run's part of the cache (rate-limit counters and the rest); return how many
    keys went. Keys of anyone else in the database stay."""
    from django.core.cache import caches

    options = settings.CACHES["default"]
    if not options["BACKEND"].endswith("RedisCache"):
        caches["default"].clear()  # the database cache: a table of the test database, ours
        return 0
    assert options["KEY_PREFIX"] == RUN_PREFIX, "the cache does not use this run's prefix"
    client = redis.Redis.from_url(options["LOCATION"])
    try:
        keys = list(client.scan_iter(match=f"{RUN_PREFIX}:*", count=1000))
        for start in range(0, len(keys), 500):
            client.unlink(*keys[start : start + 500])
        return len(keys)
    finally:
        client.close()


def own_queue() -> str:
    """A Celery queue name no one else uses."""
    return f"pytest-{uuid.uuid4().hex}"


def forget_queue(url: str, queue: str) -> None:
    """Delete a queue this test made (with its priority lists) and kombu's records of it."""
    assert queue.startswith("pytest-"), queue  # never the site's queues
    client = redis.Redis.from_url(url)
    try:
        keys = [*client.scan_iter(match=f"{queue}*", count=1000)]
        keys += [f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"]
        client.delete(*keys)
    finally:
        client.close()
