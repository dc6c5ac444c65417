"""The public ledger kept per game (issue 49): read on move by move (``games.ledger.read``), kept
per process under the game's version (``games.read.ledger_words.kept``), the same ledger a reading
from the start gives; the pages read each move once, and the bots weigh the same records."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import ledger
from games.bots.brain import PATH_SUSPICION, Table, _this_round, public_events
from games.engine import legal_moves, view_for
from games.read import ledger_words
from games.read.history import move_log
from tests.engine.strategies import game_specs, play

from .test_game_pages import logged_in, play_random, start_game
from .test_ledger import played_log


# A whole game is played per example: no deadline (the examples' count is the profile's).
@settings(deadline=None)
@given(spec=game_specs(), seed=st.integers(0, 2**32 - 1), step=st.integers(1, 7))
def test_reading_on_gives_the_ledger_read_from_the_start(spec, seed, step):
    log = played_log(spec, random.Random(seed))
    seats = list(spec.seats)
    kept = None
    for end in [*range(0, len(log), step), len(log)]:
        kept = ledger.read(log[:end], seats, kept)
        assert kept.sequence == (log[end - 1][0] if end else 0)
        assert kept.ledger == ledger.ledger(log[:end], seats)
    # Going on never changes what it went on from: a kept ledger can be shared.
    start = ledger.read(log[: len(log) // 2], seats)
    before = ledger.ledger(log[: len(log) // 2], seats)
    ledger.read(log, seats, start)
    assert start.ledger == before


@settings(deadline=None)
@given(spec=game_specs(), seed=st.integers(0, 2**32 - 1))
def test_the_bots_weigh_the_kept_ledgers_records(spec, seed):
    """What a bot reads from the kept ledger (``Kept.this_round``) is what it read from the
    round's public events: the same suspicion of every seat at every decision."""
    rng = random.Random(seed)
    state = spec.build()
    seats = list(spec.seats)
    log: list[tuple] = []
    kept = ledger.read([], seats)
    checked = 0

    def check(state, seat, move, events):
        nonlocal kept, checked
        log.append((len(log) + 1, [dict(event) for event in events]))
        kept = ledger.read(log, seats, kept)
        if state.finished or checked > 40:
            return
        if state.to_move is None:
            return
        mover = state.seats[state.to_move]
        if not legal_moves(state, mover):
            return
        view = view_for(state, mover)
        history = [e for _seq, events, *_r in log for e in public_events(events)]
        assert Table(view, history, kept.this_round).suspicion == Table(view, history).suspicion
        assert _paths(kept.this_round, seats) == _paths(_round_records(history, seats), seats)
        checked += 1

    play(state, rng, eager=rng.random() < 0.5, on_move=check)


def _round_records(history, seats):
    """This round's records as the bots read them before: from the round's public events."""
    counted = ledger.ledger([(1, _this_round(history))], seats).rounds
    return counted[max(counted)]


def _paths(records, seats) -> dict[str, tuple[int, ...]]:
    """The path cards each seat laid this round, by kind (what a bot's suspicion weighs)."""
    empty = ledger.SeatRecord("")
    return {
        seat: tuple(getattr(records.get(seat, empty), kind) for kind in PATH_SUSPICION)
        for seat in seats
    }


@pytest.mark.django_db
def test_a_page_reads_each_new_move_once(make_user, monkeypatch):
    players = [make_user(name) for name in ("ann", "bob", "cid", "dan")]
    game = start_game(players)
    play_random(game, 12, random.Random(5))
    read: list[int] = []
    original = ledger._Reader.move

    def counted(self, sequence, events):
        read.append(sequence)
        return original(self, sequence, events)

    monkeypatch.setattr(ledger._Reader, "move", counted)
    client = logged_in(players[1])
    assert client.get(f"/games/{game.pk}/").status_code == 200
    assert read == list(range(1, 13))  # a cold process reads the log once
    read.clear()
    assert client.get(f"/games/{game.pk}/").status_code == 200
    assert logged_in(players[2]).get(f"/games/{game.pk}/").status_code == 200
    assert read == []  # the same version: kept
    play_random(game, 2, random.Random(6))
    assert client.get(f"/games/{game.pk}/").status_code == 200
    assert read == [13, 14]  # only the new moves
    seats = [s.engine_name for s in game.seats.order_by("position")]
    assert ledger_words.public(game.pk, move_log(game), seats) == ledger.ledger(
        move_log(game), seats
    )


@pytest.mark.django_db
def test_stepping_through_a_replay_reads_each_move_once(make_user, monkeypatch):
    """What each player was seen doing until a replay's step is the game's ledger at that
    version: kept, and read on from the step before."""
    players = [make_user(name) for name in ("ann", "bob", "cid", "dan")]
    game = start_game(players)
    play_random(game, 10, random.Random(8))
    read: list[int] = []
    original = ledger._Reader.move

    def counted(self, sequence, events):
        read.append(sequence)
        return original(self, sequence, events)

    monkeypatch.setattr(ledger._Reader, "move", counted)
    client = logged_in(players[0])
    for step in range(1, 11):
        assert client.get(f"/games/{game.pk}/replay/?step={step}").status_code == 200
    assert read == list(range(1, 11))
    seats = [s.engine_name for s in game.seats.order_by("position")]
    at_five = [m for m in move_log(game) if m[0] <= 5]
    assert ledger_words.kept(game.pk, at_five, seats).ledger == ledger.ledger(at_five, seats)
