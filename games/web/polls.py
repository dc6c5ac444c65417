"""A poll's user and game in one query, and the unchanged poll answered with it (issue 49).

Every open page of a game asks ``/games/<pk>/poll/?v=<revision>`` after each live event and every
ten seconds, and nearly always nothing changed: the answer is an empty 204. Through the whole
stack, that answer cost the session, the user (a query, made for every request whose middleware
reads ``request.user``) and the poll's own query. ``UnchangedPollMiddleware`` sits after
Django's session and authentication middleware, before anything reads ``request.user``. For a
GET of a poll whose session names a user, it reads the user, whole, with the game and the user's
seats in one query (``access.poll_with_user``), and verifies the session with that user as
``django.contrib.auth.get_user`` would:

- the backend that logged the user in loads users as Django's ``ModelBackend`` does;
- it lets the user log in (``user_can_authenticate``: active);
- the session's hash is the one the current secret makes of the user's password hash.

Verified, the user is the request's user and the poll's reading is the view's
(``request.poll_view``, read by ``views.game_poll``): an unchanged poll with no visit to note
and no push device to mark as in use (its cookie) is answered 204 at once; any other goes on
with one query less than before (the user's). Anything not verified here goes on untouched, and
Django's ``get_user`` decides as it always has: a session of an older secret renewed, a session
whose password changed ended, a 404.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.crypto import constant_time_compare

from accounts import devices
from games.play import visits
from games.read import access
from saboteur_site import logs
from saboteur_site.text import ascii_int

# The path of ``views.game_poll`` (games/web/urls.py; tests/web/test_polls.py checks they agree).
POLL_PATH = re.compile(r"/games/(?P<pk>[0-9]{1,19})/poll/")


class UnchangedPollMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        answer = unchanged_poll(request)
        return self.get_response(request) if answer is None else answer


def unchanged_poll(request) -> HttpResponse | None:
    """The 204 of an unchanged poll, or None for the view to answer (with the request's user and
    ``request.poll_view`` set when the session was verified here)."""
    found = POLL_PATH.fullmatch(request.path_info)
    if found is None or request.method != "GET":
        return None
    named = _session_user(request.session)
    if named is None:
        return None
    user_id, backend = named
    read = access.poll_with_user(int(found["pk"]), user_id)
    if read is None:
        return None
    user, view = read
    if not _session_verified(request.session, user, backend):
        return None
    request.user = user  # what get_user would have given, read with the game
    request.poll_view = view
    if view.revision != shown_revision(request) or visit_to_note(request, view):
        return None
    if devices.COOKIE in request.COOKIES:
        return None  # DeviceSeenMiddleware notes the device in use
    logs.bind_game(int(found["pk"]))
    response = HttpResponse(status=204)
    add_never_cache_headers(response)  # as views.game_poll's answer, and every private page's
    return response


def shown_revision(request) -> int | None:
    """The revision the asking page shows (``v``)."""
    return ascii_int(request.GET.get("v"))


def visit_to_note(request, view: access.PollView) -> bool:
    """The page is in front of its player (live.js says ``here=1``) and their seat was last
    seen a minute ago or more: the view notes the visit (``visits.seat_seen``)."""
    return request.GET.get("here") == "1" and not view.watcher and visits.stale(view.seen_at)


def _session_user(session) -> tuple[int, ModelBackend] | None:
    """The user the session names and the backend that logged them in, if that backend loads
    users as ``ModelBackend`` does; else None (the view's ``get_user`` decides)."""
    try:
        backend_path = session[BACKEND_SESSION_KEY]
        value = session[SESSION_KEY]
    except KeyError:
        return None
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    backend = load_backend(backend_path)
    if not isinstance(backend, ModelBackend) or type(backend).get_user is not ModelBackend.get_user:
        return None
    try:
        return int(get_user_model()._meta.pk.to_python(value)), backend
    except (ValidationError, TypeError, ValueError):
        return None


def _session_verified(session, user, backend: ModelBackend) -> bool:
    """Whether ``get_user`` would keep this session for ``user`` without touching it: the
    backend lets the user log in (``user_can_authenticate``: active) and the session's hash is
    the one the current secret makes of their password hash."""
    session_hash = session.get(HASH_SESSION_KEY)
    return bool(
        backend.user_can_authenticate(user)
        and session_hash
        and constant_time_compare(session_hash, user.get_session_auth_hash())
    )
