"""Challenges through the API (issue 52 meets issue 54): the challenges a caller was sent and
still may answer, and answering one (``games.play.challenges.challenge_answer``, the same as the
challenge's page: accepting takes the seat, refusing tells the challenger). The account stream
tells a new one as a ``challenge`` line (``games.web.api.streams``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.utils import timezone

from games.models import Challenge
from games.play import challenges

from . import schemas
from .games import ERRORS, router
from .site import limit, need


def open_challenges(user) -> list[dict]:
    """The pending challenges sent to ``user`` that have not expired, newest first."""
    rows = (
        Challenge.objects.filter(
            challenged=user, state=Challenge.State.PENDING, expires_at__gt=timezone.now()
        )
        .select_related("game", "challenger")
        .order_by("-created_at")[:20]
    )
    return [
        {
            "id": c.pk,
            "game": c.game_id,
            "game_name": c.game.name,
            "ruleset": c.game.ruleset,
            "pace": challenges.pace_name(c.pace),
            "challenger": c.challenger.display_name,
            "expires_at": c.expires_at,
        }
        for c in rows
    ]


@router.get(
    "/challenges",
    response={200: list[schemas.ChallengeRow], **ERRORS},
    summary="Challenges sent to me",
)
def challenge_list(request: HttpRequest):
    """The challenges friends sent me that I may still answer (pending, not expired)."""
    return open_challenges(need(request, "read").user)


def _answer(request: HttpRequest, challenge_id: int, *, accept: bool) -> dict:
    user = need(request, "play").user
    limit(request, "api_lobby")
    found = Challenge.objects.filter(pk=challenge_id, challenged=user).first()
    if found is None:
        raise Http404  # another's challenge is no business of this caller's
    answered = challenges.challenge_answer(user=user, token=found.token, accept=accept)
    return {"id": answered.pk, "game": answered.game_id, "state": answered.state}


@router.post(
    "/challenges/{int:challenge_id}/accept",
    response={200: schemas.ChallengeAnswer, **ERRORS},
    summary="Accept a challenge",
)
def challenge_accept(request: HttpRequest, challenge_id: int):
    """Take my seat at the challenge's table (the game starts once everyone has answered)."""
    return _answer(request, challenge_id, accept=True)


@router.post(
    "/challenges/{int:challenge_id}/refuse",
    response={200: schemas.ChallengeAnswer, **ERRORS},
    summary="Refuse a challenge",
)
def challenge_refuse(request: HttpRequest, challenge_id: int):
    """Refuse: the challenger is told."""
    return _answer(request, challenge_id, accept=False)
