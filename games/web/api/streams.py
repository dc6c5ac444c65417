"""The API's NDJSON event streams, on the same live machinery as the pages' (``games.read.live``:
a listener per game, told "game N is at revision V" after each commit; under ASGI a coroutine,
under `make run`'s development server a thread, as ``games.web.live``).

- ``GET /api/v1/games/{id}/stream``: a line ``{"type": "game", "game": {...}}`` at once and after
  each change, the game as the caller may see it (``GET /games/{id}``'s answer), read through the
  same code when the live message arrives;
- ``GET /api/v1/stream``: the caller's own news, a line each: ``game-started``, ``your-turn``,
  ``game-over`` (``{"type", "game": id, "version"}``), for the games they sit at (the newest
  ``ACCOUNT_GAMES``; a game joined later is followed from the next heartbeat), and
  ``challenge`` (``{"type", "challenge": {...}}``, as ``GET /challenges`` lists it) for each
  challenge sent to them, at once or by the next heartbeat.

A blank line every ``LIVE_HEARTBEAT_SECONDS`` keeps the connection open; ``{"type": "end"}``
ends a stream the caller may no longer follow. A token holds at most ``STREAMS_PER_TOKEN``
streams at once in a process (429 beyond, and each opening counts in ``api_stream``).
"""

from __future__ import annotations

import asyncio
import collections
import json
import threading
import time
from collections.abc import Callable

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext as _

from games.models import Game
from games.read import live
from games.web import live as page_live

from .challenges import open_challenges
from .games import ERRORS, game_answer, my_games, router, row_of, visible
from .site import ApiError, limit, need

CONTENT_TYPE = "application/x-ndjson"
STREAMS_PER_TOKEN = 4
ACCOUNT_GAMES = 10
HEARTBEAT = b"\n"

_open: collections.Counter[int] = collections.Counter()
_open_lock = threading.Lock()


def line(data: dict) -> bytes:
    return json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":")).encode() + b"\n"


END = line({"type": "end"})  # the stream's last line: the caller may no longer follow


class Opened:
    """One of a token's open streams (``STREAMS_PER_TOKEN``), and its listeners."""

    def __init__(self, token_id: int):
        with _open_lock:
            if _open[token_id] >= STREAMS_PER_TOKEN:
                raise ApiError(
                    429, "too-many-streams",
                    _("This token has as many streams open as it may; close one first."),
                    retry_after=60,
                )  # fmt: skip
            _open[token_id] += 1
        self.token_id = token_id
        self.listeners: dict[int, live.Listener] = {}

    def follow(self, game_id: int, user_id: int) -> live.Listener | None:
        if game_id in self.listeners:
            return self.listeners[game_id]
        listener = live.listen(game_id, user_id=user_id, session_key=None, token_id=self.token_id)
        if isinstance(listener, live.Listener):
            self.listeners[game_id] = listener
            return listener
        return None

    def close(self) -> None:
        for listener in self.listeners.values():
            listener.close()
        self.listeners.clear()
        with _open_lock:
            _open[self.token_id] -= 1
            if _open[self.token_id] <= 0:
                del _open[self.token_id]


# -- One game ---------------------------------------------------------------------------------


@router.get(
    "/games/{int:game_id}/stream",
    response={200: None, **ERRORS},
    summary="A game's stream (NDJSON)",
)
def game_stream(request: HttpRequest, game_id: int):
    """Each change of the game as I may see it, one JSON line each."""
    token = need(request, "read")
    user = token.user
    found = visible(game_id, user)
    if found is None:
        raise ApiError(404, "not-found", _("There is no such thing here, or not for you."))
    limit(request, "api_stream")
    first = line({"type": "game", "game": game_answer(found, user)})

    def told(item) -> bytes:
        again = visible(game_id, user)
        if again is None:
            return line({"type": "end"})
        return line({"type": "game", "game": game_answer(again, user)})

    return _stream(request, token.pk, first, lambda opened: [opened.follow(game_id, user.pk)],
                   lambda _game_id, item: told(item))  # fmt: skip


# -- The account ------------------------------------------------------------------------------


class News:
    """What the account's stream last said of each game: (status, my turn, version)."""

    def __init__(self, user):
        self.user = user
        self.seen: dict[int, tuple[str, bool, int]] = {}
        self.challenges: set[int] = set()  # the challenges already told

    def new_challenges(self) -> bytes:
        """A ``challenge`` line for each challenge sent to the caller not told yet."""
        said = b""
        for challenge in reversed(open_challenges(self.user)):
            if challenge["id"] not in self.challenges:
                self.challenges.add(challenge["id"])
                said += line({"type": "challenge", "challenge": challenge})
        return said

    def games(self) -> list[Game]:
        return my_games(self.user, count=ACCOUNT_GAMES)

    def about(self, game: Game, *, first: bool = False) -> bytes:
        row = row_of(game, self.user)
        now = (game.status, row["my_turn"], game.version)
        before = self.seen.get(game.pk)
        self.seen[game.pk] = now
        if before == now:
            return b""
        said = b""
        kind = {"finished": "game-over", "aborted": "game-over"}.get(game.status)
        if (
            kind is None
            and game.status == Game.Status.RUNNING
            and (
                before is None
                and not first
                or before is not None
                and before[0] == Game.Status.LOBBY
            )
        ):
            kind = "game-started"
        if kind is not None:
            said += line({"type": kind, "game": game.pk, "version": game.version})
        if row["my_turn"] and game.status == Game.Status.RUNNING:
            said += line({"type": "your-turn", "game": game.pk, "version": game.version})
        return said


@router.get("/stream", response={200: None, **ERRORS}, summary="My stream (NDJSON)")
def account_stream(request: HttpRequest):
    """My news, one JSON line each: a game of mine started, it is my turn, a game is over."""
    token = need(request, "read")
    limit(request, "api_stream")
    news = News(token.user)
    first = b"".join(news.about(game, first=True) for game in news.games())
    first = first + news.new_challenges() or HEARTBEAT

    def follow_all(opened: Opened) -> bytes:
        # Waiting for news with no game to follow, nothing else checks the token at a heartbeat.
        if not opened.listeners and live.token_user_id(token.pk) is None:
            return END
        for game in news.games():
            opened.follow(game.pk, token.user.pk)
        return news.new_challenges()

    def told(game_id: int, item) -> bytes:
        game = visible(game_id, token.user)
        return news.about(game) if game is not None else b""

    return _stream(request, token.pk, first, follow_all, told, refollow=True)


# -- Serving a stream -------------------------------------------------------------------------


def _stream(request, token_id: int, first: bytes, follow: Callable, told: Callable, *,
            refollow: bool = False) -> HttpResponse | StreamingHttpResponse:  # fmt: skip
    """The answer: ``first`` then ``told(game_id, item)`` for each live item, heartbeats
    between, until LIVE_STREAM_SECONDS pass (the client reconnects) or the caller may no longer
    follow. With LIVE_STREAM_SECONDS=0 (the test client) or for HEAD: ``first`` alone."""
    asgi = isinstance(request, ASGIRequest)
    if request.method == "HEAD" or settings.LIVE_STREAM_SECONDS <= 0:
        return _answer(HttpResponse(first if request.method != "HEAD" else b""))
    if not asgi and not settings.LIVE_WSGI_STREAMS:
        return _answer(HttpResponse(first))  # gunicorn's sync workers: poll instead
    opened = Opened(token_id)
    follow(opened)
    if not opened.listeners and not refollow:
        opened.close()
        return _answer(HttpResponse(first))
    loop = _async_loop if asgi else _sync_loop
    return _answer(StreamingHttpResponse(loop(opened, first, follow, told, refollow)))


def _answer[R: (HttpResponse, StreamingHttpResponse)](response: R) -> R:
    response["Content-Type"] = CONTENT_TYPE
    response["X-Accel-Buffering"] = "no"
    response["Cache-Control"] = "no-store"
    return response


def _chunk(listener: live.Listener, item, told: Callable) -> tuple[bytes, bool]:
    if item == live.END:
        return END, True
    if item == live.RETRY:
        return b"", True
    return told(listener.game_id, item), False


def _sync_loop(opened: Opened, first: bytes, follow, told, refollow):
    try:
        page_live._release_database()
        yield first
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        beat = time.monotonic() + settings.LIVE_HEARTBEAT_SECONDS
        # The account's stream (``refollow``) waits for news even with no game to follow.
        while time.monotonic() < deadline and (opened.listeners or refollow):
            if not opened.listeners:
                time.sleep(max(0.0, min(beat, deadline) - time.monotonic()))
            for listener in list(opened.listeners.values()):
                item = listener.get(0.2 / max(1, len(opened.listeners)))
                if item is None:
                    continue
                chunk, done = _chunk(listener, item, told)
                if chunk:
                    yield chunk
                if done:
                    return
            if time.monotonic() >= beat:
                beat = time.monotonic() + settings.LIVE_HEARTBEAT_SECONDS
                if refollow and (said := follow(opened)):
                    yield said
                    if said == END:
                        return
                yield HEARTBEAT
    finally:
        opened.close()


async def _async_loop(opened: Opened, first: bytes, follow, told, refollow):
    try:
        await sync_to_async(page_live._release_database)()
        page_live._release_request_thread()
        yield first
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        # The account's stream (``refollow``) waits for news even with no game to follow.
        while (left := deadline - time.monotonic()) > 0 and (opened.listeners or refollow):
            wait = min(settings.LIVE_HEARTBEAT_SECONDS, left)
            items: list[tuple[live.Listener, object]] = []
            if opened.listeners:
                waits = {
                    asyncio.ensure_future(listener.aget(wait)): listener
                    for listener in opened.listeners.values()
                }
                done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    task.cancel()
                items = [(waits[task], task.result()) for task in done]
            else:
                await asyncio.sleep(wait)
            if all(item is None for _listener, item in items):
                if refollow and (said := await sync_to_async(follow)(opened)):
                    yield said
                    if said == END:
                        return
                yield HEARTBEAT
                continue
            for listener, item in items:
                if item is None:
                    continue
                chunk, finished = await sync_to_async(_chunk)(listener, item, told)
                if chunk:
                    yield chunk
                if finished:
                    return
    finally:
        await sync_to_async(opened.close)()
