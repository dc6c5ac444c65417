"""The shared cache on Redis, which may be away for a while without breaking a request.

Everything the site keeps in the shared cache can be rebuilt from PostgreSQL (the header's
counts, recaps and replay steps, the lobby list's version, allauth's rate-limit counters). With
Django's own Redis backend, a Redis restart made every request that reads or drops one of them
answer 500, and a move whose transaction drops the players' cached counts failed altogether. Here
a cache that cannot be reached is a cache that misses: reads find nothing (the page computes it),
writes and deletions are skipped with a warning in the log. While it is away the rate limits
count nothing. A Redis that keeps its data across a restart may then hold entries an outage kept
from being dropped: they are short-lived (the header's counts 2 minutes, the lobby list 5).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

AWAY = (RedisConnectionError, RedisTimeoutError)


def _missing_when_away(answer):
    """Decorate a client method: when Redis is away, log and give ``answer(*args)`` instead."""

    def decorate(method):
        @functools.wraps(method)
        def forgiving(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except AWAY as error:
                log.warning("the cache (Redis) is away: %s skipped (%s)", method.__name__, error)
                return answer(*args)

        return forgiving

    return decorate


class ForgivingClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}  # connection pool -> its redis client

    def get_client(self, key=None, *, write=False):
        """One redis client per connection pool, kept: Django's makes a new one for every cache
        call, and a new client copies redis-py's table of ~170 reply parsers (a fifth of a
        millisecond, on every request that reads the header's counts or a session). A client
        is safe to share between threads: each command borrows a connection from the pool."""
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients.setdefault(pool, self._client(connection_pool=pool))
        return client

    add = _missing_when_away(lambda key, value, timeout: False)(RedisCacheClient.add)
    get = _missing_when_away(lambda key, default: default)(RedisCacheClient.get)
    set = _missing_when_away(lambda key, value, timeout: None)(RedisCacheClient.set)
    touch = _missing_when_away(lambda key, timeout: False)(RedisCacheClient.touch)
    delete = _missing_when_away(lambda key: False)(RedisCacheClient.delete)
    get_many = _missing_when_away(lambda keys: {})(RedisCacheClient.get_many)
    has_key = _missing_when_away(lambda key: False)(RedisCacheClient.has_key)
    set_many = _missing_when_away(lambda data, timeout: list(data))(RedisCacheClient.set_many)
    delete_many = _missing_when_away(lambda keys: None)(RedisCacheClient.delete_many)
    # incr keeps raising: a counter that cannot count must not pretend to.


class RedisCache(DjangoRedisCache):
    """Django's Redis cache whose reads miss and writes are skipped while Redis is away."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ForgivingClient


def get_or_build[T](cache: BaseCache, key: str, build: Callable[[], T], timeout: float | None) -> T:
    """``cache.get_or_set(key, build, timeout)``, typed as what ``build`` makes. What the site
    caches this way is never None: a None found (or given back) is built anew."""
    value = cache.get_or_set(key, build, timeout)
    return build() if value is None else value
