"""One log line per request and per Celery task, with the game id where there is one.

In production the settings format every log record as one JSON object per line (python-json-logger),
so the fields given here as ``extra`` (``method``, ``path``, ``status``, ``duration_ms``,
``user_id``, ``game_id``, ``task``...) become keys a log search can filter on.

The game id of a request comes from the URL (the games app's ``<pk>`` routes); code that works on
one game in a task (sending a notice) names it with ``bind_game``.
"""

from __future__ import annotations

import logging
import re
import time
from contextvars import ContextVar
from urllib.parse import quote, unquote, unquote_plus

from django.urls import Resolver404, resolve

request_log = logging.getLogger("saboteur.request")
task_log = logging.getLogger("saboteur.task")

_game_id: ContextVar[int | None] = ContextVar("saboteur_game_id", default=None)
_task_started: dict[str, float] = {}


def bind_game(game_id: int | None) -> None:
    """Name the game the current request or task is about (for its log line)."""
    _game_id.set(game_id)


def _game_of(request) -> int | None:
    match = getattr(request, "resolver_match", None)
    if match is None or not match.func.__module__.startswith("games."):
        return None
    pk = match.kwargs.get("pk")
    return pk if isinstance(pk, int) else None


def loggable_path(request) -> str:
    """The request's path with every text path parameter hidden: one-tap, unsubscribe, invite,
    confirmation and reset links carry their power in the path, and logs are read by others."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        # Answered before any view (APPEND_SLASH's redirect of "/tap/<token>", a middleware's
        # refusal): the route the path leads to says what to hide.
        match = _route_of(request.path_info)
    return _hidden(request.path, match.kwargs) if match is not None else request.path


def _route_of(path: str):
    """The resolver's match for ``path``, or for it with the slash ``APPEND_SLASH`` would add;
    None when no route matches."""
    candidates = (path, path + "/") if not path.endswith("/") else (path,)
    for candidate in candidates:
        try:
            return resolve(candidate)
        except Resolver404:
            pass
        except Exception:  # a path the resolver cannot read: logging must never fail a request
            return None
    return None


def _hidden(path: str, kwargs: dict) -> str:
    for value in kwargs.values():
        if isinstance(value, str) and value:
            path = path.replace(value, HIDDEN)
    return path


HIDDEN = "[hidden]"

# A path in a server's line: a "/" at the start of the text or after a space, a quote or a
# parenthesis ("GET /tap/x/ HTTP/1.1", "Bad request syntax ('GET /tap/x/ ...')"), and its query.
_PATH_IN_LINE = re.compile(r"""(?<![^\s'"(])(/[^\s'"?#]*)(\?[^\s'"#]*)?""")
# What may stay as it is when a redacted path is written again in a request line.
_PATH_SAFE = "/[]-._~!$&'()*+,;=:@"


def loggable_request_line(text: str) -> str:
    """A server's line (runserver's ``"GET /tap/<token>/ HTTP/1.1"``) with the secret
    parameters of every path in it hidden, as ``loggable_path`` hides them: the path is resolved
    against the site's URLs, as the request itself was (or will be, with the slash that
    ``APPEND_SLASH`` would add), and so is a path in its query (the login page's
    ``?next=/invite/<token>/``). Paths no route matches are left as they are."""

    def hidden(found: re.Match) -> str:
        return _loggable_raw_path(found.group(1)) + _loggable_query(found.group(2) or "")

    return _PATH_IN_LINE.sub(hidden, text)


def _loggable_raw_path(raw: str, *, plus: bool = False) -> str:
    path = unquote_plus(raw) if plus else unquote(raw)
    match = _route_of(path)
    if match is None:
        return raw
    hidden = _hidden(path, match.kwargs)
    return raw if hidden == path else quote(hidden, safe=_PATH_SAFE)


def _loggable_query(query: str) -> str:
    """``?next=/invite/<token>/&x=1`` with the secrets of the paths among its values hidden."""
    parts = []
    for part in query.split("&"):
        name, equals, value = part.partition("=")
        if equals and unquote_plus(value).startswith("/"):
            value = _loggable_raw_path(value, plus=True)
        parts.append(name + equals + value)
    return "&".join(parts)


class RedactPathParameters(logging.Filter):
    """Hide the secret parameters of paths in log lines.

    Django's own request warnings ("Not Found: /tap/<token>/") carry the request: its resolved
    parameters are hidden. runserver's access lines (logger ``django.server``) carry only the
    request line, as text, in their arguments: the path in it is resolved here.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if not isinstance(record.args, tuple):
            return True
        if request is not None and hasattr(request, "path"):
            safe = loggable_path(request)
            record.args = tuple(safe if arg == request.path else arg for arg in record.args)
        elif record.name.startswith("django.server"):
            record.args = tuple(
                loggable_request_line(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        return True


class RequestLogMiddleware:
    """Logs every request once it is answered: method, path, status, time, user and game."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        start = time.perf_counter()
        token = _game_id.set(None)
        try:
            response = self.get_response(request)
            path = loggable_path(request)
            request_log.info(
                "%s %s %s",
                request.method,
                path,
                response.status_code,
                extra={
                    "method": request.method,
                    "path": path,
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - start) * 1000, 1),
                    "user_id": _user_id(request),
                    "game_id": _game_of(request) or _game_id.get(),
                },
            )
            return response
        finally:
            _game_id.reset(token)


def _user_id(request) -> int | None:
    """The logged-in user's id, or None; without failing when the session cannot be read (the
    database is away: the request is answered 503, and still logged)."""
    user = getattr(request, "user", None)
    try:
        return user.pk if user is not None and user.is_authenticated else None
    except Exception:
        return None


def task_started(task_id=None, **kwargs) -> None:
    """Celery's ``task_prerun`` signal."""
    _game_id.set(None)
    if task_id:
        _task_started[task_id] = time.perf_counter()


def task_finished(task_id=None, task=None, state=None, **kwargs) -> None:
    """Celery's ``task_postrun`` signal: the task's one line."""
    start = _task_started.pop(task_id, None)
    name = getattr(task, "name", str(task))
    task_log.info(
        "task %s %s",
        name,
        state,
        extra={
            "task": name,
            "task_id": task_id,
            "state": state,
            "duration_ms": round((time.perf_counter() - start) * 1000, 1) if start else None,
            "game_id": _game_id.get(),
        },
    )
    _game_id.set(None)
