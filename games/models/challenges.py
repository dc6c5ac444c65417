"""Challenges between friends (issue 52): a player invites friends to a game with their own
settings; each challenged friend accepts in one click, or refuses (the challenger is told), or
lets it expire. The game is an ordinary lobby game by invitation only, made when the challenge
is sent."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .tables import Game

CHALLENGE_LIFETIME = timedelta(days=3)


def new_challenge_token() -> str:
    return secrets.token_urlsafe(16)


class Challenge(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("Waiting for an answer")
        ACCEPTED = "accepted", _("Accepted")
        REFUSED = "refused", _("Refused")
        EXPIRED = "expired", _("Expired")
        WITHDRAWN = "withdrawn", _("Withdrawn (the game started or went)")

    # No index of its own: the constraint one_challenge_per_game_and_player begins with it.
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="challenges", verbose_name=_("game"),
        db_index=False,
    )  # fmt: skip
    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_sent",
        verbose_name=_("challenger"),
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_received",
        verbose_name=_("challenged"),
    )
    pace = models.CharField(_("pace"), max_length=8, blank=True)  # matchmaking.PACES' keys
    # The address of the challenge's page in its email (the challenged player must be logged in).
    token = models.CharField(max_length=32, unique=True, default=new_challenge_token)
    state = models.CharField(
        _("state"), max_length=10, choices=State, default=State.PENDING, db_index=True
    )
    created_at = models.DateTimeField(_("sent at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"), db_index=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "challenged"], name="games_one_challenge_per_game_and_player"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} → {self.challenged} ({self.get_state_display()})"
