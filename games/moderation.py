"""Moderation services: what the admins' tools do (the admin only calls these and logs them).

Like ``games.services``, every function that touches a game locks its row first and does all its
work in one transaction. None of them reads or returns a running game's secrets: they change
the status, the clock and the seats, never the engine state.

Leaving lobbies: a deactivated or banned player's lobby seats are removed. A lobby they created
is handed to the player who joined it first among the others still active (the table they
gathered keeps its game); a lobby with nobody else in it is deleted.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import notifications
from .log import Entry
from .models import ChatMessage, Game, Notice, Seat, TableEvent
from .services import ServiceError, bot_turn_after_commit, lock_game

log = logging.getLogger(__name__)

MAX_EXTENSION_HOURS = 24 * 14


def _name(user) -> str:
    return user.display_name if user is not None else _("deleted player")


def _event(game: Game, kind: str, **data) -> TableEvent:
    """A public log line, and a new revision so open pages fetch it."""
    game.revision += 1
    return TableEvent.objects.create(game=game, kind=kind, after_version=game.version, data=data)


# -- Players ---------------------------------------------------------------------------------


def user_deactivate(*, user, by=None) -> list[str]:
    """Make the account inactive and take it out of every lobby; returns what happened to them.

    Django's auth backends refuse an inactive user both at login and when a request's session
    is read (``ModelBackend.get_user`` checks ``is_active``), so every open session of theirs
    stops authenticating at its next request. Their sessions are deleted as well, so that a
    later reactivation does not revive them. Their seats in running games stay; the admins can
    hand those to someone else (``seat_replace``) or let the deadlines mark them absent.
    """
    if by is not None and by.pk == user.pk:
        raise ServiceError(_("You cannot deactivate your own account here."))
    with transaction.atomic():
        _lock_games_of(user)
        type(user).objects.filter(pk=user.pk).update(is_active=False)
        user.is_active = False
        outcomes = _leave_lobbies(user)
    end_sessions(user)
    return outcomes


DATABASE_SESSIONS = (
    "django.contrib.sessions.backends.db",
    "django.contrib.sessions.backends.cached_db",
)


def end_sessions(user) -> int:
    """Delete the user's stored sessions; returns how many.

    Database sessions are not indexed by user, so this reads every unexpired session once: fine
    for a rare admin action on a community site. Other session engines rely on ``is_active``.
    """
    if settings.SESSION_ENGINE not in DATABASE_SESSIONS:
        return 0
    store = import_module(settings.SESSION_ENGINE).SessionStore
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get(SESSION_KEY) == str(user.pk):
            store(session_key=session.session_key).delete()  # the cache copy too
            ended += 1
    return ended


def _lock_games_of(user) -> None:
    """Lock every unfinished game the user sits in, by id, before their user row is written: the
    site's lock order (games first), which ``invitation_send`` follows too (game, then inviter)."""
    ids = (
        Seat.objects.filter(user=user)
        .exclude(game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
        .values_list("game_id", flat=True)
    )
    list(
        Game.objects.select_for_update()
        .filter(pk__in=list(ids))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _leave_lobbies(user) -> list[str]:
    outcomes = []
    game_ids = (
        Seat.objects.filter(user=user, game__status=Game.Status.LOBBY)
        .values_list("game_id", flat=True)
        .order_by("game_id")
    )
    for game_id in list(game_ids):
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            continue
        seats = game.seats.filter(user=user)
        # Lobby chat lines point at the seat (PROTECT); they go with it.
        ChatMessage.objects.filter(seat__in=seats).delete()
        seats.delete()
        if game.creator_id == user.pk:
            heir = (
                game.seats.select_related("user")
                .filter(user__is_active=True)
                .order_by("joined_at", "pk")
                .first()
            )
            if heir is None:
                outcomes.append(_("lobby “%(game)s” deleted") % {"game": game.name})
                game.delete()
                continue
            game.creator = heir.user
            heir_name = _name(heir.user)
            outcomes.append(
                _("lobby “%(game)s” handed to %(heir)s") % {"game": game.name, "heir": heir_name}
            )
        else:
            outcomes.append(_("left lobby “%(game)s”") % {"game": game.name})
        game.revision += 1
        game.save(update_fields=["creator", "revision"])
    return outcomes


def user_ban(*, user, by, reason: str, now=None) -> tuple[list[str], list[Seat]]:
    """Ban a player: recorded as a ban (who, when, why), the account deactivated, their seats
    in running and paused games marked absent at once and their tables told.

    Returns what happened to their lobbies and the seats they held (for the moderators to hand
    over with ``seat_replace``).
    """
    from accounts.models import Ban

    now = now or timezone.now()
    if by is not None and by.pk == user.pk:
        raise ServiceError(_("You cannot ban your own account."))
    with transaction.atomic():
        _lock_games_of(user)  # before the Ban row, whose foreign key share-locks the user row
        Ban.objects.create(user=user, by=by, reason=reason.strip(), created_at=now)
        outcomes = user_deactivate(user=user, by=by)
        seats = []
        underway = (Game.Status.RUNNING, Game.Status.PAUSED)
        game_ids = (
            Seat.objects.live()
            .filter(user=user, game__status__in=underway)
            .order_by("game_id")
            .values_list("game_id", flat=True)
        )
        for game_id in list(game_ids):
            game = lock_game(game_id)
            seat = game.seats.live().filter(user=user).first()
            if seat is None or game.status not in underway:
                continue
            if seat.state != Seat.State.ABSENT:
                seat.state = Seat.State.ABSENT
                # Where the creator chose stand-ins, a bot plays the seat until it is handed over.
                seat.stand_in = game.bot_stand_ins
                seat.save(update_fields=["state", "stand_in"])
                game.revision += 1
                game.save(update_fields=["revision"])
                notifications.enqueue_after_commit(
                    notifications.notice_absent(game=game, absent=seat, now=now, banned=True)
                )
            seat.game = game
            seats.append(seat)
    return outcomes, seats


def user_reactivate(*, user, now=None) -> None:
    """Let the player back in; a ban on them ends (kept, with the time it was lifted)."""
    type(user).objects.filter(pk=user.pk).update(is_active=True)
    user.bans.filter(lifted_at__isnull=True).update(lifted_at=now or timezone.now())
    user.is_active = True


# -- Games -----------------------------------------------------------------------------------


def game_rename(*, game_id: int, name: str) -> None:
    """Rename a game (an offensive name), touching nothing else."""
    with transaction.atomic():
        game = lock_game(game_id)
        game.name = name
        game.save(update_fields=["name"])


def game_pause(*, game_id: int, now=None) -> Game:
    """Stop the clock: the time left is kept, the deadline cleared (the sweep ignores it)."""
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.RUNNING:
            raise ServiceError(_("Only a running game can be paused."))
        if game.deadline is not None:
            game.paused_remaining = max(game.deadline - now, timedelta(0))
        else:
            game.paused_remaining = game.turn_limit
        game.status = Game.Status.PAUSED
        game.paused_at = now
        game.deadline = None
        _event(game, TableEvent.Kind.PAUSED)
        game.save()
    return game


def game_resume(*, game_id: int, now=None) -> Game:
    """Start the clock again with the time that was left; reminders move by the pause's length."""
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.PAUSED:
            raise ServiceError(_("Only a paused game can be resumed."))
        remaining = game.paused_remaining if game.paused_remaining is not None else game.turn_limit
        if game.to_move is not None:
            game.deadline = now + remaining
        game.status = Game.Status.RUNNING
        game.paused_remaining = game.paused_at = None
        _event(game, TableEvent.Kind.RESUMED)
        game.save()
        # Reminders follow the new deadline: none lost to the pause, none early. A decision
        # that began while paused (a seat handed over) gets its emails now.
        notices = notifications.notices_for_decision(game=game, now=now)
        notices += notifications.turn_rescheduled(game=game, now=now)
        notifications.enqueue_after_commit(notices)
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
            game.deadline = max(game.deadline or now, now) + extra
        elif game.status == Game.Status.PAUSED:
            game.paused_remaining = (game.paused_remaining or timedelta(0)) + extra
        else:
            raise ServiceError(_("Only a running or paused game has a deadline to extend."))
        seat = _live_at(game)
        _event(
            game,
            TableEvent.Kind.EXTENDED,
            hours=hours,
            who=_name(seat.user) if seat else "?",
        )
        game.save()
        notifications.enqueue_after_commit(notifications.turn_rescheduled(game=game, now=now))
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
        notifications.turn_ended(game=game, reason="game aborted")
        notices = notifications.notices_for_game_event(
            game=game, kind=Notice.Kind.ABORTED, now=now, data={"reason": reason}
        )
        notifications.enqueue_after_commit(notices)
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
        if new_user is not None and not new_user.is_active:
            raise ServiceError(_("An inactive account cannot take over a seat."))
        if new_user is not None and notifications.verified_email(new_user) is None:
            raise ServiceError(
                _(
                    "%(name)s has no verified email address yet: they must confirm it before "
                    "they can take over a seat."
                )
                % {"name": _name(new_user)}
            )
        if new_user is not None and game.seats.filter(user=new_user).live().exists():
            raise ServiceError(
                _("%(name)s already plays in this game.") % {"name": _name(new_user)}
            )
        old.state = Seat.State.REPLACED
        old.stand_in = False  # its bot stops too: the seat is no longer anybody's to take back
        old.save(update_fields=["state", "stand_in"])
        bot = None
        if new_user is None:
            bot = max((s.bot or 0 for s in game.seats.all()), default=0) + 1
        seat = Seat.objects.create(game=game, user=new_user, position=position, bot=bot)
        _event(
            game,
            TableEvent.Kind.REPLACED,
            new=seat.bot_name or _name(new_user),
            old=old.bot_name or _name(old.user),
            seat=position,
        )
        began = game.to_move == position
        if began:
            game.decision_since = now
            if game.status == Game.Status.RUNNING:
                game.deadline = now + game.turn_limit
            else:
                game.paused_remaining = game.turn_limit
        game.save()
        notifications.turn_ended(game=game)
        told = _tell_takeover(game, old, seat, reason, now)
        if began and game.status == Game.Status.RUNNING:
            told += notifications.notices_for_decision(game=game, now=now)
            bot_turn_after_commit(game)
        notifications.enqueue_after_commit(told)
    return seat


def _tell_takeover(game: Game, old: Seat, new: Seat, reason: str, now) -> list[Notice]:
    """A briefing for the newcomer, and word to the player who lost the seat."""
    stamp = f"{game.pk}:{old.pk}:{new.pk}"
    rows = []
    if new.user is not None:  # a bot needs no briefing
        rows.append(
            notifications.seat_notice(
                key=f"briefing:{stamp}",
                kind=Notice.Kind.BRIEFING,
                game=game,
                seat=new,
                now=now,
                old=old.bot_name or _name(old.user),
            )
        )
    if old.user is not None:
        rows.append(
            notifications.seat_notice(
                key=f"replaced:{stamp}",
                kind=Notice.Kind.REPLACED,
                game=game,
                seat=old,
                now=now,
                new=new.bot_name or _name(new.user),
                reason=reason.strip(),
            )
        )
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


# -- The outbox ------------------------------------------------------------------------------


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
        transaction.on_commit(lambda: notifications.enqueue(ids), robust=True)
    return count


# -- The table's log -------------------------------------------------------------------------


def renames(game: Game) -> list[tuple[int, str, str]]:
    """Seat takeovers as (after_version, engine seat name, the earlier player's name)."""
    return [
        (event.after_version, str(event.data["seat"]), event.data["old"])
        for event in game.table_events.all()
        if event.kind == TableEvent.Kind.REPLACED
    ]


def table_entries(game: Game) -> list[Entry]:
    """The moderators' public log lines; ``Entry.sequence`` places each after that many moves."""
    return [
        Entry(event.after_version, describe(event), private=False)
        for event in game.table_events.all()
    ]


def stop_reason(game: Game) -> str:
    """The moderators' reason for stopping ``game`` ("" when none was given)."""
    event = game.table_events.filter(kind=TableEvent.Kind.ABORTED).last()
    return (event.data.get("reason") or "") if event else ""


def describe(event: TableEvent) -> str:
    data = event.data
    if event.kind == TableEvent.Kind.REPLACED:
        return _("%(new)s took over from %(old)s.") % {"new": data["new"], "old": data["old"]}
    if event.kind == TableEvent.Kind.PAUSED:
        return _("The moderators paused the game: the clock stops until it resumes.")
    if event.kind == TableEvent.Kind.RESUMED:
        return _("The moderators resumed the game.")
    if event.kind == TableEvent.Kind.EXTENDED:
        return ngettext(
            "The moderators gave %(who)s %(hours)d more hour.",
            "The moderators gave %(who)s %(hours)d more hours.",
            data["hours"],
        ) % {"who": data["who"], "hours": data["hours"]}
    if event.kind == TableEvent.Kind.ABORTED:
        if data.get("reason"):
            return _("The moderators stopped the game: %(reason)s") % {"reason": data["reason"]}
        return _("The moderators stopped the game.")
    return str(event.get_kind_display())
