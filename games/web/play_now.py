"""Play now (issue 52): the page where a player states their wish and sees the forming tables
they sit at (``/play/``), and leaving one. Thin: the service is games/play/matchmaking.py."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.play import errors, matchmaking
from games.read import forming
from saboteur_site.ratelimits import rate_limited, with_refusal

from .forms import PlayNowForm


def _page(request, form=None, status=200):
    if form is None:
        form = PlayNowForm(initial={"languages": [translation.get_language() or "en"]})
    context = {"form": form, "tables": forming.my_tables(request.user)}
    return render(request, "games/play_now.html", context, status=status)


def _too_fast(request, refusal):
    return _page(request, with_refusal(PlayNowForm(request.POST), refusal))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("play_now", answer=_too_fast)
def play_now(request):
    """GET: the wish form and the player's forming tables. POST: seat them (then back here)."""
    if request.method != "POST":
        return _page(request)
    form = PlayNowForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=422)
    try:
        row = matchmaking.seek(user=request.user, wish=form.wish())
    except errors.ServiceError as refused:
        form.add_error(None, refused.message)
        return _page(request, form, status=422)
    if row.table.state == row.table.State.STARTED:
        messages.success(request, _("The table was full: your game has started."))
        return redirect("game", pk=row.table.game_id)
    messages.success(request, _("You have a seat at %(table)s.") % {"table": row.table.game.name})
    return redirect("play_now")


@require_POST
@login_required
@rate_limited("play_leave")
def play_leave(request, pk):
    try:
        matchmaking.leave(user=request.user, table_id=pk)
    except errors.ServiceError as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, _("You have left the table."))
    return redirect("play_now")
