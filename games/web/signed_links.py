"""The pages a signed link opens, from an email or an invitation: joining a game by its invitation
(``invite``, ``invite_accept``), unsubscribing in one click (``unsubscribe``, RFC 8058) and a
one-tap move (``tap``). The token in the URL says who and what; like every view here, thin.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from games.outbox import links
from games.play import lobby as lobbies
from games.play import taps
from games.read import access, pages, seats
from saboteur_site.ratelimits import TooFast, rate_limited, too_fast_page

from .views import _lobby_action


@require_safe
@login_required
@never_cache
def invite(request, token):
    """An invite link shows the game and a join button; only the POST joins (link scanners)."""
    game = _invited_game(token)
    if seats.live_seat(game, request.user):
        return redirect("game", pk=game.pk)
    return render(request, "games/invite.html", {"game": pages.invite_page(game)})


def _invite_too_fast(request, refusal, token):
    """The invitation's page again, with its join button and when to press it."""
    game = _invited_game(token)
    messages.error(request, refusal.message)
    return render(request, "games/invite.html", {"game": pages.invite_page(game)}, status=429)


@require_POST
@login_required
@rate_limited("invite_accept", answer=_invite_too_fast)
def invite_accept(request, token):
    return _lobby_action(request, _invited_game(token), lobbies.seat_join)


def _invited_game(token):
    game = access.game_by_invite(token)
    if game is None:
        raise Http404
    return game


def _unsubscribe_labels():
    return {
        "turns": _("“your turn” emails"),
        "reminders": _("reminders"),
        "digest": _("the daily digest"),
        "mentions": _("chat mention emails"),
        "absent": _("emails about absent players"),
    }


@csrf_exempt  # RFC 8058 one-click: mail clients POST without cookies; the token is signed
@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@rate_limited("unsubscribe")
def unsubscribe(request, token):
    """GET shows a confirmation and changes nothing (link scanners); POST unsubscribes."""
    found = links.read_unsubscribe_token(token)
    if found is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    user_id, what = found
    context = {"what_label": _unsubscribe_labels()[what]}
    if request.method == "POST":
        links.unsubscribe(user_id=user_id, what=what)
        context["done"] = True
    return render(request, "notifications/unsubscribe.html", context)


TAP_STATUS = {"ready": 200, "done": 200, "used": 200, "stale": 409, "moved": 409, "refused": 409}
TAP_STATUS |= {"expired": 410, "foreign": 403, "invalid": 400, "off": 403}


def _tap_too_fast(request, refusal, token):
    """Said in the language the link's page speaks (the player's, even without logging in)."""
    language = taps.tap_page(token=token, viewer=request.user).language
    with translation.override(language or translation.get_language()):
        response = too_fast_page(request, TooFast(refusal.retry_after))
    if language:
        response.headers["Content-Language"] = language
    return response


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@rate_limited("one_tap", answer=_tap_too_fast)
def tap(request, token):
    """A one-tap link from an email: GET shows the move and a button (link scanners change
    nothing), the POST makes exactly that move. The signed token authorises it, not a login."""
    if request.method == "POST":
        page = taps.tap_submit(token=token, viewer=request.user)
    else:
        page = taps.tap_page(token=token, viewer=request.user)
    if not page.language:
        return render(request, "games/one_tap.html", {"tap": page}, status=TAP_STATUS[page.status])
    # Opened without logging in: the page speaks the player's language, not the browser's.
    with translation.override(page.language):
        response = render(
            request, "games/one_tap.html", {"tap": page}, status=TAP_STATUS[page.status]
        )
    response.headers["Content-Language"] = page.language
    return response
