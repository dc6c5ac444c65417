"""The moderators' actions on games: rename, pause, resume, extend, abort, hand a seat over,
send an email again. Each leaves a public table event (``games.read.table_events``); pausing,
resuming, extending and aborting are emailed to every seated player too."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import clock
from games.models import ChatMessage, Game, Notice, Seat, TableEvent
from games.outbox import schedule, sending
from games.play import ratings
from games.play.bot_turns import bot_turn_after_commit
from games.play.errors import ServiceError
from games.play.locking import lock_game, touch
from games.read import clock as clocks
from games.read.seats import user_name

MAX_EXTENSION_HOURS = 24 * 14


def _event(game: Game, kind: str, **data) -> TableEvent:
    """A public log line, and a new revision so open pages fetch it."""
    game.revision += 1
    return TableEvent.objects.create(game=game, kind=kind, after_version=game.version, data=data)


def game_rename(*, game_id: int, name: str) -> None:
    """Rename a game (an offensive name), touching nothing else of it; its open pages and every
    part kept per revision (a watcher's play area, the recaps) take the new name at once."""
    with transaction.atomic():
        game = lock_game(game_id)
        game.name = name
        game.save(update_fields=["name"])
        touch(game)


def chat_delete(*, message_ids) -> int:
    """Moderators delete chat lines. Their games get a new revision in the same transaction,
    so open pages drop the lines at once and the game page's cache of the chat (kept per
    revision, ``games.read.pages``) is not served again."""
    ids = list(message_ids)
    with transaction.atomic():
        game_ids = ChatMessage.objects.filter(pk__in=ids).values_list("game_id", flat=True)
        for game_id in sorted(set(game_ids)):  # the lock order: game rows first, by id
            touch(lock_game(game_id))
        deleted, _counts = ChatMessage.objects.filter(pk__in=ids).delete()
    return deleted


def game_pause(*, game_id: int, now=None) -> Game:
    """Stop the clock: the (counted) time left is kept, the deadline cleared (the sweep ignores
    it)."""
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.RUNNING:
            raise ServiceError(_("Only a running game can be paused."))
        left = clocks.time_left(game, now) if game.deadline is not None else None
        game.paused_remaining = left if left is not None else game.turn_limit
        game.status = Game.Status.PAUSED
        game.paused_at = now
        game.deadline = None
        _event(game, TableEvent.Kind.PAUSED)
        game.save()
        _tell_table(game, Notice.Kind.PAUSED, now, left=game.paused_remaining.total_seconds())
    return game


def _tell_table(game: Game, kind: str, now, **data) -> None:
    """Tell every seated player what the moderators did to the game's clock: whose decision it
    is and its deadline (their emails give it in each player's own time zone)."""
    data.update(
        mover=game.to_move,
        deadline=game.deadline.isoformat() if game.deadline else None,
    )
    notices = schedule.notices_for_game_event(game=game, kind=kind, now=now, data=data)
    sending.enqueue_after_commit(notices)


def game_resume(*, game_id: int, now=None) -> Game:
    """Start the clock again with the time that was left; reminders move by the pause's length."""
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.PAUSED:
            raise ServiceError(_("Only a paused game can be resumed."))
        remaining = game.paused_remaining if game.paused_remaining is not None else game.turn_limit
        if game.to_move is not None:
            seat = clocks.deciding_seat(game)
            game.deadline = clocks.resumed_deadline(game, seat, now, remaining)
        game.status = Game.Status.RUNNING
        game.paused_remaining = game.paused_at = None
        _event(game, TableEvent.Kind.RESUMED)
        game.save()
        _tell_table(game, Notice.Kind.RESUMED, now)
        # Reminders follow the new deadline: none lost to the pause, none early. A decision
        # that began while paused (a seat handed over) gets its emails now.
        notices = schedule.notices_for_decision(game=game, now=now)
        notices += schedule.turn_rescheduled(game=game, now=now)
        sending.enqueue_after_commit(notices)
    return game


def game_extend(*, game_id: int, hours: int, now=None) -> Game:
    """Give the player whose decision it is ``hours`` more (a paused game keeps it for later)."""
    now = now or timezone.now()
    if not 1 <= hours <= MAX_EXTENSION_HOURS:
        raise ServiceError(_("Extend by 1 to %(max)d hours.") % {"max": MAX_EXTENSION_HOURS})
    extra = timedelta(hours=hours)
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status == Game.Status.RUNNING and game.to_move is not None:
            breaks = clocks.breaks_of(game, clocks.deciding_seat(game), now)
            game.deadline = clock.extended(now, game.deadline, extra, breaks)
        elif game.status == Game.Status.PAUSED:
            game.paused_remaining = (game.paused_remaining or timedelta(0)) + extra
        else:
            raise ServiceError(_("Only a running or paused game has a deadline to extend."))
        seat = _live_at(game)
        _event(
            game,
            TableEvent.Kind.EXTENDED,
            hours=hours,
            who=user_name(seat.user) if seat else "?",
        )
        game.save()
        _tell_table(game, Notice.Kind.EXTENDED, now, hours=hours)
        sending.enqueue_after_commit(schedule.turn_rescheduled(game=game, now=now))
    return game


def _live_at(game: Game) -> Seat | None:
    return game.seats.select_related("user").filter(position=game.to_move).live().first()


def game_abort(*, game_id: int, reason: str = "", now=None) -> Game:
    """End the game for good: no more moves, no deadline. Its secrets become viewable.

    Every player is emailed the moderators' ``reason``; the game's page shows it.
    """
    now = now or timezone.now()
    reason = reason.strip()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status not in (Game.Status.LOBBY, Game.Status.RUNNING, Game.Status.PAUSED):
            raise ServiceError(_("This game is already over."))
        game.status = Game.Status.ABORTED
        game.deadline = game.paused_remaining = game.paused_at = None
        game.finished_at = now
        _event(game, TableEvent.Kind.ABORTED, reason=reason)
        game.save()
        ratings.game_aborted(game)  # an aborted game is not rated: its rounds are taken back
        schedule.turn_ended(game=game, reason="game aborted")
        notices = schedule.notices_for_game_event(
            game=game, kind=Notice.Kind.ABORTED, now=now, data={"reason": reason}
        )
        sending.enqueue_after_commit(notices)
    return game


def seat_replace(*, game_id: int, position: int, new_user, reason: str = "", now=None) -> Seat:
    """Hand a seat of a running or paused game to ``new_user`` (None: to a bot).

    The old seat is kept as REPLACED (its moves and chat stay theirs); a new seat takes the same
    position, hence the same engine seat name, so the newcomer sees that seat's hand, role and
    peeks on the normal game page. The table is told only who took over from whom. When it is
    that seat's decision, the newcomer gets a fresh turn's time and the usual "your turn" email.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
            raise ServiceError(_("Only a running or paused game's seats can be taken over."))
        old = game.seats.select_related("user").filter(position=position).live().first()
        if old is None:
            raise ServiceError(_("This game has no such seat."))
        if new_user is not None:
            _check_newcomer(game, new_user)
        old.state = Seat.State.REPLACED
        old.stand_in = False  # its bot stops too: the seat is no longer anybody's to take back
        old.save(update_fields=["state", "stand_in"])
        bot = None
        if new_user is None:
            bot = max((s.bot or 0 for s in game.seats.all()), default=0) + 1
        # The seat keeps what is left of its time bank.
        seat = Seat.objects.create(
            game=game, user=new_user, position=position, bot=bot, bank_left=old.bank_left
        )
        _event(
            game,
            TableEvent.Kind.REPLACED,
            new=seat.bot_name or user_name(new_user),
            old=old.bot_name or user_name(old.user),
            seat=position,
        )
        began = game.to_move == position
        if began:
            game.decision_since = now
            fresh = clocks.decision_deadline(game, seat, now)
            if game.status == Game.Status.RUNNING:
                game.deadline = fresh.final
            else:
                game.paused_remaining = game.turn_limit + seat.bank_left
        game.save()
        schedule.turn_ended(game=game)
        told = []
        if began and game.status == Game.Status.RUNNING:
            told += schedule.notices_for_decision(game=game, now=now)
            bot_turn_after_commit(game)
        # The newcomer's first "your turn" email carries their briefing: one email, not two
        # that could arrive in either order.
        turn = next((n for n in told if n.kind == Notice.Kind.TURN and n.seat_id == seat.pk), None)
        if turn is not None:
            turn.data["briefing"] = old.bot_name or user_name(old.user)
            Notice.objects.filter(key=turn.key).update(data=turn.data)
        told += _tell_takeover(game, old, seat, reason, now, briefing=turn is None)
        told += schedule.notices_for_takeover(game=game, old=old, new=seat, now=now)
        sending.enqueue_after_commit(told)
    return seat


def _check_newcomer(game: Game, new_user) -> None:
    """Refuse a person who may not take over a seat: an inactive account, an unverified address
    (no email could reach them), or someone already at this table."""
    if not new_user.is_active:
        raise ServiceError(_("An inactive account cannot take over a seat."))
    if sending.verified_email(new_user) is None:
        raise ServiceError(
            _(
                "%(name)s has no verified email address yet: they must confirm it before "
                "they can take over a seat."
            )
            % {"name": user_name(new_user)}
        )
    if game.seats.filter(user=new_user).live().exists():
        raise ServiceError(
            _("%(name)s already plays in this game.") % {"name": user_name(new_user)}
        )


def _tell_takeover(
    game: Game, old: Seat, new: Seat, reason: str, now, *, briefing: bool
) -> list[Notice]:
    """A briefing for the newcomer (unless their "your turn" email carries it), and word to the
    player who lost the seat."""
    stamp = f"{game.pk}:{old.pk}:{new.pk}"
    rows = []
    if new.user is not None and briefing:  # a bot needs no briefing
        rows.append(
            schedule.seat_notice(
                key=f"briefing:{stamp}",
                kind=Notice.Kind.BRIEFING,
                game=game,
                seat=new,
                now=now,
                old=old.bot_name or user_name(old.user),
            )
        )
    if old.user is not None:
        rows.append(
            schedule.seat_notice(
                key=f"replaced:{stamp}",
                kind=Notice.Kind.REPLACED,
                game=game,
                seat=old,
                now=now,
                new=new.bot_name or user_name(new.user),
                reason=reason.strip(),
            )
        )
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def notices_resend(*, notice_ids, now=None) -> int:
    """Make notices pending and due now, then ask Celery for each (the sweep covers failures).

    Sending re-checks relevance, so a "your turn" email whose turn has passed is skipped again.
    """
    now = now or timezone.now()
    ids = list(notice_ids)
    with transaction.atomic():
        count = Notice.objects.filter(pk__in=ids).update(
            status=Notice.Status.PENDING, due_at=now, reason="", sent_at=None
        )
        transaction.on_commit(lambda: sending.enqueue(ids), robust=True)
    return count
