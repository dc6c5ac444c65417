"""The moderators' actions on players: deactivate, ban, reactivate, end their sessions.

Leaving lobbies: a deactivated or banned player's lobby seats are removed. A lobby they created
is handed to the player who joined it first among the others still active (the table they
gathered keeps its game); a lobby with nobody else in it is deleted.
"""

from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Ban
from games.models import ChatMessage, Game, Notice, Seat
from games.outbox import schedule, sending
from games.play.bot_turns import bot_turn_after_commit
from games.play.errors import ServiceError
from games.play.locking import lock_game
from games.play.moves import decide_for_absent_now
from games.read.seats import user_name


def user_deactivate(*, user, by=None) -> list[str]:
    """Make the account inactive and take it out of every lobby; returns what happened to them.

    Django's auth backends refuse an inactive user both at login and when a request's session
    is read (``ModelBackend.get_user`` checks ``is_active``), so every open session of theirs
    stops authenticating at its next request. Their sessions are deleted as well, so that a
    later reactivation does not revive them. Their seats in running games stay; the admins can
    hand those to someone else (``seat_replace``). Meanwhile the table does not wait for them:
    the site makes their decisions at once (``moves.site_decides``) and emails them nothing.
    """
    if by is not None and by.pk == user.pk:
        raise ServiceError(_("You cannot deactivate your own account here."))
    with transaction.atomic():
        _lock_games_of(user)
        type(user).objects.filter(pk=user.pk).update(is_active=False)
        user.is_active = False
        outcomes = _leave_lobbies(user)
        _stop_waiting_for(user, timezone.now())
    end_sessions(user)
    return outcomes


def _stop_waiting_for(user, now) -> None:
    """An inactive player's turns: their unsent "your turn" emails and reminders are cancelled,
    and a decision of theirs under way is the site's at once (``decide_for_absent_now``; the
    sweep makes it within a minute, or their stand-in bot). Their games are locked already."""
    Notice.objects.filter(
        user=user,
        kind__in=(Notice.Kind.TURN, Notice.Kind.REMINDER),
        status=Notice.Status.PENDING,
    ).update(status=Notice.Status.SKIPPED, reason="inactive account")
    underway = (Game.Status.RUNNING, Game.Status.PAUSED)
    for game in Game.objects.filter(
        status__in=underway, seats__in=Seat.objects.live().filter(user=user)
    ).order_by("pk"):
        if decide_for_absent_now(game, now):
            game.save(update_fields=["deadline", "paused_remaining"])


DATABASE_SESSIONS = (
    "django.contrib.sessions.backends.db",
    "django.contrib.sessions.backends.cached_db",
    "saboteur_site.sessions",  # cached_db with a short-lived copy
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
            heir_name = user_name(heir.user)
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
                sending.enqueue_after_commit(
                    schedule.notice_absent(game=game, absent=seat, now=now, banned=True)
                )
                bot_turn_after_commit(game)  # their stand-in's move, if it is their turn
            seat.game = game
            seats.append(seat)
    return outcomes, seats


def user_reactivate(*, user, now=None) -> None:
    """Let the player back in; a ban on them ends (kept, with the time it was lifted)."""
    type(user).objects.filter(pk=user.pk).update(is_active=True)
    user.bans.filter(lifted_at__isnull=True).update(lifted_at=now or timezone.now())
    user.is_active = True
