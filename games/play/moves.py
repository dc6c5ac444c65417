"""The move pipeline: the only doors through which a move enters a game.

``move_submit`` (a player), ``bot_move`` (a bot's turn, from a worker) and ``turn_timeout`` (a
deadline passed, from the sweep) all lock the game row, ask the engine, append the move, store
the new state and write the notices it causes (``games.outbox``), in one transaction.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import clock, engine
from games.models import Game, Move, Seat
from games.outbox import schedule, sending
from games.read import clock as clocks

from . import ratings
from .bot_turns import bot_decision, bot_turn_after_commit
from .errors import IdempotencyConflict, MoveRefused, StaleVersion, reason_message
from .locking import lock_game, player_seat


@dataclass(frozen=True)
class MoveResult:
    move: Move
    repeated: bool  # True when an idempotency key matched an earlier, identical submission


def store(game: Game, state: engine.State, now) -> bool:
    """Copy the engine state into the game row and save it; True when a new decision began."""
    previous_version = game.version if game.snapshot is not None else None
    game.revision += 1
    game.snapshot = state.to_json()
    game.version = state.version
    began = False
    # The seat deciding next and when its clock stands still: read once, for the deadline, the
    # emails and a bot's turn.
    seat, breaks = None, None
    if state.finished:
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.to_move = game.decision_since = game.deadline = None
    else:
        # Every accepted move starts a new decision, even when the same seat decides again
        # (a gold pick after their own turn, or everyone else's hand is empty): new deadline,
        # from the one clock (its weekends, daily deadline, the seat's bank and vacations).
        game.to_move = state.to_move
        if state.version != previous_version or game.decision_since is None:
            seat = clocks.deciding_seat(game)
            breaks = clocks.breaks_of(game, seat, now)
            game.decision_since = now
            game.deadline = clocks.decision_deadline(game, seat, now, breaks).final
            began = True
            if site_decides(game, seat):
                # Nobody waits the time limit for a player who is not there: the sweep makes
                # the decision for them within a minute (beat's ``enforce_deadlines``).
                game.deadline = now
    game.save()
    if began or state.finished:
        schedule.turn_ended(game=game)
    if state.finished:
        sending.enqueue_after_commit(schedule.notices_for_end(game=game, now=now))
    if began:
        sending.enqueue_after_commit(
            schedule.notices_for_decision(game=game, now=now, to_move=seat, breaks=breaks)
        )
        bot_turn_after_commit(game, seat)
    return began


def site_decides(game: Game, seat: Seat | None) -> bool:
    """Whether the site makes this seat's decision at once instead of waiting for its deadline.

    So it does when its player is absent (their time ran out ABSENT_AFTER times in a row, or
    the moderators banned them) or their account is inactive, no bot plays the seat, and a
    person at the table is waiting: a table where nobody is left keeps its pace, so that a
    player who comes back finds the game where it was.
    """
    if seat is None or seat.bot_plays:
        return False
    # A seat without a player nor a bot: its player deleted their account (account_deletion).
    if seat.user is not None and seat.state != Seat.State.ABSENT and seat.user.is_active:
        return False
    waiting = game.seats.live().filter(
        state=Seat.State.ACTIVE, bot__isnull=True, user__is_active=True
    )
    return waiting.exclude(pk=seat.pk).exists()


def decide_for_absent_now(game: Game, now) -> bool:
    """When it is an absent seat's decision (``site_decides``), bring its deadline to ``now``
    (a paused game: no time left when it resumes). The caller holds the game row lock and
    saves the game. Returns whether it did."""
    if game.status not in (Game.Status.RUNNING, Game.Status.PAUSED) or game.to_move is None:
        return False
    if not site_decides(game, clocks.deciding_seat(game)):
        return False
    if game.status == Game.Status.RUNNING:
        game.deadline = min(game.deadline or now, now)
    else:
        game.paused_remaining = timedelta(0)
    return True


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
        state = game.engine_state()
        # A stand-in's move is the site's, not the player's (like a timeout's): "since your last
        # move", statistics and the log must not take it for theirs.
        stand_in = seat.bot is None  # a player's seat (their account maybe deleted since)
        move = bot_decision(game, state, seat)
        # Like the site's own decision for the absent (``turn_timeout``), a stand-in's costs the
        # seat no bank: a ban brings the deadline to now, and the bank spent then was lost to
        # whoever took the seat over (issue 36).
        return apply(
            game, seat, move, automatic=stand_in, stand_in=stand_in, spend_bank=not stand_in
        )


def move_submit(
    *,
    game_id: int,
    user,
    move: Mapping[str, Any],
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
        seat = player_seat(game, user)
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
        if seat.state == Seat.State.ABSENT or seat.timeouts_in_a_row or seat.stand_in:
            # Making a move takes an absent player's seat back (from their stand-in bot too);
            # before the move, so that the next decision knows they are at the table. A refused
            # move rolls it back.
            seat.state = Seat.State.ACTIVE
            seat.timeouts_in_a_row = 0
            seat.stand_in = False
            seat.save(update_fields=["state", "timeouts_in_a_row", "stand_in"])
        record = apply(
            game, seat, move, idempotency_key=idempotency_key or "", request_digest=request_digest
        )
        return MoveResult(record, repeated=False)


def _same_request(earlier: Move, move: Mapping[str, Any], request_digest: str) -> bool:
    if request_digest or earlier.request_digest:
        return earlier.request_digest == request_digest
    return earlier.payload == json.loads(json.dumps(move))


def apply(
    game: Game, seat: Seat, move: Mapping[str, Any], *, spend_bank: bool = True, **extra
) -> Move:
    """Ask the engine, append the move and store the new state (the game row is locked).

    The seat's time bank pays for the time its decision ran past the turn's own limit
    (``spend_bank``: not when the site decided at once for an absent player)."""
    state = game.engine_state()
    try:
        new_state, events = engine.apply(state, seat.engine_name, move)
    except engine.IllegalMove as refusal:
        raise MoveRefused(reason_message(refusal.code), code=refusal.code) from None
    # A round's result complete (its roles public): rated now, in this transaction, after the
    # rating writers' lock is taken, before the move gets its id (the order of the updates).
    rated = []
    if len(new_state.rounds_done) > len(state.rounds_done):
        rated = ratings.completed_rounds(game, seat, move, stand_in=extra.get("stand_in", False))
        ratings.before_round_end(game)
    record = Move.objects.create(
        game=game, sequence=new_state.version, seat=seat, payload=move, events=events, **extra
    )
    now = timezone.now()
    if spend_bank:
        _spend_bank(game, seat, now)
    store(game, new_state, now)
    ratings.round_completed(game=game, move=record, matches=rated)
    return record


def _spend_bank(game: Game, seat: Seat, now) -> None:
    """What is left of the seat's bank after its decision ends now (the clock's rule)."""
    if seat.bank_left <= timedelta(0) or game.deadline is None or game.to_move != seat.position:
        return
    breaks = clocks.breaks_of(game, seat, now)
    left = clock.bank_after(seat.bank_left, now, game.deadline, breaks)
    if left != seat.bank_left:
        seat.bank_left = left
        seat.save(update_fields=["bank_left"])


def default_move(state: engine.State, seat_name: str, rng: secrets.SystemRandom) -> engine.Move:
    """The safe decision the site makes for a player whose time ran out: pass with one card
    chosen at random, keep the highest gold card, or decline a theft."""
    index = state.seat_index(seat_name)
    if state.decision == engine.PICK_GOLD:
        return {"move": "pick-gold", "value": max(state.offer)}
    if state.decision == engine.STEAL:
        return {"move": "steal", "victim": None}
    if index is None:
        raise ValueError(f"{seat_name!r} has no seat in this game.")
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
        state = game.engine_state()
        if game.bot_stand_ins:
            # The creator chose it: a bot decides for the absent player, from their seat's view.
            move = bot_decision(game, state, seat)
        else:
            move = default_move(state, seat.engine_name, secrets.SystemRandom())
        seat.timeouts_in_a_row += 1
        was_absent = seat.state == Seat.State.ABSENT
        absent = seat.timeouts_in_a_row >= ABSENT_AFTER and not was_absent
        if absent:
            seat.state = Seat.State.ABSENT
            seat.stand_in = game.bot_stand_ins
        seat.save(update_fields=["timeouts_in_a_row", "state", "stand_in"])
        # Saved first: a stand-in's next decision (a bot's) is scheduled by ``_apply``. A
        # decision the site made at once for the absent or inactive costs no bank.
        deciding_at_once = was_absent or seat.user is None or not seat.user.is_active
        record = apply(game, seat, move, automatic=True, spend_bank=not deciding_at_once)
        if absent:
            schedule.notice_absent(game=game, absent=seat, now=now)
        # Told each time until they are absent (then no more until they come back); an
        # inactive account is told nothing.
        if seat.user is not None and seat.user.is_active and (absent or not was_absent):
            schedule.notice_timeout(game=game, seat=seat, record=record, absent=absent, now=now)
        return record
