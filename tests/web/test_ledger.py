"""The public ledger (games/ledger.py; in words, games/read/ledger_words.py; issue 38): its figures
for rule scenarios played as real web games, and its blindness: hidden information never changes
it and never shows in it."""

from __future__ import annotations

import random
from dataclasses import fields, is_dataclass

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import CATALOGUE, GOAL_CARDS, ROLES, TOOLS
from games.ledger import Rockfall, SeatRecord, ToolHit, ledger
from games.read.history import move_log
from games.read.ledger_words import changes_since
from tests.engine.strategies import game_specs, play
from tests.web.scenario_games import scenario_game


def seats_of(game) -> list[str]:
    return [seat.engine_name for seat in game.seats.order_by("position")]


def game_ledger(name: str):
    game, _players = scenario_game(name)
    return ledger(move_log(game), seats_of(game))


def figures(record: SeatRecord) -> dict:
    """The record's fields that are not empty (the seat's name left out)."""
    empty = SeatRecord(record.seat)
    return {
        f.name: getattr(record, f.name)
        for f in fields(record)
        if f.name != "seat" and getattr(record, f.name) != getattr(empty, f.name)
    }


# -- Figures of scenario games (engine seat "0" is the scenario's first seat, and so on) --------

SCENARIO_FIGURES = {
    "base/rockfall_removes_cut_off_card": {
        "0": {"towards": 2},
        "1": {"towards": 2},
        "2": {"rockfalls": (Rockfall("straight-ew", "0", (1, 0)),)},
        "3": {"rockfalls": (Rockfall("straight-ew", "1", (2, 0)),)},
    },
    "base/broken_tool_still_allows_actions": {
        "0": {"broke": (ToolHit("1", "lantern"),), "maps": ("south",)},
        "1": {"broke": (ToolHit("0", "cart"),), "passes": 1},
        "2": {"passes": 2},
        "3": {"passes": 2},
    },
    # Straight east from the start to the middle goal: every card brings the tunnel nearer.
    "base/variant_rivalry_repaired_tool_gets_gold": {
        "0": {"repaired": (ToolHit("0", "pickaxe"),), "passes": 1},
        "1": {"broke": (ToolHit("0", "pickaxe"),), "towards": 2},
        "2": {"towards": 3},
        "3": {"towards": 2},
    },
    # A stub against the start's east side takes the nearest open end away (a cut); a stub
    # against its north side then leaves the frontier as it was and opens nothing (a dead end).
    "base/place_dead_end_stub_against_maze": {
        "0": {"cuts": 1},
        "1": {"dead_ends": 1},
        "2": {},
        "3": {},
    },
    "saboteur2/hands_off_and_free_on_self": {
        "0": {"thefts": 1, "hands_off": ("0",), "freed": ("0",)},
        "1": {"trapped": ("0",), "passes": 1},
        "2": {},
    },
    "saboteur2/clear_discard_two_remove_in_front": {
        "0": {"cleared": ("break-pickaxe", "trapped"), "towards": 1},
        "1": {"broke": (ToolHit("0", "pickaxe"),), "trapped": ("0",), "passes": 1},
    },
    "saboteur2/doors_blue_finisher_blue_reachable": {
        "0": {"towards": 7, "doors": 1},
        "1": {},
        "2": {},
        "3": {},
    },
    "saboteur2/d9_swap_hand_other_draws": {"0": {"hand_swaps": ("1",)}, "1": {}, "2": {}},
    "saboteur2/swap_hats_on_self": {"0": {"hat_swaps": ("0",), "towards": 7}, "1": {}, "2": {}},
    "saboteur2/inspection_other_player": {"0": {"inspected": ("1",)}, "1": {}, "2": {}},
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(SCENARIO_FIGURES))
def test_the_ledger_counts_what_each_seat_did_in_a_scenario_game(name):
    found = game_ledger(name)
    assert set(found.rounds) == {1}
    assert {seat: figures(found.rounds[1][seat]) for seat in found.seats} == SCENARIO_FIGURES[name]


@pytest.mark.django_db
def test_each_round_has_its_own_records_and_thefts_name_their_victims():
    found = game_ledger("saboteur2/next_round_first_seat_and_totals")
    rounds = {
        number: {seat: figures(record) for seat, record in records.items()}
        for number, records in found.rounds.items()
    }
    assert rounds == {
        1: {
            "0": {"towards": 7},
            "1": {},
            "2": {},
            "3": {"passes": 6, "thefts": 1, "stole_from": ("0",)},
        },
        2: {
            "0": {"passes": 5, "thefts": 1, "stole_from": ("3",)},
            "1": {"towards": 7},
            "2": {},
            "3": {},
        },
    }
    assert figures(found.total("0")) == {
        "towards": 7,
        "passes": 5,
        "thefts": 1,
        "stole_from": ("3",),
    }


@pytest.mark.django_db
def test_repairs_tell_own_from_others_and_totals_add_the_rounds():
    found = game_ledger("base/variant_rivalry_repaired_tool_gets_gold")
    ann = found.total("0")
    assert (ann.repaired_own, ann.repaired_others, ann.placed) == (1, 0, 0)
    assert found.total("2").placed == 3


@pytest.mark.django_db
def test_changes_since_gives_one_line_per_player_who_did_something():
    game, _players = scenario_game("base/variant_rivalry_repaired_tool_gets_gold")
    moves = move_log(game)
    names = {"0": "Ann", "1": "Bob", "2": "Cid", "3": "Dan"}
    # After Ann's repair (the fourth move): Bob, Cid and Dan dug on, Ann passed.
    after = moves[3][0]
    with translation.override("en"):
        lines = changes_since(moves, seats_of(game), names, after)
        everything = changes_since(moves, seats_of(game), names, 0)
    assert lines == {
        "0": "Ann: passed.",
        "1": "Bob: 2 path cards towards a goal.",
        "2": "Cid: 2 path cards towards a goal.",
        "3": "Dan: 1 path card towards a goal.",
    }
    assert everything["0"] == "Ann: repaired their own pickaxe, passed."
    assert everything["1"] == "Bob: 2 path cards towards a goal, broke Ann's pickaxe."
    assert changes_since(moves, seats_of(game), names, moves[-1][0]) == {}


LINES = {
    "base/rockfall_removes_cut_off_card": {
        "0": "Ann: 2 path cards towards a goal.",
        "1": "Bob: 2 path cards towards a goal.",
        "2": "Cid: rockfall on Ann's Straight (east-west).",
        "3": "Dan: rockfall on Bob's Straight (east-west).",
    },
    "base/broken_tool_still_allows_actions": {
        "0": "Ann: broke Bob's lantern, map on the south goal.",
        "1": "Bob: broke Ann's cart, passed.",
        "2": "Cid: passed 2 times.",
        "3": "Dan: passed 2 times.",
    },
    "saboteur2/hands_off_and_free_on_self": {
        "0": "Ann: laid a theft card, hands off Ann's theft, freed Ann.",
        "1": "Bob: passed, trapped Ann.",
    },
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(LINES))
def test_changes_since_names_rockfalls_maps_and_the_saboteur_2_actions(name):
    game, _players = scenario_game(name)
    names = {"0": "Ann", "1": "Bob", "2": "Cid", "3": "Dan"}
    with translation.override("en"):
        lines = changes_since(move_log(game), seats_of(game), names, 0)
    assert lines == LINES[name]


# -- Blind by construction --------------------------------------------------------------------


def played_log(spec, rng) -> list[tuple]:
    """A random game played to the end, its events logged as the site stores them."""
    state = spec.build()
    log: list[tuple] = []

    def keep(state, seat, move, events):
        log.append((len(log) + 1, [dict(event) for event in events]))

    play(state, rng, eager=rng.random() < 0.5, on_move=keep)
    return log


def seen_by(log, viewer: str | None) -> list[tuple]:
    """The log as ``viewer`` saw it (None: a spectator): public events and their own."""
    return [
        (sequence, [e for e in events if e.get("to") in (None, viewer)]) for sequence, events in log
    ]


def hidden_twin(log, seats, rng) -> list[tuple]:
    """The same public moves over other secrets: every private event's cards, roles and peeks
    changed, and the roles and goal faces that the round end shows changed too."""
    cards, roles = sorted(CATALOGUE), sorted({r for rs in ROLES.values() for r in rs})

    def other(event):
        event = dict(event)
        if event.get("to") is not None:
            event["to"] = rng.choice(seats)
            for key, pool in (("card", cards), ("role", roles), ("target", seats)):
                if key in event:
                    event[key] = rng.choice(pool)
            if "cards" in event:
                event["cards"] = rng.sample(cards, rng.randint(0, 4))
        if event["kind"] == "round-ended":
            event["roles"] = {seat: rng.choice(roles) for seat in seats}
            event["goals"] = dict(zip(event["goals"], rng.sample(GOAL_CARDS, 3), strict=False))
        return event

    return [(sequence, [other(e) for e in events]) for sequence, events in log]


def strings_in(value) -> set[str]:
    """Every string the ledger holds, however deep."""
    if isinstance(value, str):
        return {value}
    if is_dataclass(value):
        return set().union(*(strings_in(getattr(value, f.name)) for f in fields(value)))
    if isinstance(value, dict):
        return set().union(*(strings_in(k) | strings_in(v) for k, v in value.items()))
    if isinstance(value, tuple):
        return set().union(*(strings_in(item) for item in value))
    return set()


def public_strings(log) -> set[str]:
    """The strings of the log's public events, round-end roles and goal faces left out."""
    found: set[str] = set()
    for _sequence, events in log:
        for event in events:
            if event.get("to") is None:
                shown = {k: v for k, v in event.items() if k not in ("roles", "goals", "gold")}
                found |= strings_in(shown)
                found |= {
                    s for v in shown.values() if isinstance(v, list) for s in strings_in(tuple(v))
                }
    return found


# A whole game is played per example: no deadline (the examples' count is the profile's).
@settings(deadline=None)
@given(spec=game_specs(), seed=st.integers(0, 2**32 - 1))
def test_the_ledger_is_blind_to_hidden_information(spec, seed):
    rng = random.Random(seed)
    log = played_log(spec, rng)
    seats = list(spec.seats)
    found = ledger(log, seats)
    # Whoever looks (a seat or a spectator), the same public moves over other secrets: one ledger.
    assert ledger(hidden_twin(log, seats, rng), seats) == found
    for viewer in [None, *seats]:
        assert ledger(seen_by(log, viewer), seats) == found
    # Nothing in it but seats, tools, goals and what the public events showed; never a role.
    held = strings_in(found.rounds)
    roles = {role for rs in ROLES.values() for role in rs}
    assert not held & (roles - set(seats))
    assert held <= public_strings(log) | set(seats) | set(TOOLS)
