"""The tables: a game (an append-only log of moves and a cached engine snapshot), its seats,
moves, chat, table events and invitations (docs/architecture.md).

The snapshot holds every secret of the game; nothing renders it directly. Pages, JSON and emails
go through ``games.read`` and the engine's ``view_for``.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.engine.cards import BASE, SABOTEUR2
from games.engine.state import State as EngineState

if TYPE_CHECKING:
    from games.engine.types import Event

MIN_TURN_LIMIT = timedelta(hours=1)
MAX_TURN_LIMIT = timedelta(days=7)
MAX_BANK = timedelta(days=7)


def new_invite_token() -> str:
    return secrets.token_urlsafe(16)


class Game(models.Model):
    class Ruleset(models.TextChoices):
        BASE = BASE, _("Saboteur")
        SABOTEUR2 = SABOTEUR2, _("Saboteur 2")

    class Visibility(models.TextChoices):
        OPEN = "open", _("Open to everyone")
        INVITE = "invite", _("By invite link only")

    class Status(models.TextChoices):
        LOBBY = "lobby", _("Waiting for players")
        RUNNING = "running", _("Running")
        PAUSED = "paused", _("Paused by the moderators")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    name = models.CharField(_("name"), max_length=80)
    ruleset = models.CharField(_("rule set"), max_length=16, choices=Ruleset)
    variants = models.JSONField(_("variants"), default=list, blank=True)
    rounds = models.PositiveSmallIntegerField(
        _("rounds"), default=3, validators=[MinValueValidator(1), MaxValueValidator(5)]
    )
    max_seats = models.PositiveSmallIntegerField(_("seats"))
    visibility = models.CharField(
        _("who may join"), max_length=8, choices=Visibility, default=Visibility.OPEN
    )
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    turn_limit = models.DurationField(
        _("time per turn"),
        default=timedelta(days=2),
        validators=[MinValueValidator(MIN_TURN_LIMIT), MaxValueValidator(MAX_TURN_LIMIT)],
    )
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="created_games",
        verbose_name=_("creator"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status, default=Status.LOBBY, db_index=True
    )
    # "Play again with this table": the finished game this one was made from (lobby.game_rematch);
    # one per finished game (Meta.constraints). No index of its own: that unique constraint is one.
    rematch_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematches",
        verbose_name=_("played again from"),
        db_index=False,
    )
    # The number of accepted moves; the client sends the version it saw with every move.
    version = models.PositiveIntegerField(default=0)
    # Grows with every change anyone can see (moves, chat, seats): open pages poll it.
    revision = models.PositiveIntegerField(default=0)
    # The engine state (secret). Null until the game starts.
    snapshot = models.JSONField(null=True, blank=True, editable=False)
    # Deals anyone can check (docs/fairness.md): 32-byte seeds (hex) drawn when the game is
    # created, round 0's (the seating, the gold supply) then one per round. Secret: only their
    # commitments (SHA-256) are shown, each seed once its round is over (round 0's at the end).
    server_seeds = models.JSONField(default=list, blank=True, editable=False)
    # The players' seeds as fixed at the start, in the order they joined: [[seat pk, seed], ...].
    joined_seeds = models.JSONField(default=list, blank=True, editable=False)
    # Whose decision it is (the seat position) and since when; the deadline follows from it.
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    decision_since = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # While paused: the time that was left before the deadline, and since when it is paused.
    paused_remaining = models.DurationField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A practice game against bots: starts at once, stays out of the public statistics.
    practice = models.BooleanField(_("practice game"), default=False)
    # The creator's choice: bot accounts (accounts.User.is_bot, the public API) may join.
    allows_bots = models.BooleanField(_("bot accounts may join"), default=False)
    # The creator's choice: the rounds of bot accounts with people are rated, in the people's
    # pool (else bot accounts are rated only among themselves: games.play.ratings.seat_rows).
    bots_rated_with_people = models.BooleanField(
        _("bot accounts are rated with people"), default=False
    )
    # The creator's choice: a bot plays an absent player's seat instead of the safe default move.
    bot_stand_ins = models.BooleanField(_("a bot plays for absent players"), default=False)
    # The creator's choice: who may join (games.read.stats.reliability, in percent); None: anyone.
    min_reliability = models.PositiveSmallIntegerField(
        _("minimum reliability to join"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
    )
    # The clock (games.clock, issue 26), chosen at creation: the time zone of its weekends and
    # daily deadline, weekends off, one fixed time of day as every decision's deadline, each
    # seat's time bank, and whether a player's vacation stops their clock.
    clock_zone = models.CharField(_("time zone of the clock"), max_length=64, default="UTC")
    weekends_off = models.BooleanField(_("clocks stop at weekends"), default=False)
    daily_at = models.TimeField(_("daily deadline"), null=True, blank=True)
    bank = models.DurationField(
        _("time bank per player"),
        default=timedelta(0),
        validators=[MinValueValidator(timedelta(0)), MaxValueValidator(MAX_BANK)],
    )
    vacations_pause = models.BooleanField(_("vacations stop the clock"), default=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created_at"]
        constraints = [
            # One new game per finished table (issue 50): whoever presses "Play again" after the
            # first joins it (lobby.game_rematch), however many press at once.
            models.UniqueConstraint(fields=["rematch_of"], name="games_game_one_rematch_per_game"),
        ]

    # Set on each instance by games.read.invalidation's signals: what it was when loaded.
    _was_lobby: bool
    _live_revision: int | None

    def __str__(self) -> str:
        return self.name

    def engine_state(self) -> EngineState:
        """The engine's state from the snapshot, which every game has from its start."""
        if self.snapshot is None:
            raise ValueError(f"Game {self.pk} has no snapshot: it has not started.")
        return EngineState.from_json(self.snapshot)


class SeatQuerySet(models.QuerySet["Seat"]):
    def live(self) -> SeatQuerySet:
        """Seats still at the table: a replaced seat's position belongs to its newcomer."""
        return self.exclude(state=Seat.State.REPLACED)


class Seat(models.Model):
    class State(models.TextChoices):
        ACTIVE = "active", _("Playing")
        ABSENT = "absent", _("Absent")
        REPLACED = "replaced", _("Replaced")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="seats",
    )
    # Clockwise order at the table; assigned at random when the game starts.
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=State, default=State.ACTIVE)
    joined_at = models.DateTimeField(auto_now_add=True)
    # When the player last opened the game page: no "your turn" email to someone looking at it.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # "Since you were here": the game version the player last looked at, and the version and time
    # at the start of their current visit (what their previous visit had seen).
    seen_version = models.PositiveIntegerField(default=0)
    since_version = models.PositiveIntegerField(default=0)
    since_at = models.DateTimeField(null=True, blank=True)
    timeouts_in_a_row = models.PositiveSmallIntegerField(default=0)
    # A bot's seat (no user): its number, for its name "Bot 1", "Bot 2", ...
    bot = models.PositiveSmallIntegerField(null=True, blank=True)
    # A bot plays this absent player's seat until the player moves again (or, the seat still
    # active, while its player is on vacation in a game that chose stand-ins).
    stand_in = models.BooleanField(default=False)
    # What is left of the seat's time bank (``Game.bank`` at the start).
    bank_left = models.DurationField(default=timedelta(0))
    # The player's private guesses at the other seats' roles (issue 38), per round:
    # {"2": {"0": "saboteur", ...}}. Theirs alone until the round ends (games/read/suspicions.py);
    # on the seat row, which every page reads anyway (no query more).
    marks = models.JSONField(default=dict, blank=True)
    # The player's private note on the game: theirs alone, for ever.
    note = models.TextField(_("private note"), max_length=4000, blank=True, default="")
    # The player's own seed for the deals (docs/fairness.md): made by their browser, editable
    # in the lobby, drawn by the site for a bot or when none came; public, fixed at the start.
    seed = models.CharField(_("seed"), max_length=64, blank=True, default="")

    objects = SeatQuerySet.as_manager()

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["position", "joined_at"]
        constraints = [
            # A replaced seat keeps its position for the history; its successor takes it over.
            models.UniqueConstraint(
                fields=["game", "position"],
                condition=~Q(state="replaced"),
                name="games_seat_unique_position",
            ),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=~Q(state="replaced"),
                name="games_seat_one_live_seat_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.position}"

    @property
    def bot_name(self) -> str | None:
        """A bot's seat's name ("Bot 2 (a bot)"), None for a person's seat."""
        if self.bot is None:
            return None
        return _("Bot %(number)d (a bot)") % {"number": self.bot}

    @property
    def bot_plays(self) -> bool:
        """Whether a bot decides for this seat now (a bot's seat, or a stand-in)."""
        return self.bot is not None or self.stand_in

    @property
    def engine_name(self) -> str:
        """The seat's name inside the engine state."""
        return self.engine_name_at(self.position)

    @staticmethod
    def engine_name_at(position: int | None) -> str:
        """The engine's name of the seat at ``position`` (for a seat read as a row)."""
        return str(position)


class Move(models.Model):
    """One accepted move. Never updated or deleted: the game's history."""

    # No index of its own: games_move_unique_seq (game, sequence) begins with it.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    sequence = models.PositiveIntegerField()
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="moves")
    payload = models.JSONField()
    # What the engine said happened; events with a "to" are private to that seat.
    events: models.JSONField[list[Event], list[Event]] = models.JSONField(default=list)
    idempotency_key = models.CharField(max_length=64, blank=True, default="")
    # A digest of the request as the client sent it: a retry with the same key must describe the
    # same move (its hand positions are read against the hand it saw, which has changed since).
    request_digest = models.CharField(max_length=64, blank=True, default="")
    # Made by the site for a player whose time ran out, or by a bot standing in for them.
    automatic = models.BooleanField(_("made by the site"), default=False)
    # Made by a bot standing in for an absent player (automatic too): the log says so.
    stand_in = models.BooleanField(_("made by a stand-in bot"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        ordering = ["game", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["game", "sequence"], name="games_move_unique_seq"),
            models.UniqueConstraint(
                fields=["game", "seat", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="games_move_unique_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} move {self.sequence}"


class ChatMessage(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat")
    # A seat is deleted only when its player leaves a lobby: their lobby chat goes with it.
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="chat")
    text = models.CharField(_("message"), max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.text[:40]


class TableEvent(models.Model):
    """Something the moderators did that the whole table sees in the game's log.

    Not a move (moves are the engine's history); ``after_version`` places the line after that
    many moves. ``data`` holds the names as they were, so the line reads the same later.
    """

    class Kind(models.TextChoices):
        PAUSED = "paused", _("Game paused")
        RESUMED = "resumed", _("Game resumed")
        EXTENDED = "extended", _("Deadline extended")
        ABORTED = "aborted", _("Game aborted")
        REPLACED = "replaced", _("Seat taken over")
        VACATION = "vacation", _("Vacation declared")
        RETURNED = "returned", _("Back from vacation")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="table_events")
    kind = models.CharField(max_length=10, choices=Kind)
    after_version = models.PositiveIntegerField()
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("table event")
        verbose_name_plural = _("table events")
        ordering = ["game", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.game}: {self.get_kind_display()}"


class Invitation(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(_("email address"))
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return self.email
