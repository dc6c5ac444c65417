"""What the site tells players and when: the email outbox (notices), replies acted on, push
deliveries, and players' vacations (which hold notices back and bring stand-ins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .tables import Game, Seat

if TYPE_CHECKING:
    from accounts.models import User


class Notice(models.Model):
    """The email outbox: what must be told to whom, written in the transaction that caused it.

    ``key`` is unique per seat, turn and kind, so retries, redeliveries and two sweepers can never
    send one notice twice. Celery sends pending rows whose ``due_at`` has come.
    """

    class Kind(models.TextChoices):
        TURN = "turn", _("Your turn")
        REMINDER = "reminder", _("Reminder")
        DIGEST = "digest", _("Daily digest")
        TIMEOUT = "timeout", _("Time ran out")
        ABSENT = "absent", _("Player absent")
        INVITATION = "invitation", _("Invitation")
        MENTION = "mention", _("Chat mention")
        STARTED = "started", _("Game started")
        FINISHED = "finished", _("Game over")
        ABORTED = "aborted", _("Game aborted")
        BRIEFING = "briefing", _("Seat taken over (newcomer)")
        REPLACED = "replaced", _("Seat taken over (replaced player)")
        PAUSED = "paused", _("Game paused")
        RESUMED = "resumed", _("Game resumed")
        EXTENDED = "extended", _("Deadline extended")
        VACATION = "vacation", _("A player's vacation")
        VACATION_ENDING = "vacation-end", _("Your vacation ends tomorrow")
        TAKEN_OVER = "taken-over", _("A seat taken over (the table)")
        ANSWER = "answer", _("Answer to an emailed reply")
        REPORT_DONE = "report-done", _("Your report was handled")
        WARNED = "warned", _("A moderator's warning")
        MUTED = "muted", _("Muted in the chat")
        FORMING = "forming", _("Play now: the table waits longer")
        CHALLENGE = "challenge", _("A friend's challenge")
        CHALLENGE_ANSWER = "challenge-no", _("A challenge refused or expired")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        SKIPPED = "skipped", _("Skipped")
        FAILED = "failed", _("Failed")

    key = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=12, choices=Kind)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, related_name="notices"
    )
    email = models.EmailField(blank=True)  # invitations to people without an account
    game = models.ForeignKey(Game, on_delete=models.CASCADE, null=True, related_name="notices")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, null=True, related_name="notices")
    # The game version the notice is about: a turn notice for an older version is stale.
    version = models.PositiveIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)
    # No index of its own: games_notice_due (status, due_at) begins with it.
    status = models.CharField(max_length=8, choices=Status, default=Status.PENDING)
    due_at = models.DateTimeField(db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    reason = models.CharField(max_length=120, blank=True)  # why it was skipped
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("email notice")
        verbose_name_plural = _("email outbox")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "due_at"], name="games_notice_due")]

    def __str__(self) -> str:
        to = self.user or self.email
        if self.game_id:
            return f"{self.get_kind_display()}: {to} ({self.game})"
        return f"{self.get_kind_display()}: {to}"

    # The rows every kind but a few has (a digest has no game, an invitation may have no user):
    # for the code of a kind that has one, an error if it is missing rather than an unnarrowed None.

    def the_game(self) -> Game:
        if self.game is None:
            raise ValueError(f"The {self.kind} notice {self.pk} has no game.")
        return self.game

    def the_seat(self) -> Seat:
        if self.seat is None:
            raise ValueError(f"The {self.kind} notice {self.pk} has no seat.")
        return self.seat

    def the_user(self) -> User:
        if self.user is None:
            raise ValueError(f"The {self.kind} notice {self.pk} has no user.")
        return self.user


class InboundMail(models.Model):
    """A reply to a game email that the site acted on (issue 40, ``games.play.replies``): each
    Message-ID once, so that a webhook delivered twice does nothing twice. Mail dropped before
    it could be acted on (unknown token, another sender, an auto-reply...) leaves no row."""

    class Outcome(models.TextChoices):
        MOVED = "moved", _("Made a move")
        CHAT = "chat", _("Posted to the chat")
        REFUSED = "refused", _("Refused, with an answer")

    message_id = models.CharField(_("Message-ID"), max_length=255, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("player"),
    )
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="inbound_mails", verbose_name=_("game")
    )
    outcome = models.CharField(_("outcome"), max_length=8, choices=Outcome)
    received_at = models.DateTimeField(_("received"), auto_now_add=True)

    class Meta:
        verbose_name = _("emailed reply")
        verbose_name_plural = _("emailed replies")
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"{self.get_outcome_display()}: {self.user} ({self.game})"


class PushDelivery(models.Model):
    """One notice pushed to one device: unique per notice and device, so that retries, redeliveries
    and parallel sweeps push each device once (games.outbox.push)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")

    # No index of its own: the constraint once_per_device (notice, subscription) begins with it.
    notice = models.ForeignKey(
        Notice, on_delete=models.CASCADE, related_name="pushes", db_index=False
    )
    subscription = models.ForeignKey(
        "accounts.PushSubscription", on_delete=models.CASCADE, related_name="deliveries"
    )
    status = models.CharField(max_length=8, choices=Status, default=Status.PENDING)
    due_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("push delivery")
        verbose_name_plural = _("push deliveries")
        constraints = [
            models.UniqueConstraint(
                fields=["notice", "subscription"], name="games_pushdelivery_once_per_device"
            )
        ]
        indexes = [models.Index(fields=["status", "due_at"], name="games_pushdelivery_due")]

    def __str__(self) -> str:
        return f"{self.notice} -> {self.subscription_id}"


class Vacation(models.Model):
    """A player's vacation (issue 26): from ``starts_at`` to ``ends_at`` (planned), or to
    ``ended_at`` when they came back early. Written by ``games.play.vacations`` only.

    ``stage`` is how far the sweep has carried it out: stand-in bots take over when it begins
    and leave when it ends (games that chose stand-ins over stopping the clock).
    """

    class Stage(models.TextChoices):
        PLANNED = "planned", _("Planned")
        UNDERWAY = "underway", _("Under way")
        OVER = "over", _("Over")

    # No index of its own: games_vacation_user (user, starts_at) begins with it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations",
        verbose_name=_("player"), db_index=False,
    )  # fmt: skip
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("planned end"))
    ended_at = models.DateTimeField(_("came back"), null=True, blank=True)
    stage = models.CharField(max_length=8, choices=Stage, default=Stage.PLANNED, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("vacation")
        verbose_name_plural = _("vacations")
        ordering = ["-starts_at"]
        indexes = [models.Index(fields=["user", "starts_at"], name="games_vacation_user")]

    def __str__(self) -> str:
        return f"{self.user} {self.starts_at:%Y-%m-%d}"

    @property
    def end(self):
        """When it ends (or ended): the planned end, or the early return."""
        if self.ended_at is not None and self.ended_at < self.ends_at:
            return max(self.ended_at, self.starts_at)
        return self.ends_at
