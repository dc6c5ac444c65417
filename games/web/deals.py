"""Deals anyone can check (issue 39, docs/fairness.md): each round's deal document (JSON at a
stable address) and the page that checks it in the browser (a player's own seed is set on the
lobby: ``views.seed_set``).

Who may see a game decides as for its page (``views.visible_game``); what is public when, in
``games.read.deals``: nothing of a round's draws before it ends.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games.engine import fairness
from games.read import deals

from .views import visible_game


@require_safe
@login_required
@never_cache
def deal_json(request, pk, number):
    """The round's deal document, once the round is over (404 before: nothing leaks)."""
    document = deals.document(visible_game(request, pk), number)
    if document is None:
        raise Http404
    return JsonResponse(document, json_dumps_params={"indent": 1})


@require_safe
@login_required
@never_cache
def deal_check(request, pk, number):
    """ "Check this deal": the browser recomputes the round's deal from the revealed seeds
    (static/js/fairness.js, WebCrypto) and says whether it matches."""
    game = visible_game(request, pk)
    if not 0 <= number <= game.rounds:
        raise Http404
    document = deals.document(game, number)
    return render(
        request,
        "games/deal_check.html",
        {
            "game": {"id": game.pk, "name": game.name},
            "number": number,
            "game_round": number == fairness.GAME_ROUND,
            "summary": deals.summary(document) if document is not None else None,
            # Dealt before deals were checkable (its seeds were never committed).
            "unchecked": game.snapshot is not None and not game.joined_seeds,
        },
    )
