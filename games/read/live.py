"""Live updates: telling open game pages "game N is at revision V" as soon as a change commits.

A message carries a game's id and revision and nothing else (docs/architecture.md): the page
then fetches its own parts through the same views as any request, so the leak surface stays the
views. The poll (``access.poll_view``) stays the fallback for anything lost here.

Publishing (``publish``): every save of a ``Game`` that changes its revision publishes after the
commit (the signal in ``invalidation.py`` sees every writer: the play side, moderation, the
admin, account deletion). It lives on the read side, beside that cache invalidation, because it
is the same kind of thing: it tells readers that what they have is old, and no writer has to
remember it. A publish that fails is logged and forgotten; it never fails the change.

Listening (``listen``): one hub per process that serves streams. With Redis it holds one
pub/sub connection for all its streams; without Redis (``make run``) it reads the revisions of
the games it watches from the database every ``LIVE_FALLBACK_POLL_MS`` (one query for all
of them), which also sees the Celery worker's moves. A thread does either, and the work that
needs the database (who may still see a game, whether a session still stands) is done there,
once per game and change rather than once per open page. A stream waits on its ``Listener``, from
a WSGI thread (``get``) or an ASGI coroutine (``aget``).

What ends a stream (the listener then gets ``END``): its viewer may no longer see the game (a
private game's seat given up, the game deleted: checked on every change of the game), its
session logged out (at once, ``session_ended``), expired, or no longer of an active user
(checked every ``LIVE_RECHECK_SECONDS``); an API stream's token revoked (checked as often).
When the pub/sub connection drops, streams get
``RETRY``: they close, the pages poll and reconnect later.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
import threading
import time
from functools import partial
from importlib import import_module
from types import SimpleNamespace

import redis
from django.conf import settings
from django.contrib.auth import get_user
from django.contrib.auth.signals import user_logged_out
from django.db import connection, transaction
from django.dispatch import receiver

from games.models import Game

from . import access

log = logging.getLogger(__name__)

END = "end"  # the viewer may no longer follow this game: the page stops listening
RETRY = "retry"  # the hub lost its source: the page polls and reconnects later

_TIMEOUT = 0.5  # seconds a publish may wait for Redis before giving up
_QUIET_AFTER_FAILURE = 5.0  # seconds without publish attempts after one failed


def _games_channel() -> str:
    return f"{settings.LIVE_CHANNEL}:games"


def _sessions_channel() -> str:
    return f"{settings.LIVE_CHANNEL}:sessions"


def session_tag(session_key: str | None) -> str:
    """What a logout publishes: never the session key itself."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:32]


# -- Publishing ------------------------------------------------------------------------------

_publishers: dict[str, redis.Redis] = {}  # per Redis URL (tests point it elsewhere)
_quiet_until: dict[str, float] = {}


def _send(channel: str, message: str) -> None:
    """Publish, never raising: a broken Redis costs at most one short wait every few seconds."""
    url = settings.REDIS_URL
    if not url or time.monotonic() < _quiet_until.get(url, 0.0):
        return
    client = _publishers.get(url)
    if client is None:
        client = _publishers[url] = redis.Redis.from_url(
            url, socket_connect_timeout=_TIMEOUT, socket_timeout=_TIMEOUT
        )
    try:
        client.publish(channel, message)
    except (redis.RedisError, OSError) as error:
        _quiet_until[url] = time.monotonic() + _QUIET_AFTER_FAILURE
        log.warning("live: publish to %s failed (%s); pages fall back to polling", channel, error)


def publish(game_id: int, revision: int) -> None:
    """Tell every listening process that ``game_id`` is at ``revision`` (no-op without Redis:
    the hub then reads revisions from the database)."""
    _send(_games_channel(), f"{int(game_id)} {int(revision)}")


def publish_after_commit(game_id: int, revision: int) -> None:
    transaction.on_commit(partial(publish, game_id, revision), robust=True)


@receiver(user_logged_out)
def session_ended(sender=None, request=None, **kwargs) -> None:
    """Logging out ends that session's streams at once, in every process."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if not key:
        return
    tag = session_tag(key)
    if _hub is not None:
        _hub.end_session(tag)
    _send(_sessions_channel(), tag)


# -- Listening -------------------------------------------------------------------------------


class Listener:
    """One open stream: a viewer following one game. Made by ``listen``; ``close`` it."""

    def __init__(
        self,
        hub: Hub,
        game_id: int,
        user_id: int,
        session_key: str | None,
        token_id: int | None = None,
    ):
        self.hub, self.game_id, self.user_id = hub, game_id, user_id
        # An API stream stands on its token (``accounts.tokens``), not on a session.
        self.token_id = token_id
        self.session_key, self.tag = session_key, session_tag(session_key)
        self.revision = -1  # the newest revision this stream has told
        self.due = time.monotonic() + settings.LIVE_RECHECK_SECONDS
        self.ended = False
        self._items: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None

    def seen(self, revision: int) -> None:
        """The revision the stream starts from (read after the listener was registered, so no
        change can slip between the two)."""
        with self._lock:
            self.revision = max(self.revision, revision)

    def put(self, item) -> None:
        """From the hub's thread: a newer revision, ``END`` or ``RETRY``."""
        with self._lock:
            if self.ended:
                return
            if item in (END, RETRY):
                self.ended = True
            elif item <= self.revision:
                return
            else:
                self.revision = item
            self._items.append(item)
            loop, event = self._loop, self._event
            if loop is None:
                self._ready.notify_all()
        if loop is not None and event is not None:  # set together, by aget()
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed: nobody reads this stream any more
                pass

    def get(self, timeout: float):
        """The next item, or None after ``timeout`` seconds (a WSGI thread waits here)."""
        with self._ready:
            if not self._items:
                self._ready.wait(timeout)
            return self._items.popleft() if self._items else None

    async def aget(self, timeout: float):
        """The next item, or None after ``timeout`` seconds (an ASGI coroutine awaits here)."""
        with self._lock:
            if self._loop is None or self._event is None:
                self._loop, self._event = asyncio.get_running_loop(), asyncio.Event()
            event = self._event
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if self._items:
                    return self._items.popleft()
                event.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                return None

    def close(self) -> None:
        self.hub.remove(self)


class Hub:
    """The listeners of one process and the thread that feeds them (module docstring)."""

    def __init__(self, *, use_redis: bool):
        self.use_redis = use_redis
        self._lock = threading.Lock()
        self._games: dict[int, set[Listener]] = {}
        self._per_user: collections.Counter[int] = collections.Counter()  # open streams
        self._stop = threading.Event()
        self._up = threading.Event()  # the source works (Redis subscribed, or the database)
        self._ended_tags: collections.deque[str] = collections.deque()
        self._thread = threading.Thread(target=self._run, name="live-hub", daemon=True)
        self._thread.start()

    # Called from request threads and coroutines.

    def add(self, listener: Listener, *, wait: float = 2.0) -> str:
        """``"added"``, ``"down"`` (the source does not work now) or ``"full"`` (the viewer
        holds ``LIVE_STREAMS_PER_USER`` streams in this process already)."""
        if not self._up.wait(wait):
            return "down"
        with self._lock:
            if self._per_user[listener.user_id] >= settings.LIVE_STREAMS_PER_USER:
                return "full"
            self._per_user[listener.user_id] += 1
            self._games.setdefault(listener.game_id, set()).add(listener)
        return "added"

    def remove(self, listener: Listener) -> None:
        with self._lock:
            listeners = self._games.get(listener.game_id)
            if listeners is None or listener not in listeners:
                return  # removed before (a stream closes once, but may be told twice)
            listeners.discard(listener)
            if not listeners:
                del self._games[listener.game_id]
            self._per_user[listener.user_id] -= 1
            if not self._per_user[listener.user_id]:
                del self._per_user[listener.user_id]

    def end_session(self, tag: str) -> None:
        self._ended_tags.append(tag)

    def count(self) -> int:
        with self._lock:
            return sum(len(listeners) for listeners in self._games.values())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    # The hub's thread.

    def _listeners(self, game_id: int | None = None) -> list[Listener]:
        with self._lock:
            if game_id is not None:
                return list(self._games.get(game_id, ()))
            return [listener for group in self._games.values() for listener in group]

    def _run(self) -> None:
        try:
            if self.use_redis:
                self._run_redis()
            else:
                self._run_database()
        finally:
            self._up.clear()
            connection.close()

    def _run_redis(self) -> None:
        pause = 0.5
        while not self._stop.is_set():
            client = redis.Redis.from_url(
                settings.REDIS_URL, socket_connect_timeout=2, health_check_interval=30
            )
            pubsub = client.pubsub()
            try:
                pubsub.subscribe(_games_channel(), _sessions_channel())
                confirmed = 0
                while confirmed < 2:  # subscribed: nothing published from here on is missed
                    message = pubsub.get_message(timeout=2)
                    if message is None:
                        raise redis.ConnectionError("no subscription confirmation")
                    confirmed += message["type"] == "subscribe"
                self._up.set()
                pause = 0.5
                while not self._stop.is_set():
                    message = pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None:
                        self._received(message["channel"].decode(), message["data"].decode())
                    self._housekeeping()
            except (redis.RedisError, OSError) as error:
                self._up.clear()
                log.warning("live: Redis pub/sub lost (%s); streams end, pages poll", error)
                for listener in self._listeners():
                    listener.put(RETRY)
                self._stop.wait(pause)
                pause = min(pause * 2, 10.0)
            finally:
                pubsub.close()
                client.close()

    def _received(self, channel: str, data: str) -> None:
        if channel == _sessions_channel():
            self._ended_tags.append(data)
            return
        try:
            game_id, revision = (int(part) for part in data.split())
        except ValueError:
            return
        self._changed({game_id: revision})

    def _run_database(self) -> None:
        self._up.set()
        while not self._stop.wait(settings.LIVE_FALLBACK_POLL_MS / 1000):
            with self._lock:
                watched = list(self._games)
            if watched:
                try:
                    found = dict(Game.objects.filter(pk__in=watched).values_list("pk", "revision"))
                    # A game that is gone ends its streams (its revision "grows" to infinity).
                    self._changed({pk: found.get(pk, 2**62) for pk in watched})
                except Exception:
                    log.exception("live: reading the watched games' revisions failed")
                finally:
                    connection.close()
            self._housekeeping()

    def _changed(self, revisions: dict[int, int]) -> None:
        """New revisions: told to the listeners that may still see their game, ``END`` to the
        others (one audience query per changed game, whatever the number of listeners)."""
        try:
            for game_id, revision in revisions.items():
                behind = [ls for ls in self._listeners(game_id) if ls.revision < revision]
                if not behind:
                    continue
                audience = access.audience(game_id)
                for listener in behind:
                    admitted = audience is not None and audience.admits(listener.user_id)
                    listener.put(revision if admitted else END)
        except Exception:
            log.exception("live: telling the listeners failed")
        finally:
            connection.close()

    def _housekeeping(self) -> None:
        """Logouts, and every due listener's session and audience checked again."""
        while self._ended_tags:
            tag = self._ended_tags.popleft()
            for listener in self._listeners():
                if listener.tag == tag:
                    listener.put(END)
        now = time.monotonic()
        due = [listener for listener in self._listeners() if listener.due <= now]
        if not due:
            return
        try:
            audiences = {}
            for listener in due:
                listener.due = now + settings.LIVE_RECHECK_SECONDS
                if listener.game_id not in audiences:
                    audiences[listener.game_id] = access.audience(listener.game_id)
                audience = audiences[listener.game_id]
                if listener.token_id is not None:
                    user_id = token_user_id(listener.token_id)
                else:
                    user_id = session_user_id(listener.session_key)
                if user_id != listener.user_id or audience is None:
                    listener.put(END)
                elif not audience.admits(user_id):
                    listener.put(END)
        except Exception:
            log.exception("live: checking the open streams failed")
        finally:
            connection.close()


def session_user_id(session_key: str | None) -> int | None:
    """The id of the active user logged in with this session now, as a request would find it
    (Django's own checks: the session exists, its password hash holds, the account is active)."""
    if not session_key:
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    # A stand-in request: get_user() reads nothing but its session.
    user = get_user(SimpleNamespace(session=store))  # type: ignore[arg-type]
    return user.pk if user.is_authenticated else None


def token_user_id(token_id: int) -> int | None:
    """The id of the active user whose live API token this is now (a revoked token, or its
    account deactivated, ends the token's streams)."""
    from accounts.models import ApiToken

    found = ApiToken.objects.filter(pk=token_id, revoked_at__isnull=True, user__is_active=True)
    return found.values_list("user_id", flat=True).first()


_hub: Hub | None = None
_hub_lock = threading.Lock()


def hub() -> Hub:
    global _hub
    with _hub_lock:
        if _hub is None:
            _hub = Hub(use_redis=bool(settings.REDIS_URL))
        return _hub


TOO_MANY = "too many"  # listen()'s answer to a viewer who holds as many streams as allowed


def listen(
    game_id: int, *, user_id: int, session_key: str | None, token_id: int | None = None
) -> Listener | str | None:
    """A registered listener; None when the hub cannot listen now (Redis unreachable);
    ``TOO_MANY`` when the viewer already holds ``LIVE_STREAMS_PER_USER`` streams in this
    process (a page each is far fewer; a script opening streams by the thousand is held here)."""
    current = hub()
    listener = Listener(current, game_id, user_id, session_key, token_id)
    added = current.add(listener)
    return listener if added == "added" else TOO_MANY if added == "full" else None


def stop_hub() -> None:
    """Stop this process's hub (tests; a process that stops serving streams)."""
    global _hub
    with _hub_lock:
        current, _hub = _hub, None
    if current is not None:
        for listener in current._listeners():
            listener.put(RETRY)
        current.stop()
