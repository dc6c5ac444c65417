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
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.utils import timezone
from django.utils.translation import get_language

from saboteur_site.cache import get_or_build

SECONDS = 3600  # a part nobody asked for in an hour is dropped (the cache's bound drops it sooner)


def digest(*data: Any) -> str:
    """A digest of ``data`` and of the language and time zone its words are said in."""
    said = (get_language(), timezone.get_current_timezone_name())
    pickled = pickle.dumps((said, data), protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.blake2b(pickled, digest_size=16).hexdigest()


def built[T](name: str, data: tuple, build: Callable[[], T]) -> T:
    """``build()``, which must be made from ``data`` alone (and the language), kept under its
    digest: made once per process for every page whose ``data`` is the same."""
    return get_or_build(caches["local"], f"kept:{name}:{digest(*data)}", build, SECONDS)
