"""Ratings: a player's Weng-Lin rating per rule set and the rounds that counted
(docs/ratings.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .tables import Game, Move


class Rating(models.Model):
    """A player's Weng-Lin rating in one rule set: over every rated round (``all``), or over the
    rounds played as a digger or as a saboteur (docs/ratings.md).

    Written only by ``games.play.ratings`` (in the transaction of the move that completed a
    round, or by a rebuild from the stored moves); ``score`` is the figure shown and ranked.
    """

    class Kind(models.TextChoices):
        ALL = "all", _("every role")
        DIGGER = "digger", _("as a digger")
        SABOTEUR = "saboteur", _("as a saboteur")

    # Until this many rated rounds a rating is shown as provisional, and off the leaderboard.
    PROVISIONAL_ROUNDS = 10

    # No index of its own: the constraint one_per_kind (user, ruleset, kind) begins with it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    ruleset = models.CharField(max_length=16, choices=Game.Ruleset)
    kind = models.CharField(max_length=8, choices=Kind)
    mu = models.FloatField()
    sigma = models.FloatField()
    score = models.FloatField()  # mu - 3 sigma: the conservative figure
    rounds = models.PositiveIntegerField(default=0)
    # When the last round that changed it ended (the completing move's time).
    last_round_at = models.DateTimeField()

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "ruleset", "kind"], name="games_rating_one_per_kind"
            )
        ]
        indexes = [
            models.Index(
                fields=["ruleset", "kind", "-score"],
                condition=Q(rounds__gte=10),
                name="games_rating_leaderboard",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.ruleset} {self.kind}: {self.score:.1f}"

    @property
    def provisional(self) -> bool:
        return self.rounds < self.PROVISIONAL_ROUNDS


class RatedRound(models.Model):
    """A round that changed ratings, keyed by the move that completed it (the order of every
    update). A rebuild writes them again; an aborted game's rows tell that its rounds must go."""

    # No index of its own: the constraint rated_round_once (game, number) begins with it.
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="rated_rounds", db_index=False
    )
    number = models.PositiveSmallIntegerField()
    move = models.OneToOneField(Move, on_delete=models.CASCADE, related_name="+")

    class Meta:
        verbose_name = _("rated round")
        verbose_name_plural = _("rated rounds")
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="games_rated_round_once")
        ]

    def __str__(self) -> str:
        return f"{self.game} round {self.number}"
