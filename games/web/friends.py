"""Friends and challenges (issue 52): following and unfollowing a player from their page,
removing a follower, the friends page (friends' open tables and games in progress, the
challenges), challenging friends, and a challenge's page (accept in one click, or refuse).
Thin: ``accounts.relations`` follows; ``games.play.challenges`` challenges."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts import relations
from accounts.players import player_url
from games.play import challenges, errors
from games.read import friends as friends_read
from saboteur_site.ratelimits import rate_limited, with_refusal

from .forms import ChallengeForm


def _player(pk: int):
    user = get_user_model().objects.filter(pk=pk, is_active=True).first()
    if user is None:
        raise Http404
    return user


@require_POST
@login_required
@rate_limited("follow")
def follow(request, pk):
    user = _player(pk)
    if relations.follow(request.user, user):
        messages.success(request, _("You follow %(name)s.") % {"name": user.display_name})
    elif not relations.follows(request.user, user):
        messages.error(request, _("You cannot follow this player."))
    return redirect(player_url(user))


@require_POST
@login_required
@rate_limited("unfollow")
def unfollow(request, pk):
    user = _player(pk)
    if relations.unfollow(request.user, user):
        messages.success(request, _("You no longer follow %(name)s.") % {"name": user.display_name})
    return redirect(player_url(user))


@require_POST
@login_required
@rate_limited("follower_remove")
def follower_remove(request, pk):
    user = _player(pk)
    if relations.remove_follower(request.user, user):
        messages.success(
            request, _("%(name)s no longer follows you.") % {"name": user.display_name}
        )
    return redirect("friends")


def _page(request, form=None, status=200):
    page = friends_read.friends_page(request.user)
    form = form or ChallengeForm(friends=page.friends)
    return render(request, "games/friends.html", {"page": page, "form": form}, status=status)


@require_safe
@login_required
def friends(request):
    return _page(request)


def _challenge_too_fast(request, refusal):
    page = friends_read.friends_page(request.user)
    form = with_refusal(ChallengeForm(request.POST, friends=page.friends), refusal)
    return _page(request, form)


@require_POST
@login_required
@rate_limited("challenge_create", answer=_challenge_too_fast)
def challenge_create(request):
    page = friends_read.friends_page(request.user)
    form = ChallengeForm(request.POST, friends=page.friends)
    if not form.is_valid():
        return _page(request, form, status=422)
    try:
        game = challenges.challenge_send(challenger=request.user, **form.cleaned_data)
    except errors.ServiceError as refused:
        form.add_error(None, refused.message)
        return _page(request, form, status=422)
    messages.success(request, _("Your friends are challenged; the game starts once they answer."))
    return redirect("game", pk=game.pk)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("challenge")
def challenge(request, token):
    """A challenge's page (from its email): accept (one click) or refuse. Only for the player
    challenged: anyone else gets "not found"."""
    found = challenges.challenge_for(request.user, token)
    if found is None:
        raise Http404
    if request.method == "POST":
        answer = request.POST.get("answer")
        if answer not in ("accept", "refuse"):
            messages.error(request, _("Please accept or refuse."))
            return redirect("challenge", token=token)
        try:
            challenges.challenge_answer(user=request.user, token=token, accept=answer == "accept")
        except errors.ServiceError as refused:
            messages.error(request, refused.message)
            return redirect("challenge", token=token)
        if answer == "accept":
            messages.success(request, _("You have accepted: your seat is taken."))
            return redirect("game", pk=found.game_id)
        messages.success(
            request,
            _("You have refused; %(name)s is told.") % {"name": found.challenger.display_name},
        )
        return redirect("friends")
    context = {
        "challenge": found,
        "pace": challenges.pace_name(found.pace),
    }
    return render(request, "games/challenge.html", context)
