"""What is made from frozen data is kept under a digest of that data (issue 49).

The game page's parts are frozen data (``games.read.game_parts``): the same data gives the same
part, whoever looks and whenever. So what is built or rendered from such data is kept per process
(``caches["local"]``) under a digest of *everything it is made from* (the data itself, pickled;
the language and the time zone it is said in), never under a name of the game, the viewer or the
revision: viewers who see the same part share it, a viewer who sees another part (their own hand,
a goal only they saw) gets a key of their own, and a part whose data did not change is not made
again after a move. The digest is of the data, so nothing a viewer may not see can pick another
viewer's entry: two keys are equal only when what they were made from is.

- ``digest(*data)`` -> the key of ``data`` (pickled: dataclasses, dicts, tuples, strings, numbers).
- ``built(name, data, build)`` -> ``build()``, kept under ``name`` and the digest of ``data``.
- ``recalled(key)`` / ``keep(key, value, seconds)``: what is kept in the shared cache (Redis in
  production) under a key that names everything it is made of, with a copy in the process's
  own: a page asked for again is not a round trip to the shared cache (or, without Redis, a
  query of the database's cache table).
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import cache, caches
from django.utils import timezone
from django.utils.translation import get_language

from saboteur_site.cache import get_or_build

# Stand-ins for what every render makes anew, put in a kept part in place of the real values
# (each answer gets its own): never the same as a real token, key or nonce (whose alphabets
# have no "!").
STAND_INS = {"csrf_token": "!csrf-token!", "move_key": "!move-key!", "csp_nonce": "!csp-nonce!"}

SECONDS = 3600  # a part nobody asked for in an hour is dropped (the cache's bound drops it sooner)


def put_in(html: str, names: Iterable[str], value_of: Callable[[str], str]) -> str:
    """``html``, rendered with the ``STAND_INS`` of ``names``, with this answer's own values in
    their place; ``value_of(name)`` is asked only for a stand-in the markup holds (a form token
    is made only for a page with a form)."""
    for name in names:
        if STAND_INS[name] in html:
            html = html.replace(STAND_INS[name], value_of(name))
    return html


def digest(*data: Any) -> str:
    """A digest of ``data`` and of the language and time zone its words are said in."""
    said = (get_language(), timezone.get_current_timezone_name())
    pickled = pickle.dumps((said, data), protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.blake2b(pickled, digest_size=16).hexdigest()


def built[T](name: str, data: tuple, build: Callable[[], T]) -> T:
    """``build()``, which must be made from ``data`` alone (and the language), kept under its
    digest: made once per process for every page whose ``data`` is the same."""
    return get_or_build(caches["local"], _built_key(name, data), build, SECONDS)


def found(name: str, data: tuple) -> Any:
    """What ``built(name, data, ...)`` made, if this process still keeps it; else None."""
    return caches["local"].get(_built_key(name, data))


def _built_key(name: str, data: tuple) -> str:
    return f"kept:{name}:{digest(*data)}"


def recalled(key: str) -> Any:
    """What is kept under ``key``: the process's copy, else the shared cache's (then copied)."""
    local = caches["local"]
    value = local.get(key)
    if value is None:
        value = cache.get(key)
        if value is not None:
            local.set(key, value, SECONDS)
    return value


def keep(key: str, value: Any, seconds: int) -> None:
    """Keep ``value`` under ``key`` (which must name everything it is made of) for every process
    and in this one's own cache."""
    cache.set(key, value, seconds)
    caches["local"].set(key, value, min(seconds, SECONDS))
