"""The pages about a player's games: their public page (statistics, ratings, reliability, and
blocking or reporting them), the download of one's own data (``games.read.my_data``),
deleting one's account (``games.play.account_deletion``) and making an account a bot account
(``games.play.bot_accounts``).

``accounts`` imports nothing of games: its pages (profile, devices) link to these by URL name.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts import relations
from accounts.forms import AccountDeleteForm
from accounts.services import AccountError
from games.play.account_deletion import account_delete as delete_account
from games.play.account_deletion import account_deletion_check
from games.play.bot_accounts import bot_account_make
from games.play.errors import ServiceError
from games.read import my_data as data
from games.read import stats
from saboteur_site.ratelimits import rate_limited, with_refusal


@require_safe
@login_required
def my_data(request):
    """Everything the site holds about the player, as a JSON file to keep (GDPR)."""
    body = json.dumps(data.my_data(request.user), cls=DjangoJSONEncoder, indent=2)
    response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = 'attachment; filename="saboteur-my-data.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@require_safe
@login_required
def player(request, key: str):
    user = stats.player_by_key(key)
    if user is None:
        raise Http404
    return render(
        request,
        "accounts/player.html",
        {
            "player": user,
            "stats": stats.player_stats(user),
            "ratings": stats.player_ratings(user),
            "reliability": stats.reliability(user),
            "reliability_days": stats.RELIABILITY_DAYS,
            "is_me": user.pk == request.user.pk,
            "blocked": relations.is_blocked(request.user, user),
            # Following (issue 52): whether the viewer follows the player, and the other way.
            "i_follow": relations.follows(request.user, user),
            "follows_me": relations.follows(user, request.user),
        },
    )


def _account_delete_too_fast(request, refusal):
    form = with_refusal(AccountDeleteForm(request.POST), refusal)
    return _account_delete_page(request, form, status=429)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("account_delete", answer=_account_delete_too_fast)
def account_delete(request):
    user = request.user
    form = AccountDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            delete_account(user=user, password=form.cleaned_data["password"])
        except AccountError as error:
            field = "password" if error.code == "password" else None
            form.add_error(field, error.message)
        else:
            logout(request)
            messages.success(request, _("Your account is deleted. Goodbye, and thank you."))
            return redirect("home")
    return _account_delete_page(request, form)


def _account_delete_page(request, form, *, status=None):
    check = account_deletion_check(request.user)
    status = status or (422 if form.errors else 200)
    return render(request, "accounts/delete.html", {"form": form, "check": check}, status=status)


@require_POST
@login_required
@rate_limited("bot_account")
def bot_account(request):
    """The owner makes their account a bot (from the API tokens page), before any game."""
    try:
        bot_account_make(user=request.user)
    except ServiceError as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, _("This account is a bot account now."))
    return redirect("api_tokens")
