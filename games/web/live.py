"""The game page's live stream: server-sent events saying only "game N is at revision V".

The page (``static/js/live.js``) then asks the poll view for its part, as its 10-second poll
would: what it sees still comes only through the views. Who may open a stream is decided as for
the page (``access.game_for``); what ends one, in ``games.read.live``.

Under ASGI (uvicorn, README "Running in production") a stream is a coroutine; under WSGI it holds
a thread, which development's runserver and the tests' live server have per connection, but
gunicorn's sync workers do not: there (``LIVE_WSGI_STREAMS`` off, production) the answer is 204 and
the page keeps polling.
"""

from __future__ import annotations

import json
import time

from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games.read import access, live

CONTENT_TYPE = "text/event-stream"
RETRY_MS = 3000  # how long the browser waits before it reconnects after a stream ended


def event(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def revision_event(game_id: int, revision: int) -> bytes:
    return event("revision", {"game": game_id, "revision": revision})


def _chunk(game_id: int, item) -> tuple[bytes, bool]:
    """What one listener item becomes on the wire, and whether the stream ends with it."""
    if item is None:
        return event("ping", {}), False
    if item == live.END:
        return event("end", {}), True
    if item == live.RETRY:
        return b"", True  # just close: the browser reconnects after RETRY_MS
    return revision_event(game_id, item), False


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
    stream = _async_stream if asgi else _sync_stream
    return _answer(StreamingHttpResponse(stream(listener, _first(pk, revision))))


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


def _sync_stream(listener, first: bytes):
    try:
        _release_database()
        yield first
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            item = listener.get(min(settings.LIVE_HEARTBEAT_SECONDS, left))
            if item is None and deadline - time.monotonic() <= 0:
                break
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


async def _async_stream(listener, first: bytes):
    try:
        await sync_to_async(_release_database)()  # in the request's own thread
        _release_request_thread()
        yield first
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            item = await listener.aget(min(settings.LIVE_HEARTBEAT_SECONDS, left))
            if item is None and deadline - time.monotonic() <= 0:
                break
            chunk, done = _chunk(listener.game_id, item)
            if chunk:
                yield chunk
            if done:
                break
    finally:
        listener.close()
