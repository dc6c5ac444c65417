"""Players' vacations (issue 26): declaring one (from now or a later day, within the balance),
coming back early or calling it off, and the sweep's part that carries them out.

A vacation spans games. In every running game of the player whose creator let vacations stop the
clock, the player's decisions stand still through it (``games.read.clock`` counts it as a stop,
so a deadline under way moves by it at once, and later ones are placed past it); in games that
chose bots for absent players instead, a stand-in bot plays their seat while it lasts. The
tables are told (the start and planned end, an early return), the player's emails wait until
they are back (``games.outbox.quiet.vacation_hold``), and they are told a day before the end.

Lock order: the games of the player first, in id order, then the player's row (which serialises
their declarations), as every writer does.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, time, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import clock
from games.models import Game, Notice, Seat, TableEvent, Vacation
from games.outbox import schedule, sending
from games.read import clock as clocks
from games.read import vacations
from games.read.seats import user_name

from .bot_turns import bot_turn_after_commit
from .errors import ServiceError
from .locking import touch

log = logging.getLogger(__name__)

DAY = timedelta(days=1)

MAX_AHEAD = timedelta(days=365)  # a vacation begins within a year

UNDERWAY = (Game.Status.RUNNING, Game.Status.PAUSED)

ENDING_NOTICE = DAY  # the player is told this long before their vacation ends


def _lock_games(user) -> list[Game]:
    """The player's games under way, locked in id order (the lock order)."""
    ids = (
        Seat.objects.live()
        .filter(user=user, game__status__in=UNDERWAY)
        .values_list("game_id", flat=True)
    )
    return list(
        Game.objects.select_for_update()
        .filter(pk__in=list(ids), status__in=UNDERWAY)
        .order_by("pk")
    )


def _lock_user(user) -> None:
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def _seat_of(game: Game, user) -> Seat | None:
    return game.seats.live().select_related("user").filter(user=user).first()


def vacation_declare(*, user, days: int, starts_on: date | None = None, now=None) -> Vacation:
    """Declare a vacation of ``days`` whole days from now (``starts_on`` None or today, in the
    player's time zone) or from the start of a later day. Refused beyond the player's balance,
    more than a year ahead, or while another vacation is planned or under way."""
    now = now or timezone.now()
    if type(days) is not int or days < 1:
        raise ServiceError(_("A vacation is at least one day."))
    today = now.astimezone(clock.zone(user.time_zone)).date()
    if starts_on is None or starts_on == today:
        starts_at = now
    elif starts_on < today:
        raise ServiceError(_("A vacation cannot begin in the past."))
    else:
        starts_at = datetime.combine(
            starts_on, time(0), tzinfo=clock.zone(user.time_zone)
        ).astimezone(now.tzinfo)
        if starts_at - now > MAX_AHEAD:
            raise ServiceError(_("A vacation begins within a year from today."))
    ends_at = starts_at + days * DAY
    with transaction.atomic():
        games = _lock_games(user)
        _lock_user(user)
        if vacations.planned(user.pk, now) is not None:
            raise ServiceError(
                _("You have a vacation planned already: end it or call it off first.")
            )
        left = vacations.balance(user.pk, now)
        if days > left:
            raise ServiceError(
                ngettext(
                    "You have %(count)d vacation day left this year.",
                    "You have %(count)d vacation days left this year.",
                    left,
                )
                % {"count": left}
            )
        before = _stops_now(games, user, now)
        vacation = Vacation.objects.create(user=user, starts_at=starts_at, ends_at=ends_at)
        _clocks_moved(games, user, before, now)
        told = []
        for game in games:
            told += _tell_table(game, user, vacation, "declared", now)
        ending = Notice(
            key=f"vacation-end:{vacation.pk}:{ends_at.isoformat()}",
            kind=Notice.Kind.VACATION_ENDING,
            user=user,
            due_at=max(ends_at - ENDING_NOTICE, now),
            data={"ends": ends_at.isoformat(), "vacation": vacation.pk},
        )
        Notice.objects.bulk_create([ending], ignore_conflicts=True)
        if starts_at <= now:
            _begin(vacation, games, now)
        sending.enqueue_after_commit(told)
    return vacation


def vacation_end(*, user, now=None) -> Vacation:
    """Come back early from the vacation under way, or call off one still to come."""
    now = now or timezone.now()
    with transaction.atomic():
        games = _lock_games(user)
        _lock_user(user)
        vacation = vacations.planned(user.pk, now)
        if vacation is None:
            raise ServiceError(_("You have no vacation to end."))
        vacation = Vacation.objects.select_for_update().get(pk=vacation.pk)
        before = _stops_now(games, user, now)
        held_until = vacation.end
        event = "returned" if vacation.starts_at <= now else "called-off"
        vacation.ended_at = now
        vacation.save(update_fields=["ended_at"])
        _clocks_moved(games, user, before, now)
        told = []
        if vacation.stage == Vacation.Stage.UNDERWAY:
            _finish(vacation, games, now)
        vacation.stage = Vacation.Stage.OVER
        vacation.save(update_fields=["stage"])
        Notice.objects.filter(
            kind=Notice.Kind.VACATION_ENDING, data__vacation=vacation.pk,
            status=Notice.Status.PENDING,
        ).update(status=Notice.Status.SKIPPED, reason="the vacation ended early")  # fmt: skip
        # What their vacation held goes now (sending checks again whether it still matters).
        held = Notice.objects.filter(
            user=user, status=Notice.Status.PENDING, due_at=held_until, last_error=""
        )
        released = list(held.values_list("pk", flat=True))
        held.filter(pk__in=released).update(due_at=now)
        told += list(Notice.objects.filter(pk__in=released))
        for game in games:
            told += _tell_table(game, user, vacation, event, now)
        sending.enqueue_after_commit(told)
    return vacation


def _stops_now(games: list[Game], user, now) -> dict[int, clock.Breaks]:
    """The stops of the player's running decisions before their vacations change."""
    return {
        game.pk: clocks.breaks_of(game, seat, now)
        for game in games
        if (seat := _deciding(game, user)) is not None
    }


def _deciding(game: Game, user) -> Seat | None:
    if game.status != Game.Status.RUNNING or game.deadline is None:
        return None
    seat = clocks.deciding_seat(game)
    return seat if seat is not None and seat.user_id == user.pk else None


def _clocks_moved(games: list[Game], user, before: dict, now) -> None:
    """The player's vacations changed: each decision of theirs under way keeps its counted time
    left on the new stops (``clock.moved``), and its reminders move with its deadline."""
    for game in games:
        seat = _deciding(game, user)
        if seat is None or game.deadline is None or game.pk not in before:
            continue  # (_deciding found a deadline: a decision under way has one)
        after = clocks.breaks_of(game, seat, now)
        deadline = clock.moved(now, game.deadline, before[game.pk], after)
        if deadline != game.deadline:
            game.deadline = deadline
            game.revision += 1
            game.save(update_fields=["deadline", "revision"])
            schedule.reminders_placed(game=game, now=now)


def _tell_table(game: Game, user, vacation: Vacation, event: str, now) -> list[Notice]:
    """A public log line in the game, and an email to the other players."""
    seat = _seat_of(game, user)
    if seat is None:
        return []
    data = {
        "name": user_name(user),
        "starts": vacation.starts_at.isoformat(),
        "ends": vacation.ends_at.isoformat(),
        "event": event,
    }
    kind = TableEvent.Kind.VACATION if event == "declared" else TableEvent.Kind.RETURNED
    TableEvent.objects.create(game=game, kind=kind, after_version=game.version, data=data)
    touch(game)
    return schedule.notices_for_vacation(
        game=game, away=seat, key=f"{event}:{vacation.pk}", now=now, data=data
    )


def _begin(vacation: Vacation, games: list[Game], now) -> None:
    """The vacation begins: stand-in bots take the player's seats in the games that chose them
    over stopping the clock (the game rows are locked)."""
    for game in games:
        if game.vacations_pause or not game.bot_stand_ins:
            continue
        seat = _seat_of(game, vacation.user)
        if seat is None or seat.state != Seat.State.ACTIVE or seat.stand_in:
            continue
        seat.stand_in = True
        seat.save(update_fields=["stand_in"])
        if game.status == Game.Status.RUNNING and game.to_move == seat.position:
            bot_turn_after_commit(game)  # its emails are not sent: a bot stands in
    vacation.stage = Vacation.Stage.UNDERWAY
    vacation.save(update_fields=["stage"])


def _finish(vacation: Vacation, games: list[Game], now) -> None:
    """The vacation is over: the stand-in bots leave the player's seats (still active ones; an
    absent seat keeps its stand-in until its player moves)."""
    for game in games:
        if game.vacations_pause or not game.bot_stand_ins:
            continue
        seat = _seat_of(game, vacation.user)
        if seat is None or seat.state != Seat.State.ACTIVE or not seat.stand_in:
            continue
        seat.stand_in = False
        seat.save(update_fields=["stand_in"])
        if game.status == Game.Status.RUNNING and game.to_move == seat.position:
            # Their decision again: the rest of its time, and its emails.
            sending.enqueue_after_commit(schedule.notices_for_decision(game=game, now=now))


def vacations_due(now) -> int:
    """The sweep's part: vacations that began or ended since the last sweep are carried out
    (stand-in bots come and go). Returns how many changed stage."""
    changed = 0
    begun = Vacation.objects.filter(stage=Vacation.Stage.PLANNED, starts_at__lte=now)
    for pk, user_id in begun.values_list("pk", "user_id"):
        changed += _carry_out(pk, user_id, now)
    over = Vacation.objects.filter(stage=Vacation.Stage.UNDERWAY, ends_at__lte=now)
    for pk, user_id in over.values_list("pk", "user_id"):
        changed += _carry_out(pk, user_id, now)
    return changed


def _carry_out(pk: int, user_id: int, now) -> int:
    try:
        with transaction.atomic():
            user = get_user_model().objects.get(pk=user_id)
            games = _lock_games(user)
            vacation = Vacation.objects.select_for_update().get(pk=pk)
            if vacation.stage == Vacation.Stage.PLANNED and vacation.starts_at <= now:
                if vacation.end <= vacation.starts_at:
                    vacation.stage = Vacation.Stage.OVER
                    vacation.save(update_fields=["stage"])
                    return 1
                _begin(vacation, games, now)
            if vacation.stage == Vacation.Stage.UNDERWAY and vacation.end <= now:
                _finish(vacation, games, now)
                vacation.stage = Vacation.Stage.OVER
                vacation.save(update_fields=["stage"])
            for game in games:  # stand-in badges and stopped clocks change on open pages
                touch(game)
            return 1
    except Exception:  # one player's vacation must not stop the others'
        log.exception("vacation %s could not be carried out", pk)
        return 0
