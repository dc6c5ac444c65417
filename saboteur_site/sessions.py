"""Sessions kept in the database and read from the shared cache, whose copy lives a minute.

Every request of a logged-in player reads their session. Django's ``cached_db`` engine reads it
from Redis (one round trip) instead of PostgreSQL (a query): after a move, every open page of
the game asks for its part at the same moment (200 pages of a watched game, issue #25), and the
session was a fifth of each of those requests. The database stays the truth: a session is
written to both, deleted from both, and a cache that is away (``saboteur_site/cache.py``) is a
miss, so the database answers.

The one thing an outage can leave behind is a copy the cache could not drop: a logout (or an
admin ending a player's sessions) while Redis is away deletes the database row, but Redis may
come back still holding the copy. Django keeps that copy as long as the session (two weeks);
here it lives ``CACHED_SECONDS`` after it was last read from the database or saved, so such a
session outlives its logout by a minute at most. Everything else about a user is read from the
database on each request as before (a deactivated account or a changed password ends the
session at once, with Redis or without).
"""

from __future__ import annotations

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDbStore
from django.core.cache.backends.base import BaseCache

CACHED_SECONDS = 60


class SessionStore(CachedDbStore):
    # Django's cached_db store keeps its cache here (django-stubs leaves it out).
    _cache: BaseCache | _ShortLived

    def __init__(self, session_key=None):
        super().__init__(session_key)
        self._cache = _ShortLived(self._cache)


class _ShortLived:
    """The session cache, whose entries last ``CACHED_SECONDS`` at most."""

    def __init__(self, cache):
        self._cache = cache

    def set(self, key, value, timeout):
        self._cache.set(key, value, min(timeout, CACHED_SECONDS))

    async def aset(self, key, value, timeout):
        await self._cache.aset(key, value, min(timeout, CACHED_SECONDS))

    def __contains__(self, key) -> bool:
        return key in self._cache

    def __getattr__(self, name):  # get, delete and the rest: the cache's own
        return getattr(self._cache, name)
