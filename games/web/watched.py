"""The play area of someone who watches a game without a seat: the public view, the same for
every watcher at a revision, so it is rendered once per revision, language and time zone and
kept per process (a move watched by many open pages costs one render; only the header's counts
are each watcher's own).

A move watched by many pages is asked for by all of them at once: one thread of the process
renders a game's part while the others wait for it, rather than each rendering it too."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.core.cache import caches
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import SafeString

# The parts of the play area that are the same for everyone who watches without a seat.
WATCHED_PARTS = {
    "title": "games/game.html#title",
    "play": "games/game.html#play",
    "after": "games/_after_move_oob.html",
}
SECONDS = 60  # its clocks ("time left") stay fresh to the minute
_RENDERING = [threading.Lock() for _ in range(64)]


def _key(pk: int, revision: int) -> str:
    zone = timezone.get_current_timezone_name()  # the log's dates are said in it
    return f"watched-part:{pk}:{revision}:{translation.get_language()}:{zone}"


def watched_parts(
    request, pk: int, revision: int, context_of: Callable[[], tuple[int, dict]]
) -> dict[str, SafeString]:
    """The shared parts at ``revision`` (SafeStrings of our own templates), rendered with the
    context ``context_of()`` gives (the revision it shows, perhaps newer, and the context) when
    the process has none."""
    cache = caches["local"]
    shared = cache.get(_key(pk, revision))
    if shared is None:
        with _RENDERING[pk % len(_RENDERING)]:
            shared = cache.get(_key(pk, revision))  # rendered meanwhile?
            if shared is None:
                shown, context = context_of()
                shared = {
                    name: render_to_string(template, context, request=request)
                    for name, template in WATCHED_PARTS.items()
                }
                # A part holding a form's token is the viewer's own: never shared (none does).
                if not any("csrfmiddlewaretoken" in html for html in shared.values()):
                    cache.set(_key(pk, shown), shared, SECONDS)
    return shared  # SafeStrings: render_to_string's, kept as such by the cache's pickling
