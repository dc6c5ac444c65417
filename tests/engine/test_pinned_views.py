"""What each seat's view shows while a round's gold is shared, after it and at the game's end
(docs/rules.md 8): the gold gained only to its owner until the game ends, the seed and set-aside
cards only once the round is done, the gold supply's seed only at the end (issue 41)."""

from __future__ import annotations

import hashlib

import pytest

from games.engine import State, new_game, view_for
from games.engine.state import Placed
from games.engine.view import seed_hash
from tests.engine.test_pinned_events import (
    ROUTE,
    at_the_steal,
    gold_pick,
    play,
    theft_game,
)

ROUTE_BOARD = [
    [0, 0, "start", False],
    [1, 0, "cross", False],
    [2, 0, "cross", False],
    [3, 0, "straight-ew", False],
    [4, 0, "straight-ew", False],
    [5, 0, "t-new", False],
    [6, 0, "t-new", False],
    [7, 0, "cross", False],
    [8, -2, "goal-stone-ne", False],
    [8, 0, "goal-gold", False],
    [8, 2, "goal-stone-nw", False],
]
GOALS = {"north": "goal-stone-ne", "middle": "goal-gold", "south": "goal-stone-nw"}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_seed_hash_is_the_seeds_sha256():
    assert seed_hash("seed-0") == sha("seed-0")
    assert seed_hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_a_view_for_no_seat_of_the_game_is_refused():
    with pytest.raises(ValueError, match="^'zed' is not a seat of this game$"):
        view_for(gold_pick(), "zed")


def test_during_the_gold_pick_the_round_is_public_but_its_seed_and_gains_are_not():
    state, _ = play(gold_pick(), ("ann", {"move": "pick-gold", "value": 3}))
    bob = view_for(state, "bob")
    assert bob["decision"] == "pick-gold" and bob["to_move"] == "bob"
    assert bob["offer_count"] == 2 and bob["pickers"] == ["bob", "ann"]
    assert bob["me"]["offer"] == [1, 3]  # the picker alone sees the offer
    assert view_for(state, "ann")["me"]["offer"] == []
    assert bob["players"] == [
        {"seat": "ann", "hand_size": 7, "in_front": []},
        {"seat": "bob", "hand_size": 1, "in_front": []},
        {"seat": "cid", "hand_size": 0, "in_front": []},
    ]
    assert bob["round_ending"] == {
        "treasure_found": True,
        "finisher": "ann",
        "winners": ["ann", "bob"],
        "thefts": [],
        "roles": {"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur"},
        "goals": GOALS,
        "seed": "",
        "set_aside": [],
        "board": ROUTE_BOARD,
        "reach": {},
        "teams": [],
        "trapped": [],
        "seed_hash": sha("seed-0"),
        "gained": {},
    }
    assert view_for(state, "ann")["round_ending"]["gained"] == {"ann": 3}
    assert view_for(state)["round_ending"]["gained"] == {}
    assert view_for(state, "cid")["round_ending"]["gained"] == {}
    assert bob["rounds_done"] == [] and bob["gold_seed"] is None
    assert bob["gold_seed_hash"] == sha(state.config.gold_seed)


def test_a_round_done_shows_its_seed_and_each_seat_its_own_gain_until_the_end():
    state = gold_pick(rounds=2)
    state, _ = play(state, ("ann", {"move": "pick-gold", "value": 3}))
    state, _ = play(state, ("bob", {"move": "pick-gold", "value": 1}))
    assert state.round == 2 and state.result is None
    done = {
        "treasure_found": True,
        "finisher": "ann",
        "winners": ["ann", "bob"],
        "thefts": [],
        "roles": {"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur"},
        "goals": GOALS,
        "seed": "seed-0",
        "set_aside": state.rounds_done[0]["set_aside"],
        "board": ROUTE_BOARD,
        "reach": {},
        "teams": [],
        "trapped": [],
        "seed_hash": sha("seed-0"),
        "gained": {"bob": 1},
    }
    bob = view_for(state, "bob")
    assert bob["rounds_done"] == [done] and bob["round_ending"] is None
    assert bob["offer_count"] == 0 and bob["pickers"] == [] and bob["me"]["offer"] == []
    assert bob["seed_hash"] == sha("seed-1")
    assert view_for(state, "ann")["rounds_done"][0]["gained"] == {"ann": 6}
    assert view_for(state, "cid")["rounds_done"][0]["gained"] == {}
    assert view_for(state)["rounds_done"][0]["gained"] == {}


def test_at_the_end_everyones_gold_and_the_gold_seed_are_public():
    state, _ = play(gold_pick(), ("ann", {"move": "pick-gold", "value": 3}))
    state, _ = play(state, ("bob", {"move": "pick-gold", "value": 1}))
    assert state.finished
    public = view_for(state)
    assert [player["gold"] for player in public["players"]] == [6, 1, 0]
    assert public["rounds_done"][0]["gained"] == {"ann": 6, "bob": 1}
    assert public["gold_seed"] == state.config.gold_seed == "seed-0"
    assert public["me"] is None and public["to_move"] is None and public["finished"] is True


def test_in_saboteur2_who_has_gold_is_public_and_how_much_is_not():
    state = at_the_steal()
    assert state.decision == "steal"
    cid = view_for(state, "cid")
    assert [p["has_gold"] for p in cid["players"]] == [True, True, False]
    assert all("gold" not in p for p in cid["players"])
    assert cid["players"][0]["in_front"] == ["theft"]
    assert cid["gold_seed_hash"] is None and cid["gold_seed"] is None
    assert cid["offer_count"] == 0 and cid["pickers"] == []
    ending = cid["round_ending"]
    assert ending["reach"] == {"blue-digger": True, "green-digger": True}
    assert ending["teams"] == ["blue-digger"] and ending["trapped"] == []
    assert ending["winners"] == ["ann", "bob"] and ending["gained"] == {}
    assert view_for(state, "ann")["round_ending"]["gained"] == {"ann": state.gold[0]}


def test_the_json_form_of_a_theft_laid_names_the_seat_by_a_string():
    state = theft_game()
    state, _ = play(state, ("ann", {"move": "action", "card": "theft"}))
    data = state.to_json()
    assert data["theft_laid"] == {"0": 0}
    assert data["goals"] == {"north": [8, -2], "middle": [8, 0], "south": [8, 2]}
    again = State.from_json(data)
    assert again.theft_laid == {0: 0} and again == state


def test_a_seats_whole_view_during_the_pick():
    state, _ = play(gold_pick(rounds=2), ("ann", {"move": "pick-gold", "value": 3}))
    state.board[(1, -1)] = Placed("cross")  # laid after (1, 0): the view sorts by position
    view = view_for(state, "bob")
    assert view.pop("round_ending")["seed_hash"] == sha("seed-0")  # round 1's, not the last's
    route = [[x, 0, card] for x, card in enumerate(ROUTE, start=1)]
    assert view == {
        "ruleset": "base",
        "variants": [],
        "seats": ["ann", "bob", "cid"],
        "rounds": 2,
        "round": 1,
        "version": 14,
        "decision": "pick-gold",
        "to_move": "bob",
        "finished": False,
        "board": [
            {"x": x, "y": y, "card": card, "turned": False}
            for x, y, card in [[0, 0, "start"], [1, -1, "cross"], *route, [8, 0, "goal-gold"]]
        ],
        "goals": [
            {"name": "north", "x": 8, "y": -2, "face_down": True, "card": None},
            {"name": "middle", "x": 8, "y": 0, "face_down": False, "card": "goal-gold"},
            {"name": "south", "x": 8, "y": 2, "face_down": True, "card": None},
        ],
        "pile_count": 46,
        "discard_count": 6,
        "players": [
            {"seat": "ann", "hand_size": 7, "in_front": []},
            {"seat": "bob", "hand_size": 1, "in_front": []},
            {"seat": "cid", "hand_size": 0, "in_front": []},
        ],
        "offer_count": 2,
        "pickers": ["bob", "ann"],
        "seed_hash": sha("seed-0"),
        "gold_seed_hash": sha("seed-0:seed-1"),
        "gold_seed": None,
        "rounds_done": [],
        "me": {
            "seat": "bob",
            "hand": ["dead-ne"],
            "role": "gold-digger",
            "greedy": False,
            "peeks": {},
            "inspections": {},
            "gold": 0,
            "offer": [1, 3],
        },
    }


def test_my_view_holds_my_peeks_inspections_gold_and_whether_i_am_the_greedy_dwarf():
    state = new_game(ruleset="base", seats=["ann", "bob", "cid"], round_seeds=["s"], rounds=1,
                     variants=["greedy-dwarf"],
                     deals=[{"roles": {"ann": "gold-digger"}, "greedy": "ann"}])  # fmt: skip
    state.peeks[0] = {"north": "goal-stone-ne"}
    state.inspections[0] = {"bob": "saboteur"}
    state.gold[0] = 2
    mine = view_for(state, "ann")["me"]
    assert (mine["greedy"], mine["peeks"], mine["inspections"], mine["gold"]) == (
        True, {"north": "goal-stone-ne"}, {"bob": "saboteur"}, 2,
    )  # fmt: skip
    assert view_for(state, "bob")["me"]["greedy"] is False


def test_a_round_done_of_an_older_snapshot_shows_an_empty_recap():
    """Snapshots older than the round recaps lack the board, reach, teams and trapped."""
    state, _ = play(gold_pick(), ("ann", {"move": "pick-gold", "value": 3}))
    state, _ = play(state, ("bob", {"move": "pick-gold", "value": 1}))
    for key in ("board", "reach", "teams", "trapped"):
        state.rounds_done[0].pop(key, None)
    done = view_for(state)["rounds_done"][0]
    assert (done["board"], done["reach"], done["teams"], done["trapped"]) == ([], {}, [], [])
    state.rounds_done[0]["trapped"] = ["cid"]
    assert view_for(state)["rounds_done"][0]["trapped"] == ["cid"]


def test_a_clone_holds_every_field_and_shares_no_list_with_the_state():
    state, _ = play(gold_pick(rounds=2), ("ann", {"move": "pick-gold", "value": 3}))
    state, _ = play(state, ("bob", {"move": "pick-gold", "value": 1}))
    state.greedy, state.first_seat, state.last_turn_seat = 1, 2, 0
    state.treasure_found, state.finisher, state.finished = True, 0, True
    state.removed, state.role_discards, state.discard = ["map"], ["saboteur"], ["cross"]
    assert state.round == 2 and state.rounds_done
    clone = state.clone()
    assert clone == state and clone.to_json() == state.to_json()
    clone.discard.append("map")
    clone.rounds_done[0]["winners"].append("cid")
    assert clone.discard != state.discard and state.rounds_done[0]["winners"] == ["ann", "bob"]


def test_a_single_nugget_is_gold_others_see():
    """A player who holds one nugget has gold, as far as the others may know (mutation testing
    found ``> 0`` could be ``> 1`` unnoticed: every pinned state had players with more)."""
    state = at_the_steal()
    state.gold[:] = [0, 1, 0]
    assert [p["has_gold"] for p in view_for(state, "cid")["players"]] == [False, True, False]
