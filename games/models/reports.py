"""Community safety: players' reports of a chat message, a player or a game, and the chat mutes
the moderators give (``games.moderation.reports``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .tables import ChatMessage, Game


class Report(models.Model):
    """A player tells the moderators about another player: from a chat message, the player's
    page or a game. ``thing`` names what was reported ("message:12", "game:3", "player:5"), so
    that each reporter reports each thing once (a constraint). The reported player never learns
    who reported them: nothing shown to them names the reporter."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", _("Abuse or harassment")
        CHEATING = "cheating", _("Cheating or collusion")
        SPAM = "spam", _("Spam")
        NAME = "name", _("An offensive name")
        OTHER = "other", _("Something else")

    class Outcome(models.TextChoices):
        OPEN = "open", _("Waiting for a moderator")
        DISMISSED = "dismissed", _("Looked at: no action")
        WARNED = "warned", _("The player was warned")
        MUTED = "muted", _("The player was muted in the chat")
        BANNED = "banned", _("The player was banned")

    # No index of its own: the constraint games_report_once (reporter, thing) begins with it.
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made",
        verbose_name=_("reported by"), db_index=False,
    )  # fmt: skip
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_received",
        verbose_name=_("reported player"),
    )  # fmt: skip
    thing = models.CharField(max_length=40)
    reason = models.CharField(_("reason"), max_length=10, choices=Reason)
    text = models.CharField(_("what happened"), max_length=500, blank=True)
    game = models.ForeignKey(
        Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="reports",
        verbose_name=_("game"),
    )  # fmt: skip
    message = models.ForeignKey(
        ChatMessage, on_delete=models.SET_NULL, null=True, blank=True, related_name="reports",
        verbose_name=_("chat message"),
    )  # fmt: skip
    # The message as it was reported: kept for the moderators if the line is deleted later.
    quoted = models.CharField(_("reported message"), max_length=500, blank=True)
    outcome = models.CharField(
        _("outcome"), max_length=10, choices=Outcome, default=Outcome.OPEN, db_index=True
    )
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("moderator"),
    )  # fmt: skip
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True)

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["reporter", "thing"], name="games_report_once"),
            models.CheckConstraint(
                condition=~models.Q(reporter=models.F("reported")), name="games_report_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_reason_display()}: {self.reported}"


class ChatMute(models.Model):
    """A player kept out of every table's chat until ``until`` (a moderator's action, with the
    reason in the admin log); a later mute of the same player replaces the end time."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes",
        verbose_name=_("player"),
    )  # fmt: skip
    until = models.DateTimeField(_("muted until"), db_index=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("moderator"),
    )  # fmt: skip
    reason = models.CharField(_("reason"), max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")
        ordering = ["-until"]

    def __str__(self) -> str:
        return f"{self.user} → {self.until:%Y-%m-%d %H:%M}"
