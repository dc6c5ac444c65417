"""Rate limits of the site's own POSTs (README, "Rate limits"): one table, one decorator.

Every button and form of a page can be sent again and again: by a script, a stuck key, a hostile
probe (40 seed saves in 3 s, each a live update to every open lobby page: issue 48). Each POST
route of the site is listed in ``LIMITS`` with what one sender may send of it; a view says
which entry it counts in with ``@rate_limited(route)``, placed under ``login_required`` (the
player is the sender) and counting POSTs only (a page shown again is free). A refused request
reaches no view and so changes nothing; its answer (the view's ``answer``, else a page saying
the same) is 429 with ``Retry-After``, and says in the player's language when to try again.

Who is counted: each player (``per="user"``; a visitor who is not logged in: each IP address,
as allauth counts, ``ALLAUTH_TRUSTED_PROXY_COUNT``); the links of emails, which work without
logging in, each signed token (``per="token"``: one-click unsubscribes are posted by mail
services, from a few addresses for all their users).

How: fixed windows. For each rate "N/period", a counter per route, sender and window in the
shared cache (Redis: ``incr`` is atomic, and every web process counts in the same place). A
refused request is taken off the counters again, so that hammering does not push the next
window back. Redis away (django-redis's ``incr`` then answers None): the limits count nothing
and let requests through, as allauth's do (saboteur_site/cache.py), rather than refuse a whole
site. Without Redis (`make run`: the
database cache, one process) counting is not atomic and an hour's counter may start again after
five idle minutes: looser, never stricter. The benchmarks, whose players move as fast as the
machine lets them, multiply every count by ``RATE_LIMITS_SCALE`` (bench/bench_settings.py).

Not django-ratelimit: its last release (2023) predates Django 6, and its system check refuses the
database cache of `make run` (an error). What it would give, a counter with ``add`` and
``incr``, is the twenty lines below.

Not limited here: allauth's own views (its ``ACCOUNT_RATE_LIMITS``, saboteur_site/settings.py:
logins, sign-ups, password resets, email confirmation, changes of password and email, asking the
password again), the admin (staff only), and the inbound mail webhooks (posted by the mail
provider, signed; what a reply writes goes through the chat, which counts its messages).
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import ngettext

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Limit:
    """``rates``: "10/m,60/h" is at most 10 a minute and 60 an hour (units s, m, h, d).
    ``per``: "user" (each player; a visitor who is not logged in, each IP) or "token" (each
    signed link, the route's ``token``)."""

    rates: str
    per: str = "user"

    def windows(self) -> list[tuple[int, int]]:
        """(how many, in how many seconds) for each of ``rates``."""
        windows = []
        for rate in self.rates.split(","):
            count, period = rate.strip().split("/")
            windows.append((int(count), int(period[:-1] or 1) * UNITS[period[-1]]))
        return windows


# Every POST a page of the site can send, by URL name (tests/web/test_rate_limits.py posts to
# every route of the site and fails for one that takes POSTs and is not here).
LIMITS: dict[str, Limit] = {
    # At a table. A burst of moves by one player is the game itself (a decision in each of
    # several games, a refused try and the next), so moves get room.
    "move": Limit("120/m"),
    "one_tap": Limit("30/m", per="token"),
    # The chat also counts the messages themselves, 10 a minute and 120 an hour over all games
    # (CHAT_LIMITS, games/play/chat.py); this bounds every post, empty and refused ones too.
    "chat": Limit("30/m"),
    "mark": Limit("30/m,300/h"),
    "note": Limit("20/m,200/h"),
    # The lobby: each of these that is taken bumps the game's revision, and so sends a live
    # update to every open page of the game.
    "seed": Limit("10/m,60/h"),
    "join": Limit("10/m,60/h"),
    "leave": Limit("10/m,60/h"),
    "start": Limit("10/m,60/h"),
    "invite_accept": Limit("10/m,60/h"),
    # Invitation emails and new games are also capped in the database (games/play/lobby.py:
    # 20 invitations and 10 games an hour per player, 3 invitations a day per address).
    "invitation_create": Limit("10/m"),
    "rematch": Limit("10/m,60/h"),
    "game_create": Limit("10/m"),
    "practice_create": Limit("10/m,60/h"),
    # Play now: each ask takes a seat (also capped in the database: games/play/matchmaking.py,
    # 30 asks an hour and 3 waiting seats per player).
    "play_now": Limit("10/m,60/h"),
    "play_leave": Limit("10/m,60/h"),
    # Friends: following and challenges (challenges also capped in the database:
    # games/play/challenges.py, 20 challenged friends an hour).
    "follow": Limit("10/m,60/h"),
    "unfollow": Limit("10/m,60/h"),
    "follower_remove": Limit("10/m,60/h"),
    "challenge_create": Limit("5/m,20/h"),
    "challenge": Limit("10/m,60/h"),  # answering one (its page: accept or refuse)
    # The player's own settings.
    "vacation": Limit("10/m,60/h"),
    "vacation_end": Limit("10/m,60/h"),
    "profile": Limit("10/m,60/h"),
    "account_delete": Limit("5/m,20/h"),  # it asks for the password: no guessing
    "guide_dismiss": Limit("10/m"),
    # What it stores is capped besides: 20 devices a player (accounts/devices.py).
    "push_subscribe": Limit("30/m,120/h"),
    "device_remove": Limit("20/m"),
    "set_language": Limit("10/m,60/h"),
    # Community safety: reports are also capped in the database (20 a day,
    # games/moderation/reports.py); blocking and unblocking change nothing anyone else sees.
    "report": Limit("5/m,30/h"),
    "block": Limit("20/m,200/h"),
    "unblock": Limit("20/m,200/h"),
    # API tokens (accounts/tokens.py: 20 live ones a player besides).
    "api_tokens": Limit("10/m,60/h"),
    "api_token_revoke": Limit("20/m"),
    "bot_account": Limit("5/m,20/h"),
    # A link of an email, without logging in (the token names one player and one purpose).
    "unsubscribe": Limit("10/m", per="token"),
}


class TooFast(Exception):
    """A request refused for its rate; ``retry_after``: seconds until it may go, ``message``:
    the sentence for the player (in the active language)."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        self.message = wait_message(retry_after)
        super().__init__(self.message)


def wait_message(seconds: int) -> str:
    """Nothing was done, and when to try again (in minutes beyond two of them)."""
    if seconds < 120:
        return ngettext(
            "You sent this too often in a short while, so nothing was changed. You can try "
            "again in %(seconds)d second.",
            "You sent this too often in a short while, so nothing was changed. You can try "
            "again in %(seconds)d seconds.",
            seconds,
        ) % {"seconds": seconds}
    minutes = math.ceil(seconds / 60)
    return ngettext(
        "You sent this too often in a short while, so nothing was changed. You can try again "
        "in %(minutes)d minute.",
        "You sent this too often in a short while, so nothing was changed. You can try again "
        "in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def _sender(request: HttpRequest, limit: Limit, kwargs: dict) -> str:
    if limit.per == "token":
        return "t" + hashlib.sha256(str(kwargs["token"]).encode()).hexdigest()[:32]
    if request.user.is_authenticated:
        return f"u{request.user.pk}"
    from allauth.account.adapter import get_adapter  # the client's IP as allauth finds it

    return "ip" + get_adapter(request).get_client_ip(request)


def wait_for(
    route: str, sender: str, *, now: float | None = None, limit: Limit | None = None
) -> int:
    """Count one request of ``sender`` on ``route``: 0 if it may go, else the seconds until it
    may (and then it is not counted). ``limit``: a limit of another table than ``LIMITS`` (the
    public API's per token, games/web/api/site.py)."""
    cache = caches["default"]
    now = time.time() if now is None else now
    scale = getattr(settings, "RATE_LIMITS_SCALE", 1)  # the benchmarks' players outpace anyone
    counted, wait = [], 0
    for count, period in (limit or LIMITS[route]).windows():
        count *= scale
        window = int(now // period)
        key = f"ratelimit:{route}:{sender}:{period}:{window}"
        # Kept a period past the window's end: while the window lasts, the key is there.
        cache.add(key, 0, timeout=(window + 2) * period - now)
        counted.append(key)
        number: int | None = cache.incr(key)
        if number is None:
            return 0  # Redis away: count nothing (module docstring)
        if number > count:
            wait = max(wait, math.ceil((window + 1) * period - now))
    if wait:
        for key in counted:
            cache.decr(key)
    return wait


def with_refusal(form, refusal: TooFast):
    """``form``, bound to what was sent, with the refusal as its error: the page shows the form
    as it was typed, and why it was not taken."""
    form.is_valid()
    form.add_error(None, refusal.message)
    return form


Answer = Callable[..., HttpResponse]


def too_fast_page(request: HttpRequest, refusal: TooFast, *args, **kwargs) -> HttpResponse:
    """The answer of a route whose page has nothing to keep: the message alone (htmx puts it
    where the part it asked for would go), or a page with it."""
    partial = "too_fast.html#message" if getattr(request, "htmx", False) else "too_fast.html"
    return render(request, partial, {"message": refusal.message}, status=429)


def rate_limited(route: str, *, answer: Answer = too_fast_page):
    """Count the view's POSTs in ``LIMITS[route]``; one too many is not passed to the view but
    answered by ``answer(request, refusal, *args, **kwargs)``, made 429 with Retry-After.
    The answer keeps what the player typed: the page of the form with the form as sent, or
    (htmx) the part around it, whose boxes the page keeps (hx-preserve)."""
    if route not in LIMITS:
        raise KeyError(f"{route!r} has no rate limit in saboteur_site.ratelimits.LIMITS")

    def decorate(view):
        @functools.wraps(view)
        def limited(request, *args, **kwargs):
            if request.method == "POST":
                wait = wait_for(route, _sender(request, LIMITS[route], kwargs))
                if wait:
                    refusal = TooFast(wait)
                    response = answer(request, refusal, *args, **kwargs)
                    response.status_code = 429
                    response["Retry-After"] = str(wait)
                    return response
            return view(request, *args, **kwargs)

        vars(limited)["rate_limit"] = route  # read by tests/web/test_rate_limits.py
        return limited

    return decorate
