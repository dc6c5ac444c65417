"""When a bot decides: asking a worker for its move, the move it chooses, and the overdue ones."""

from __future__ import annotations

import logging
import random
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from games import bots, dispatch, engine
from games.models import Game, Seat
from games.read import clock as clocks
from games.read import history as read_history
from games.read import ledger_words

log = logging.getLogger(__name__)


def bot_turn_after_commit(game: Game, to_move: Seat | None = None) -> None:
    """When a bot decides next, ask a worker to play its move a few seconds from now (never in
    the web request; beat's sweep plays it too should the task be lost). ``to_move``: the live
    seat at ``game.to_move`` when the caller has read it already."""
    seat = to_move if to_move is not None else clocks.deciding_seat(game)
    if seat is None or not seat.bot_plays:
        return
    args = (game.pk, game.version)

    def enqueue():
        try:
            # No result is read (see sending.enqueue): a broker that is down costs nothing.
            dispatch.start(
                dispatch.BOT_PLAY, *args, countdown=settings.BOT_MOVE_DELAY, ignore_result=True
            )
        except Exception:  # the broker is down: beat's sweep plays the bot's move later
            log.warning(
                "could not enqueue the bot's move in game %s; the sweep will play it", args[0]
            )

    transaction.on_commit(enqueue)


def bot_decision(game: Game, state: engine.State, seat: Seat) -> engine.Move:
    """The bot's move for ``seat``: from that seat's view and the public events only, and the
    public ledger the pages show (kept per game, ``games.read.ledger_words``)."""
    name = seat.engine_name
    moves = read_history.move_log(game)
    history = [event for _seq, events, *_rest in moves for event in bots.public_events(events)]
    view = engine.view_for(state, name)
    seen = ledger_words.kept(game.pk, moves, [p["seat"] for p in view["players"]]).this_round
    rng = random.Random(secrets.token_hex(16))  # noqa: S311 - tie-breaks, not secrets
    return bots.choose_move(view, engine.legal_moves(state, name), rng, history, seen)


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
