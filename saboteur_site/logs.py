"""One log line per request and per Celery task, with the game id where there is one.

In production the settings format every log record as one JSON object per line (python-json-logger),
so the fields given here as ``extra`` (``method``, ``path``, ``status``, ``duration_ms``,
``user_id``, ``game_id``, ``task``...) become keys a log search can filter on.

The game id of a request comes from the URL (the games app's ``<pk>`` routes); code that works on
one game in a task (sending a notice) names it with ``bind_game``.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar

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
    path = request.path
    match = getattr(request, "resolver_match", None)
    if match is None:
        return path
    for value in match.kwargs.values():
        if isinstance(value, str) and value:
            path = path.replace(value, "[hidden]")
    return path


class RedactPathParameters(logging.Filter):
    """Django's own request warnings ("Not Found: /tap/<token>/") name the path: hide its
    parameters there too."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if request is not None and isinstance(record.args, tuple) and hasattr(request, "path"):
            safe = loggable_path(request)
            record.args = tuple(safe if arg == request.path else arg for arg in record.args)
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
