"""The game page's live stream: server-sent events saying only "game N is at revision V".

A player's page (``static/js/live.js``) then asks the poll view for its part, as its 10-second
poll would: what it sees still comes only through the views. Who may open a stream is decided as
for the page (``access.game_for``); what ends one, in ``games.read.live``.

A watcher's page (no seat in play) is carried its part in the stream itself (``Carried``): the
stream works out what the poll would answer that page, by the same view code for the same user
(``views.watcher_update``), and sends it as a "part" event. A move watched by 200 pages then
costs the site no 200 asks (issue 49: the cost of each ask, not the event, was what made 200
pages slow). The page says which revision it shows and its token when it opens the stream
(``?v=&p=``); it applies a part only when it still shows the revision the part starts from,
and otherwise asks as a player's page does. Each part is worked out in one thread per process
(``_CARRIER``): one database connection, however many streams.

Under ASGI (uvicorn, README "Running in production") a stream is a coroutine; under WSGI it holds
a thread, which development's runserver and the tests' live server have per connection, but
gunicorn's sync workers do not: there (``LIVE_WSGI_STREAMS`` off, production) the answer is 204 and
the page keeps polling.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.utils import timezone, translation
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games.read import access, live
from saboteur_site.text import ascii_int

from . import live_parts, views

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/event-stream"
RETRY_MS = 3000  # how long the browser waits before it reconnects after a stream ended


def event(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def revision_event(game_id: int, revision: int) -> bytes:
    return event("revision", {"game": game_id, "revision": revision})


# The one thread of this process that works out watchers' parts (module docstring).
_CARRIER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-parts")


@dataclass
class Carried:
    """A watcher's stream that carries the page its parts: the request that opened it (its user
    and token), the page's language and time zone, and the revision the page shows."""

    request: object
    language: str
    zone: str
    shown: int

    def chunk(self, game_id: int, revision: int) -> bytes:
        """The "part" event for ``revision`` (or the plain revision event when there is no part
        to carry: the page then asks). Runs in ``_CARRIER``'s thread or a WSGI stream's own."""
        try:
            with translation.override(self.language), timezone.override(self.zone):
                update = views.watcher_update(self.request, game_id, self.shown)
        except Exception:  # the page asks instead: a part never breaks the stream
            log.exception("game %s: the part of a watcher's page could not be worked out", game_id)
            connection.close()  # perhaps the cause (a lost connection): the next part opens one
            update = None
        if update is None:
            return revision_event(game_id, revision)
        shows, body = update
        data = {"game": game_id, "revision": shows, "from": self.shown, "html": body}
        self.shown = shows
        return event("part", data)


def _carried(request, pk: int, revision: int) -> Carried | None:
    """A watcher's stream opened with the page's revision and token: carried (``Carried``)."""
    token = live_parts.valid_token(request.GET.get("p"))
    shown = ascii_int(request.GET.get("v"))
    if token is None or shown is None:
        return None
    view = access.poll_view(pk, request.user)
    if view is None or not view.watcher:
        return None
    # A page behind the stream's first revision asks for it (that event says it is behind).
    return Carried(
        request,
        translation.get_language(),
        timezone.get_current_timezone_name(),
        max(shown, revision),
    )


def _chunk(game_id: int, item) -> tuple[bytes, bool]:
    """What one listener item becomes on the wire, and whether the stream ends with it."""
    if item is None:
        return event("ping", {}), False
    if item == live.END:
        return event("end", {}), True
    if item == live.RETRY:
        return b"", True  # just close: the browser reconnects after RETRY_MS
    return revision_event(game_id, item), False


def _is_revision(item) -> bool:
    return isinstance(item, int) and not isinstance(item, bool)


@require_safe
@login_required
@never_cache
def game_live(request, pk):
    game = access.game_for(pk, request.user)
    if game is None:
        raise Http404  # as the page: for anyone who may not see it
    if request.method == "HEAD" or settings.LIVE_STREAM_SECONDS <= 0:
        # Without a stream (HEAD; LIVE_STREAM_SECONDS=0 in the test client): the first event only.
        body = b"" if request.method == "HEAD" else _first(pk, game.revision)
        return _answer(HttpResponse(body))
    asgi = isinstance(request, ASGIRequest)
    if not asgi and not settings.LIVE_WSGI_STREAMS:
        return HttpResponse(status=204)  # the page keeps polling
    listener = live.listen(pk, user_id=request.user.pk, session_key=request.session.session_key)
    if listener is None:
        return HttpResponse(status=503)  # no pub/sub now: the page polls and retries
    if isinstance(listener, str):  # live.TOO_MANY, the only text ``listen`` answers
        return HttpResponse(status=429)  # this page polls instead, as without pub/sub
    revision = access.revision_of(pk)  # read after listening: no change slips in between
    if revision is None:
        listener.close()
        return HttpResponse(status=404)
    listener.seen(revision)
    carried = _carried(request, pk, revision)
    stream = _async_stream if asgi else _sync_stream
    return _answer(StreamingHttpResponse(stream(listener, _first(pk, revision), carried)))


def _first(game_id: int, revision: int) -> bytes:
    return f"retry: {RETRY_MS}\n\n".encode() + revision_event(game_id, revision)


def _answer(response):
    response["Content-Type"] = CONTENT_TYPE
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def _release_database() -> None:
    """The request's database connection is not needed while the stream waits."""
    if not connection.in_atomic_block:
        connection.close()


def _sync_stream(listener, first: bytes, carried: Carried | None = None):
    try:
        _release_database()
        yield first
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            item = listener.get(min(settings.LIVE_HEARTBEAT_SECONDS, left))
            if item is None and deadline - time.monotonic() <= 0:
                break
            if carried is not None and _is_revision(item):
                yield carried.chunk(listener.game_id, item)
                _release_database()
                continue
            chunk, done = _chunk(listener.game_id, item)
            if chunk:
                yield chunk
            if done:
                break
    finally:
        listener.close()


def _release_request_thread() -> None:
    """Under ASGI, Django runs a request's sync code (our middleware, this view) on a thread of
    its own that lives as long as the request: for a stream, as long as the page is open. The
    stream needs it no more, so it is let go now (asgiref makes a new one if the request's end
    needs it). Without asgiref's internals as expected, nothing happens: only memory is at
    stake."""
    context = getattr(SyncToAsync, "thread_sensitive_context", None)
    executors = getattr(SyncToAsync, "context_to_thread_executor", None)
    current = context.get(None) if context is not None else None
    if current is None or executors is None:
        return
    executor = executors.pop(current, None)
    if executor is not None:
        executor.shutdown(wait=False)


async def _async_stream(listener, first: bytes, carried: Carried | None = None):
    try:
        await sync_to_async(_release_database)()  # in the request's own thread
        _release_request_thread()
        yield first
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            item = await listener.aget(min(settings.LIVE_HEARTBEAT_SECONDS, left))
            if item is None and deadline - time.monotonic() <= 0:
                break
            if carried is not None and _is_revision(item):
                loop = asyncio.get_running_loop()
                yield await loop.run_in_executor(_CARRIER, carried.chunk, listener.game_id, item)
                continue
            chunk, done = _chunk(listener.game_id, item)
            if chunk:
                yield chunk
            if done:
                break
    finally:
        listener.close()
