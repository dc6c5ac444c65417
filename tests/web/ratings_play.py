"""Playing whole games between people whose moves a bot chooses (through ``move_submit``), for
the ratings tests."""

from __future__ import annotations

import random

from games import bots, engine
from games.models import Game
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit


def table(users, *, ruleset="base", rounds=1, name="Rated", **options) -> Game:
    game = game_create(
        creator=users[0], name=name, ruleset=ruleset, max_seats=len(users), rounds=rounds, **options
    )
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=users[0])


def bot_choice(game: Game, rng: random.Random) -> tuple[object, dict]:
    """The live seat to move and the move a bot would make for it (from that seat's view)."""
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.live().get(position=state.to_move)
    name = seat.engine_name
    move = bots.choose_move(engine.view_for(state, name), engine.legal_moves(state, name), rng)
    return seat, move


def step(game: Game, rng: random.Random) -> Game:
    seat, move = bot_choice(game, rng)
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    game.refresh_from_db()
    return game


def play_until(game: Game, rng: random.Random, done=lambda game: False, cap=3000) -> Game:
    """Moves until ``done(game)`` or the game's end."""
    for _ in range(cap):
        if game.status != Game.Status.RUNNING or done(game):
            return game
        game = step(game, rng)
    raise AssertionError("the game never ended")


def rounds_done(game: Game) -> int:
    return len(game.snapshot["rounds_done"])


def play_fast(game: Game, rng: random.Random) -> Game:
    """The whole game with a bot choosing every seat's moves, quickly: the moves inside a round
    are decided by the engine and stored as ``apply`` would store them (the same rows, in bulk),
    and every move that completes a round goes through the pipeline's own ``moves.apply`` (under
    the game row's lock), which stores it and rates the round. ``move_submit`` costs ~20 ms a
    move on the development machine; a few hundred rounds of it would take minutes."""
    from django.db import transaction

    from games.models import Move
    from games.play import moves
    from games.play.locking import lock_game

    seats = {seat.position: seat for seat in game.seats.live()}
    state = engine.State.from_json(game.snapshot)
    pending: list[Move] = []

    def flush():
        Move.objects.bulk_create(pending)
        pending.clear()
        Game.objects.filter(pk=game.pk).update(
            snapshot=state.to_json(), version=state.version, to_move=state.to_move
        )

    while not state.finished:
        name = state.seats[state.to_move]
        move = bots.choose_move(engine.view_for(state, name), engine.legal_moves(state, name), rng)
        new, events = engine.apply(state, name, move)
        seat = seats[state.to_move]
        if len(new.rounds_done) > len(state.rounds_done):
            flush()
            with transaction.atomic():
                moves.apply(lock_game(game.pk), seat, move)
        else:
            pending.append(
                Move(game=game, sequence=new.version, seat=seat, payload=move, events=events)
            )
        state = new
    flush()
    game.refresh_from_db()
    return game
