"""Services: the only code that changes games. Plain keyword-only functions named noun_verb.

Lock contract: every writer that touches a running game locks its ``Game`` row first
(``select_for_update``) and does all its work inside that one transaction.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from games import bots, engine
from games.engine.cards import PLAYERS, VARIANTS
from saboteur_site.text import has_line_breaks

from . import notifications
from .models import (
    MAX_TURN_LIMIT,
    MIN_TURN_LIMIT,
    ChatMessage,
    Game,
    Invitation,
    Move,
    Notice,
    Seat,
)

log = logging.getLogger(__name__)


class ServiceError(Exception):
    """A request the service refuses; ``message`` is translated and safe to show."""

    def __init__(self, message: str, *, code: str = "refused"):
        self.message = message
        self.code = code
        super().__init__(message)


class StaleVersion(ServiceError):
    """The player acted on an old page: someone moved first."""


class IdempotencyConflict(ServiceError):
    """An idempotency key already used for a different move."""


class MoveRefused(ServiceError):
    """The engine refused the move; ``code`` is its reason code."""


@dataclass(frozen=True)
class MoveResult:
    move: Move
    repeated: bool  # True when an idempotency key matched an earlier, identical submission


def lock_game(game_id: int) -> Game:
    """The game row, locked until the transaction ends: every writer takes this lock first."""
    return Game.objects.select_for_update().get(pk=game_id)


# Flood limits (README, "Rate limits"): counted in the database, so every process agrees.
HOUR, DAY = timedelta(hours=1), timedelta(days=1)
MAX_GAMES_PER_HOUR = 10  # games one player creates
MAX_INVITATIONS_PER_SENDER_PER_HOUR = 20  # across all their games
MAX_INVITATIONS_PER_ADDRESS_PER_DAY = 3  # to one address, from anyone, across all games

GAME_NAME_ONE_LINE = gettext_lazy(
    "A game's name must be one line, without control characters; it is used in email subjects."
)

GAME_ROUNDS = (1, 2, 3)  # 3 is the rulebook's game; RULES.md allows a shorter one


def game_create(
    *,
    creator,
    name: str,
    ruleset: str,
    max_seats: int,
    variants: list[str] = (),
    visibility: str = Game.Visibility.OPEN,
    turn_limit=None,
    rounds: int = 3,
    bot_stand_ins: bool = False,
) -> Game:
    """Create a game in its lobby with the creator seated (``bot_stand_ins``: a bot plays for
    absent players instead of the safe default move)."""
    if ruleset not in PLAYERS:
        raise ServiceError(_("Unknown rule set."))
    low, high = PLAYERS[ruleset]
    if not low <= max_seats <= high:
        raise ServiceError(_("This rule set is for %(low)d to %(high)d players.") % locals())
    variants = list(variants)
    if any(v not in VARIANTS for v in variants) or (variants and ruleset != Game.Ruleset.BASE):
        raise ServiceError(_("Variants belong to the base game."))
    if has_line_breaks(name):
        raise ServiceError(str(GAME_NAME_ONE_LINE))
    recent = Game.objects.filter(creator=creator, created_at__gte=timezone.now() - HOUR)
    if recent.count() >= MAX_GAMES_PER_HOUR:
        raise ServiceError(
            ngettext(
                "You have created %(count)d game in the last hour; please wait a while.",
                "You have created %(count)d games in the last hour; please wait a while.",
                MAX_GAMES_PER_HOUR,
            )
            % {"count": MAX_GAMES_PER_HOUR},
            code="rate-limited",
        )
    if turn_limit is not None and not MIN_TURN_LIMIT <= turn_limit <= MAX_TURN_LIMIT:
        raise ServiceError(_("The time per turn must be between one hour and seven days."))
    if type(rounds) is not int or rounds not in GAME_ROUNDS:
        raise ServiceError(_("A game is 1, 2 or 3 rounds."))
    with transaction.atomic():
        game = Game.objects.create(
            name=name.strip() or _("Saboteur game"),
            ruleset=ruleset,
            variants=variants,
            max_seats=max_seats,
            visibility=visibility,
            rounds=rounds,
            creator=creator,
            bot_stand_ins=bot_stand_ins,
            **({"turn_limit": turn_limit} if turn_limit is not None else {}),
        )
        Seat.objects.create(game=game, user=creator)
    return game


PRACTICE_BOTS = (2, 11)


def practice_bots_range(ruleset: str) -> tuple[int, int]:
    """How many bots a practice game of this rule set may have (2 to 11, within its seats)."""
    low, high = PLAYERS[ruleset]
    return max(PRACTICE_BOTS[0], low - 1), min(PRACTICE_BOTS[1], high - 1)


def practice_create(
    *, creator, ruleset: str, bots: int, variants: list[str] = (), rounds: int = 3
) -> Game:
    """A game against ``bots`` bots that starts at once (by invite only, out of the statistics)."""
    if ruleset not in PLAYERS:
        raise ServiceError(_("Unknown rule set."))
    low, high = practice_bots_range(ruleset)
    if not low <= bots <= high:
        raise ServiceError(_("Practice with %(low)d to %(high)d bots.") % locals())
    with transaction.atomic():
        game = game_create(
            creator=creator,
            name=_("Practice against bots"),
            ruleset=ruleset,
            max_seats=bots + 1,
            variants=variants,
            visibility=Game.Visibility.INVITE,
            rounds=rounds,
        )
        game.practice = True
        game.save(update_fields=["practice"])
        Seat.objects.bulk_create(Seat(game=game, bot=number) for number in range(1, bots + 1))
        return game_start(game_id=game.pk, user=creator)


def seat_join(*, game_id: int, user) -> Seat:
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."))
        existing = game.seats.filter(user=user).live().first()
        if existing:
            return existing
        if game.seats.count() >= game.max_seats:
            raise ServiceError(_("This game is full."))
        _touch(game)
        return Seat.objects.create(game=game, user=user)


def seat_leave(*, game_id: int, user) -> None:
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("You can only leave a game before it starts."))
        if game.creator_id == user.pk:
            raise ServiceError(_("The creator cannot leave; delete the game instead."))
        game.seats.filter(user=user).delete()
        _touch(game)


def game_start(*, game_id: int, user) -> Game:
    """Seat the players in random order, draw the round seeds and deal round 1."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game.creator_id != user.pk:
            raise ServiceError(_("Only the game's creator can start it."))
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."))
        seats = list(game.seats.all())
        low, _high = PLAYERS[game.ruleset]
        if len(seats) < low:
            raise ServiceError(
                ngettext(
                    "At least %(low)d player is needed.",
                    "At least %(low)d players are needed.",
                    low,
                )
                % {"low": low}
            )
        secrets.SystemRandom().shuffle(seats)
        for position, seat in enumerate(seats):
            seat.position = position
            seat.save(update_fields=["position"])
        state = engine.new_game(
            ruleset=game.ruleset,
            seats=[seat.engine_name for seat in seats],
            variants=game.variants,
            rounds=game.rounds,
            round_seeds=[secrets.token_hex(16) for _ in range(game.rounds)],
            gold_seed=secrets.token_hex(16),
        )
        game.status = Game.Status.RUNNING
        game.started_at = timezone.now()
        _store(game, state, game.started_at)
        notifications.enqueue_after_commit(
            notifications.notices_for_start(game=game, now=game.started_at)
        )
    return game


def _touch(game: Game) -> None:
    """Tell polling pages that something changed (the caller holds the row lock)."""
    game.revision += 1
    game.save(update_fields=["revision"])


def _store(game: Game, state: engine.State, now) -> bool:
    """Copy the engine state into the game row and save it; True when a new decision began."""
    previous_version = game.version if game.snapshot is not None else None
    game.revision += 1
    game.snapshot = state.to_json()
    game.version = state.version
    began = False
    if state.finished:
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.to_move = game.decision_since = game.deadline = None
    else:
        # Every accepted move starts a new decision, even when the same seat decides again
        # (a gold pick after their own turn, or everyone else's hand is empty): new deadline.
        if state.version != previous_version or game.decision_since is None:
            game.decision_since = now
            game.deadline = now + game.turn_limit
            began = True
        game.to_move = state.to_move
    game.save()
    if began or state.finished:
        notifications.turn_ended(game=game)
    if began:
        notifications.enqueue_after_commit(notifications.notices_for_decision(game=game, now=now))
        bot_turn_after_commit(game)
    return began


def bot_turn_after_commit(game: Game) -> None:
    """When a bot decides next, ask a worker to play its move a few seconds from now (never in
    the web request; beat's sweep plays it too should the task be lost)."""
    seat = game.seats.live().filter(position=game.to_move).first()
    if seat is None or not seat.bot_plays:
        return
    from . import tasks  # tasks import this module

    args = (game.pk, game.version)

    def enqueue():
        try:
            # No result is read (see notifications.enqueue): a broker that is down costs nothing.
            tasks.bot_play.apply_async(args, countdown=settings.BOT_MOVE_DELAY, ignore_result=True)
        except Exception:  # the broker is down: beat's sweep plays the bot's move later
            log.warning(
                "could not enqueue the bot's move in game %s; the sweep will play it", args[0]
            )

    transaction.on_commit(enqueue)


def bot_decision(game: Game, state: engine.State, seat: Seat) -> dict:
    """The bot's move for ``seat``: from that seat's view and the public events only."""
    name = seat.engine_name
    history = [
        event
        for events in game.moves.order_by("sequence").values_list("events", flat=True)
        for event in bots.public_events(events)
    ]
    rng = random.Random(secrets.token_hex(16))  # noqa: S311 - tie-breaks, not secrets
    return bots.choose_move(
        engine.view_for(state, name), engine.legal_moves(state, name), rng, history
    )


def bot_move(*, game_id: int, version: int) -> Move | None:
    """Play the bot's decision of the game at ``version`` (a Celery task calls it).

    Nothing happens when the game moved on, is not running, or a person decides now.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.RUNNING or game.version != version:
            return None
        seat = game.seats.live().filter(position=game.to_move).first()
        if seat is None or not seat.bot_plays:
            return None
        state = engine.State.from_json(game.snapshot)
        # A stand-in's move is the site's, not the player's (like a timeout's): "since your last
        # move", statistics and the log must not take it for theirs.
        stand_in = seat.user is not None
        move = bot_decision(game, state, seat)
        return _apply(game, seat, move, automatic=stand_in, stand_in=stand_in)


def bot_games_due(now) -> list[tuple[int, int]]:
    """(game id, version) of running games where a bot's decision is overdue (lost tasks)."""
    late = now - timedelta(seconds=settings.BOT_MOVE_DELAY + 60)
    bot_seat = Q(seats__bot__isnull=False) | Q(seats__stand_in=True)
    return list(
        Game.objects.filter(
            bot_seat,
            seats__state__in=[Seat.State.ACTIVE, Seat.State.ABSENT],
            status=Game.Status.RUNNING,
            decision_since__lte=late,
            seats__position=F("to_move"),
        )
        .values_list("pk", "version")
        .distinct()
    )


def move_submit(
    *,
    game_id: int,
    user,
    move: dict,
    expected_version: int,
    idempotency_key: str | None = None,
    request_digest: str = "",
) -> MoveResult:
    """The only way a player's move enters a game.

    Locks the game row, answers a repeated idempotency key with the first result, refuses a stale
    version, asks the engine, appends the move, saves the new snapshot and writes the notices it
    causes, in one transaction. A repeated key with a different request (``request_digest``, or
    the move itself when the caller gives none) is refused with ``IdempotencyConflict``.
    Concurrent submissions queue on the row lock, so the second one
    sees the first one's move.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        seat = _live_seat(game, user)
        if idempotency_key:
            earlier = game.moves.filter(seat=seat, idempotency_key=idempotency_key).first()
            if earlier and not _same_request(earlier, move, request_digest):
                # A retry repeats its move; the same key with another move is a client bug or a
                # forgery, and answering "made" would silently drop the player's move.
                raise IdempotencyConflict(
                    _(
                        "This page already sent a different move. Nothing was changed: here is "
                        "the game as it is now."
                    ),
                    code="key-reused",
                )
            if earlier:
                return MoveResult(earlier, repeated=True)
        if game.status == Game.Status.PAUSED:
            raise MoveRefused(
                _("The moderators have paused this game; moves wait until it resumes."),
                code="paused",
            )
        if game.status == Game.Status.ABORTED:
            raise MoveRefused(_("The moderators have stopped this game."), code="aborted")
        if game.status != Game.Status.RUNNING:
            raise MoveRefused(_("This game is not running."), code="not-running")
        if expected_version != game.version:
            raise StaleVersion(_("Someone moved first: here is the game as it is now."))
        record = _apply(
            game, seat, move, idempotency_key=idempotency_key or "", request_digest=request_digest
        )
        if seat.state == Seat.State.ABSENT or seat.timeouts_in_a_row or seat.stand_in:
            # Making a move takes an absent player's seat back (from their stand-in bot too).
            seat.state = Seat.State.ACTIVE
            seat.timeouts_in_a_row = 0
            seat.stand_in = False
            seat.save(update_fields=["state", "timeouts_in_a_row", "stand_in"])
        return MoveResult(record, repeated=False)


def _same_request(earlier: Move, move: dict, request_digest: str) -> bool:
    if request_digest or earlier.request_digest:
        return earlier.request_digest == request_digest
    return earlier.payload == json.loads(json.dumps(move))


def _apply(game: Game, seat: Seat, move: dict, **extra) -> Move:
    """Ask the engine, append the move and store the new state (the game row is locked)."""
    state = engine.State.from_json(game.snapshot)
    try:
        new_state, events = engine.apply(state, seat.engine_name, move)
    except engine.IllegalMove as refusal:
        raise MoveRefused(reason_message(refusal.code), code=refusal.code) from None
    record = Move.objects.create(
        game=game, sequence=new_state.version, seat=seat, payload=move, events=events, **extra
    )
    _store(game, new_state, timezone.now())
    return record


def default_move(state: engine.State, seat_name: str, rng: secrets.SystemRandom) -> dict:
    """The safe decision the site makes for a player whose time ran out: pass with one card
    chosen at random, keep the highest gold card, or decline a theft."""
    index = state.seat_index(seat_name)
    if state.decision == engine.PICK_GOLD:
        return {"move": "pick-gold", "value": max(state.offer)}
    if state.decision == engine.STEAL:
        return {"move": "steal", "victim": None}
    return {"move": "pass", "discard": [rng.choice(state.hands[index])]}


ABSENT_AFTER = 3  # timeouts in a row


def turn_timeout(*, game_id: int, now=None) -> Move | None:
    """Make the default decision for a player whose deadline has passed (beat's sweep calls it).

    Nothing happens when the deadline has not passed any more (someone moved meanwhile).
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.RUNNING or game.deadline is None or game.deadline > now:
            return None
        seat = game.seats.live().select_related("user").get(position=game.to_move)
        state = engine.State.from_json(game.snapshot)
        if game.bot_stand_ins:
            # The creator chose it: a bot decides for the absent player, from their seat's view.
            move = bot_decision(game, state, seat)
        else:
            move = default_move(state, seat.engine_name, secrets.SystemRandom())
        seat.timeouts_in_a_row += 1
        absent = seat.timeouts_in_a_row >= ABSENT_AFTER and seat.state == Seat.State.ACTIVE
        if absent:
            seat.state = Seat.State.ABSENT
            seat.stand_in = game.bot_stand_ins
        seat.save(update_fields=["timeouts_in_a_row", "state", "stand_in"])
        # Saved first: a stand-in's next decision (a bot's) is scheduled by ``_apply``.
        record = _apply(game, seat, move, automatic=True)
        if absent:
            notifications.notice_absent(game=game, absent=seat, now=now)
        if seat.timeouts_in_a_row <= ABSENT_AFTER:  # then no more until they come back
            notifications.notice_timeout(
                game=game, seat=seat, move=move, absent=seat.state == Seat.State.ABSENT, now=now
            )
        return record


SEEN_EVERY = timedelta(minutes=1)
VISIT_GAP = timedelta(minutes=30)  # a longer pause starts a new visit


def seat_seen(*, game: Game, user, now=None) -> None:
    """Remember that the player looked at the game (at most one write a minute, and one when the
    game's version changed), and when a new visit begins, what the previous visit had seen.

    ``game.seats`` is usually prefetched: a seat seen a moment ago costs no query at all.
    """
    now = now or timezone.now()
    mine = [s for s in game.seats.all() if user.is_authenticated and s.user_id == user.pk]
    back = [s for s in mine if s.stand_in and s.state != Seat.State.REPLACED]
    if back:
        # The player is back: their stand-in bot stops playing for them. A writer of a seat's
        # state: the game row first (the lock order), and only seats still standing in.
        with transaction.atomic():
            lock_game(game.pk)
            Seat.objects.filter(pk__in=[s.pk for s in back], stand_in=True).exclude(
                state=Seat.State.REPLACED
            ).update(stand_in=False, state=Seat.State.ACTIVE, timeouts_in_a_row=0)
        for seat in back:
            seat.stand_in, seat.state, seat.timeouts_in_a_row = False, Seat.State.ACTIVE, 0
    for seat in mine:
        changes = {}
        if seat.last_seen_at is None or now - seat.last_seen_at >= VISIT_GAP:
            # A new visit: what the previous visit saw is what "since you were here" starts from.
            changes.update(since_version=seat.seen_version, since_at=seat.last_seen_at)
        if seat.seen_version != game.version:
            changes["seen_version"] = game.version
        if seat.last_seen_at is None or now - seat.last_seen_at >= SEEN_EVERY:
            changes["last_seen_at"] = now
        if changes:
            Seat.objects.filter(pk=seat.pk).update(**changes)
            for name in ("since_version", "since_at", "seen_version"):
                if name in changes:  # the page being rendered reads these ("since you were here")
                    setattr(seat, name, changes[name])


def _live_seat(game: Game, user) -> Seat:
    seat = game.seats.filter(user=user).live().first()
    if seat is None:
        raise ServiceError(_("You do not play in this game."), code="not-seated")
    return seat


def chat_post(*, game_id: int, user, text: str) -> ChatMessage:
    text = text.strip()
    if not text:
        raise ServiceError(_("A message cannot be empty."))
    with transaction.atomic():
        game = lock_game(game_id)
        seat = _live_seat(game, user)
        _touch(game)
        message = ChatMessage.objects.create(game=game, seat=seat, text=text[:500])
        notifications.enqueue_after_commit(
            notifications.notices_for_mentions(game=game, message=message, now=timezone.now())
        )
        return message


MAX_INVITATIONS = 30  # per game: enough for friends, too few for spam


def invitation_send(*, game_id: int, user, email: str) -> Invitation:
    """Email the game's invite link (once per address); only a seated player may invite."""
    with transaction.atomic():
        game = lock_game(game_id)
        _live_seat(game, user)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."))
        email = email.strip().lower()
        existing = game.invitations.filter(email=email).first()
        if existing:
            return existing
        if game.invitations.count() >= MAX_INVITATIONS:
            raise ServiceError(_("This game has sent enough invitations."))
        # The sender's row serialises their invitations from all games (after the game row:
        # the lock order), so two at once cannot both slip under the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        now = timezone.now()
        sent = Invitation.objects.filter(invited_by=user, created_at__gte=now - HOUR)
        if sent.count() >= MAX_INVITATIONS_PER_SENDER_PER_HOUR:
            raise ServiceError(
                ngettext(
                    "You have sent %(count)d invitation in the last hour; please wait a while.",
                    "You have sent %(count)d invitations in the last hour; please wait a while.",
                    MAX_INVITATIONS_PER_SENDER_PER_HOUR,
                )
                % {"count": MAX_INVITATIONS_PER_SENDER_PER_HOUR},
                code="rate-limited",
            )
        received = Invitation.objects.filter(email=email, created_at__gte=now - DAY)
        if received.count() >= MAX_INVITATIONS_PER_ADDRESS_PER_DAY:
            raise ServiceError(
                _("This address has had enough invitations today; please try again tomorrow."),
                code="rate-limited",
            )
        invitation = Invitation.objects.create(game=game, email=email, invited_by=user)
        notice = Notice.objects.create(
            key=f"invitation:{game.pk}:{hashlib.sha256(email.encode()).hexdigest()}",
            kind=Notice.Kind.INVITATION,
            email=email,
            game=game,
            due_at=timezone.now(),
            data={"inviter": user.display_name},
        )
        notifications.enqueue_after_commit([notice])
        return invitation


def reason_message(code: str) -> str:
    """The engine's reason code as a translated sentence for players (translated when called)."""
    return gettext(engine.REASONS.get(code, engine.REASONS["malformed"]))
