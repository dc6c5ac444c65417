"""Finding a game a viewer may see, and the cheap question open pages ask while they wait."""

from __future__ import annotations

from django.db.models import Prefetch, Q

from games.models import Game, Seat


def game_for(game_id: int, user) -> Game | None:
    """The game if ``user`` may see it: open games for everyone, private ones for their players
    (replaced players included, since they sat at the table). None means "no such game"."""
    # The seats and their users in one query (a join), not two: this runs on every game request.
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    game = Game.objects.filter(pk=game_id).prefetch_related(seats).first()
    if game is None or game.visibility == Game.Visibility.OPEN:
        return game
    if user.is_authenticated and any(s.user_id == user.pk for s in game.seats.all()):
        return game
    return None


def game_by_invite(token: str) -> Game | None:
    return Game.objects.filter(invite_token=token).prefetch_related("seats__user").first()


def revision_unchanged(game_id: int, user, revision: int) -> bool:
    """One indexed query: is the game still at ``revision`` for this viewer?"""
    visible = Q(visibility=Game.Visibility.OPEN)
    if user.is_authenticated:
        visible |= Q(seats__user=user)
    return Game.objects.filter(visible, pk=game_id, revision=revision).exists()
