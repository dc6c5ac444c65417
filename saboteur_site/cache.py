"""The shared cache: what the site keeps in it, and what a Redis outage does to it.

Everything the site keeps in the shared cache can be rebuilt from PostgreSQL (the header's
counts, recaps and replay steps, the lobby list's version, allauth's rate-limit counters). With
Django's own Redis backend, a Redis restart made every request that reads or drops one of them
answer 500, and a move whose transaction drops the players' cached counts failed altogether. The
cache is django-redis with its ``IGNORE_EXCEPTIONS`` option (saboteur_site/settings.py): a cache
that cannot be reached is a cache that misses. Reads find nothing (the page computes it), writes
and deletions are skipped, each logged (``DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS``), and ``add``
and ``incr`` answer None: the rate limits then count nothing (saboteur_site/ratelimits.py), and
a Mailgun token cannot be checked (games/web/inbound.py). A Redis that keeps its data across a
restart may then hold entries an outage kept from being dropped: they are short-lived (the
header's counts 2 minutes, the lobby list 5). django-redis also keeps one redis client per
server, which every thread shares (Django's backend made one for every cache call, copying
redis-py's table of reply parsers each time).
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache.backends.base import BaseCache


def get_or_build[T](cache: BaseCache, key: str, build: Callable[[], T], timeout: float | None) -> T:
    """``cache.get_or_set(key, build, timeout)``, typed as what ``build`` makes. What the site
    caches this way is never None: a None found (or given back) is built anew."""
    value = cache.get_or_set(key, build, timeout)
    return build() if value is None else value
