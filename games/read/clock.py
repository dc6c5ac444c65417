"""A game's clock read from the database, for the one clock (``games.clock``): its rules, the
stops of the deciding seat (weekends, that player's vacations), deadlines and "time left".

Every deadline the writers store and every "time left" the page, the dashboard, the emails and
the admin show comes through here, so they all say the same (``Clock.text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from games import clock
from games.models import Game, Seat

from . import durations, vacations
from .durations import MINUTE, words

ZERO = timedelta(0)


def rules_of(game: Game) -> clock.Rules:
    return clock.Rules(
        turn_limit=game.turn_limit,
        weekends_off=game.weekends_off,
        zone=game.clock_zone,
        daily_at=game.daily_at,
        bank=game.bank,
    )


def deciding_seat(game: Game) -> Seat | None:
    if game.to_move is None:
        return None
    return game.seats.live().select_related("user").filter(position=game.to_move).first()


def breaks_of(
    game: Game, seat: Seat | None, since: datetime | None = None, *, cached: bool = False
) -> clock.Breaks:
    """When the clock of ``seat``'s decisions stands still: the game's weekends off, and the
    player's vacations when the game's creator let vacations stop the clock (``cached``: the
    vacations from the shared cache, for what pages show; writers read the database)."""
    spans = []
    if seat is not None and seat.user_id is not None and seat.bot is None and game.vacations_pause:
        since = since or game.decision_since or timezone.now()
        spans = vacations.spans(seat.user_id, since, cached=cached)
    return clock.breaks_for(rules_of(game), spans)


def quiet_of(seat: Seat | None) -> clock.Quiet | None:
    """The quiet hours of the player deciding for ``seat`` (None for a bot's seat, or a player
    without them): no decision of theirs times out before they have had an hour outside them."""
    user = seat.user if seat is not None and seat.bot is None else None
    if user is None:
        return None
    return clock.quiet_hours(user.quiet_from, user.quiet_until, user.time_zone)


def decision_deadline(
    game: Game, seat: Seat | None, start: datetime, breaks: clock.Breaks | None = None
) -> clock.Deadline:
    """The deadline of ``seat``'s decision beginning at ``start``, with what is left of its bank,
    leaving its player ``clock.AWAKE_MINIMUM`` outside their quiet hours (``breaks``: the
    seat's from ``start``, when the caller has them already)."""
    bank = seat.bank_left if seat is not None else ZERO
    breaks = breaks if breaks is not None else breaks_of(game, seat, start)
    return clock.decision_deadline(rules_of(game), start, bank, breaks, quiet_of(seat))


def resumed_deadline(
    game: Game, seat: Seat | None, now: datetime, remaining: timedelta
) -> datetime:
    """The deadline of ``seat``'s decision resumed at ``now`` with ``remaining`` counted time,
    its last part (up to an hour) outside the player's quiet hours (``clock.resumed``)."""
    return clock.resumed(now, remaining, breaks_of(game, seat, now), quiet_of(seat))


def time_left(game: Game, now: datetime, seat: Seat | None = None) -> timedelta | None:
    """Counted time left of the running decision (None without one)."""
    if game.deadline is None:
        return None
    seat = seat if seat is not None else deciding_seat(game)
    return clock.time_left(now, game.deadline, breaks_of(game, seat, now))


@dataclass(frozen=True)
class Clock:
    """A running decision's clock as every viewer sees it: enough to say at render time how
    much time is left (a cached list stays right as the minutes pass)."""

    deadline: datetime
    bank: timedelta  # what is left of the deciding seat's bank
    breaks: clock.Breaks

    def left(self, now: datetime) -> timedelta:
        return clock.time_left(now, self.deadline, self.breaks)

    def stopped(self, now: datetime) -> str:
        """Why the clock stands still now: "vacation", "weekend" or ""."""
        stop = self.breaks.stop_at(now)
        if stop is None:
            return ""
        if any(start <= now < end for start, end in self.breaks.spans):
            return "vacation"
        return "weekend"

    def text(self, now: datetime | None = None) -> str:
        """ "Time left: 2 days, then 1 day from the time bank (clock stopped for the weekend)"."""
        now = now or timezone.now()
        left = self.left(now)
        if left <= ZERO:
            return _("Time is up: the site will play a safe move shortly.")
        if self.bank > ZERO and left > self.bank:
            text = _("Time left: %(left)s, then %(bank)s from the time bank") % {
                "left": _amount(left - self.bank),
                "bank": _amount(self.bank),
            }
        elif self.bank > ZERO:
            text = _("Time left: %(left)s, from the time bank") % {"left": _amount(left)}
        else:
            text = durations.time_left(now + left, now)
        return text + self.stopped_note(now)

    def stopped_note(self, now: datetime) -> str:
        """ " (clock stopped for the weekend)" and the like, or "" while the clock runs."""
        stopped = self.stopped(now)
        if stopped == "vacation":
            return " " + _("(clock stopped: the player is on vacation)")
        if stopped == "weekend":
            return " " + _("(clock stopped for the weekend)")
        return ""


def _amount(duration: timedelta) -> str:
    return words(duration) if duration >= MINUTE else _("less than a minute")


def clock_of(game: Game, seat: Seat | None = None, now: datetime | None = None) -> Clock | None:
    """The running decision's clock (None when no clock runs: not running, or paused)."""
    if game.status != Game.Status.RUNNING or game.deadline is None:
        return None
    now = now or timezone.now()
    seat = seat if seat is not None else deciding_seat(game)
    breaks = breaks_of(game, seat, now, cached=True)
    return Clock(
        deadline=game.deadline,
        bank=seat.bank_left if seat is not None else ZERO,
        breaks=breaks,
    )


def clock_annotations(deciding) -> dict:
    """Annotations of a list's games query (``deciding``: the deciding seat as a subquery) that
    let ``clocks_of`` build their clocks without a query of its own, unless a deciding player
    has a vacation ahead."""
    now = timezone.now()
    ahead = vacations.not_called_off().filter(user_id=OuterRef("user_id"), ends_at__gt=now)
    return {
        "clock_bank": Subquery(deciding.values("bank_left")[:1]),
        "clock_user": Subquery(deciding.filter(bot__isnull=True).values("user_id")[:1]),
        "clock_away": Exists(deciding.filter(Exists(ahead))),
    }


def clocks_of(games, now: datetime | None = None) -> dict[int, Clock]:
    """The clocks of many games: from ``clock_annotations`` when the query had them (one more
    query only when a deciding player has a vacation ahead), else in two queries."""
    now = now or timezone.now()
    running = [g for g in games if g.status == Game.Status.RUNNING and g.deadline is not None]
    if not running:
        return {}
    deciding, away = _deciders(running)
    spans = _vacation_spans(away, now)
    clocks = {}
    for game in running:
        user, bank = deciding[game.pk]
        own = spans.get(user, []) if user is not None and game.vacations_pause else []
        breaks = clock.breaks_for(rules_of(game), own)
        clocks[game.pk] = Clock(deadline=game.deadline, bank=bank, breaks=breaks)
    return clocks


def _deciders(running) -> tuple[dict[int, tuple[int | None, timedelta]], set[int]]:
    """Each running game's deciding player (None for a bot) and what is left of their time bank,
    by game; and the players who may be on vacation: from ``clock_annotations`` when the query
    had them, else from one query of the deciding seats (every deciding player)."""
    if all(hasattr(g, "clock_bank") for g in running):
        deciding = {g.pk: (g.clock_user, g.clock_bank or ZERO) for g in running}
        away = {g.clock_user for g in running if g.clock_away and g.vacations_pause}
        return deciding, away
    seats = {
        (s.game_id, s.position): s
        for s in Seat.objects.live().filter(
            game_id__in=[g.pk for g in running], position__isnull=False
        )
    }
    deciding = {}
    for g in running:
        seat = seats.get((g.pk, g.to_move))
        user = seat.user_id if seat is not None and seat.bot is None else None
        deciding[g.pk] = (user, seat.bank_left if seat is not None else ZERO)
    away = {user for user, _bank in deciding.values() if user is not None}
    return deciding, away


def _vacation_spans(away: set[int], now: datetime) -> dict[int, list]:
    """The vacations still ahead or under way of these players, as (start, end) by player (no
    query when there is nobody to ask about)."""
    spans: dict[int, list] = {}
    if away:
        for v in vacations.not_called_off().filter(user_id__in=away, ends_at__gt=now):
            if v.end > now:
                spans.setdefault(v.user_id, []).append((v.starts_at, v.end))
    return spans


def clock_text(game: Game, now: datetime | None = None) -> str:
    """The running decision's "time left" as the page, the dashboard, emails and the admin say
    it ("" when no clock runs)."""
    found = clock_of(game, now=now)
    return found.text(now) if found is not None else ""


def _local_time(at: time) -> str:
    return at.strftime("%H:%M")


def rules_lines(game: Game) -> list[str]:
    """The game's clock rules in words (its page, invitations and the start email)."""
    lines = []
    # The quiet-hours policy (issue 47, ``clock.AWAKE_MINIMUM``), said once, for either clock.
    if game.daily_at is not None:
        lines.append(
            _(
                "Every turn ends at %(time)s (%(zone)s): the first such time that leaves its "
                "player at least an hour outside their quiet hours, else the next day's."
            )
            % {"time": _local_time(game.daily_at), "zone": game.clock_zone}
        )
    else:
        lines.append(
            _(
                "A turn never runs out before its player has had at least an hour of it "
                "outside their quiet hours: its deadline moves later when needed."
            )
        )
    if game.bank > ZERO:
        lines.append(
            _(
                "Each player has a time bank of %(bank)s, spent when a turn runs past its time "
                "before the site plays for them."
            )
            % {"bank": words(game.bank)}
        )
    if game.weekends_off:
        lines.append(
            _("The clocks stop on Saturdays and Sundays (%(zone)s).") % {"zone": game.clock_zone}
        )
    lines.append(vacation_effect(game))
    return lines


def vacation_effect(game: Game) -> str:
    """What a player's vacation does to this game."""
    if game.vacations_pause:
        return _("A player's vacation stops their clock in this game.")
    if game.bot_stand_ins:
        return _("During a player's vacation a bot plays for them in this game.")
    return _("A player's vacation does not stop their clock in this game.")
