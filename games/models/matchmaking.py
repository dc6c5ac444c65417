"""Play now (issue 52): the tables the site forms for players who do not know each other yet, and
each player's wish that seated them there.

A forming table is a ``Game`` in its lobby, by invitation only (no one joins it from the lobby),
with one ``FormingTable`` row: its kind (rule set and pace), its language and the time it starts
by itself. Each player seated by the site has a ``TableWish``: what they asked for, whether they
agreed to bots, and whether they still wait. The database holds what must never happen, whatever
a writer forgets: one waiting seat per player and kind (``one_forming_seat_per_kind``), one
forming row per game.
"""

from __future__ import annotations

from datetime import time, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .tables import Game

# The paces a wish may ask for: a time per turn, or every decision ending at a fixed time of day.
PACES: dict[str, timedelta | None] = {
    "1h": timedelta(hours=1),
    "6h": timedelta(hours=6),
    "12h": timedelta(hours=12),
    "1d": timedelta(days=1),
    "2d": timedelta(days=2),
    "3d": timedelta(days=3),
    "7d": timedelta(days=7),
    "daily": None,
}
PACE_NAMES = {
    "1h": _("1 hour per turn"),
    "6h": _("6 hours per turn"),
    "12h": _("12 hours per turn"),
    "1d": _("1 day per turn"),
    "2d": _("2 days per turn"),
    "3d": _("3 days per turn"),
    "7d": _("7 days per turn"),
    "daily": _("every day at 20:00 UTC"),
}
DAILY_AT = time(20, 0)  # the daily deadline of a "daily" table, in UTC


class FormingTable(models.Model):
    class State(models.TextChoices):
        FORMING = "forming", _("Forming")
        STARTED = "started", _("Started")
        CLOSED = "closed", _("Closed")

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, related_name="forming", verbose_name=_("game")
    )
    # The rule set and the pace, "base|2d": a player waits at one table of a kind at most.
    kind = models.CharField(_("kind"), max_length=40, db_index=True)
    pace = models.CharField(_("pace"), max_length=8)
    language = models.CharField(_("language"), max_length=8)
    # The fewest players it starts with at ``start_at`` (the rule set's minimum, or more when a
    # seated player asked for more).
    min_players = models.PositiveSmallIntegerField(_("fewest players"))
    state = models.CharField(
        _("state"), max_length=8, choices=State, default=State.FORMING, db_index=True
    )
    created_at = models.DateTimeField(_("opened"), auto_now_add=True)
    start_at = models.DateTimeField(_("starts at"), db_index=True)
    # How many times the start time moved on (too few players at the time shown).
    postponed = models.PositiveSmallIntegerField(_("postponed"), default=0)
    ended_at = models.DateTimeField(_("started or closed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("forming table")
        verbose_name_plural = _("forming tables")
        ordering = ["start_at"]

    def __str__(self) -> str:
        return f"{self.game} ({self.get_state_display()})"


class TableWish(models.Model):
    """A player's wish, and the seat at a forming table it gave them."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="table_wishes",
        verbose_name=_("player"),
    )
    table = models.ForeignKey(
        FormingTable, on_delete=models.CASCADE, related_name="wishes", verbose_name=_("table")
    )
    kind = models.CharField(_("kind"), max_length=40)  # the table's, copied for the constraint
    rulesets = models.JSONField(_("rule sets"), default=list)
    min_players = models.PositiveSmallIntegerField(_("fewest players"))
    max_players = models.PositiveSmallIntegerField(_("most players"))
    languages = models.JSONField(_("languages"), default=list)
    variants = models.JSONField(_("variants"), default=list, blank=True)
    min_reliability = models.PositiveSmallIntegerField(
        _("reliability floor"), null=True, blank=True
    )
    bots_ok = models.BooleanField(_("bots may fill empty seats"), default=False)
    waiting = models.BooleanField(_("waiting"), default=True)
    created_at = models.DateTimeField(_("asked at"), auto_now_add=True)
    ended_at = models.DateTimeField(_("seated in a game or left at"), null=True, blank=True)

    class Meta:
        verbose_name = _("table wish")
        verbose_name_plural = _("table wishes")
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind"],
                condition=Q(waiting=True),
                name="games_one_forming_seat_per_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.table_id}"
