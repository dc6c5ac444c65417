"""Round ends pinned where the rule scenarios left room (docs/testing.md, "to pin next"): a last
draw that empties the pile, the saboteurs' pay from the old mine, a theft from a player with one
gold, gains of one, and a rigged round dealt no cards at all."""

from __future__ import annotations

from games.engine import apply, new_game, view_for
from tests.engine.test_pinned_events import game, play

FIVE = ["ann", "bob", "cid", "dan", "eve"]


def test_a_pass_draws_what_is_left_of_the_pile_and_says_so():
    state = game(hands={"ann": ["map", "map", "cross"], "bob": ["map"], "cid": ["map"]})
    state.pile = ["rockfall"]
    state, events = play(state, ("ann", {"move": "pass", "discard": ["map", "map"]}))
    assert events == [
        {"kind": "passed", "to": None, "seat": "ann", "count": 2},
        {"kind": "discarded", "to": "ann", "cards": ["map", "map"]},
        {"kind": "drew", "to": "ann", "cards": ["rockfall"]},
    ]
    assert state.hands[0] == ["cross", "rockfall"] and state.pile == []


ROUND_TWO = {"ann": "gold-digger", "bob": "saboteur", "cid": "saboteur", "dan": "gold-digger",
             "eve": "gold-digger"}  # fmt: skip


def test_saboteurs_take_the_old_mines_cards_from_the_top_until_exactly_their_pay():
    """Decision D8, with the old mine's cards of 0: two saboteurs are paid 3 each. Ann takes 2,
    puts the 3 (too much) under the supply, takes the 0 and the 1; bob takes the next 3. In
    round 2, with no cards dealt at all, the round ends at once: bob and cid, its saboteurs,
    take 2 and 1, then 3."""
    roles = {"ann": "saboteur", "bob": "saboteur", "cid": "gold-digger", "dan": "gold-digger",
             "eve": "gold-digger"}  # fmt: skip
    top = [2, 3, 0, 1, 3, 2, 1]
    rest = [3] * 4 + [2] * 8 + [1] * 10 + [0] * 6
    for value in top:
        rest.remove(value)
    state = new_game(
        ruleset="base",
        seats=list(FIVE),
        variants=["old-mine"],
        rounds=2,
        round_seeds=["a", "b"],
        deals=[
            {"first": "ann", "roles": roles, "hands": {s: ["map"] for s in FIVE},
             "gold": top + rest},
            {"hands": {s: [] for s in FIVE}, "roles": ROUND_TWO},
        ],
    )  # fmt: skip
    state.pile = []
    for seat in FIVE:
        state, events = apply(state, seat, {"move": "pass", "discard": ["map"]})
    assert [e["kind"] for e in events] == [
        "passed", "discarded", "round-ended", "round-ended", "game-ended",
    ]  # fmt: skip
    assert events[3]["round"] == 2 and events[3]["treasure_found"] is False
    assert events[4]["gold"] == {"ann": 3, "bob": 6, "cid": 3, "dan": 0, "eve": 0}
    first, second = state.rounds_done
    assert first["winners"] == ["ann", "bob"] and first["gained"] == {"ann": 3, "bob": 3}
    assert second["winners"] == ["bob", "cid"] and second["gained"] == {"bob": 3, "cid": 3}
    assert state.gold_supply == [3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 3]


def test_a_thief_steals_from_a_player_holding_a_single_gold():
    """Ann (blue) laid a Theft and finds the treasure over a crystal: she wins 5, bob the
    geologist is paid 1 for the crystal (a gain of 1 is kept in the round's result), and ann may
    steal it."""
    route = ["crystal-cross", "cross", "straight-ew", "straight-ew", "t-new", "t-new", "cross"]
    roles = {"ann": "blue-digger", "bob": "geologist", "cid": "green-digger"}
    state = game(
        hands={"ann": ["theft", *route], "bob": ["map"] * 6 + ["swap-hand"] * 2, "cid": []},
        roles=roles,
        pile=["rockfall"] * 3,
    )
    state, _ = play(state, ("ann", {"move": "action", "card": "theft", "target": "ann"}))
    for x, card in enumerate(route, start=1):
        state, _ = play(state, ("bob", {"move": "pass", "discard": [state.hands[1][0]]}))
        state, _ = play(state, ("ann", {"move": "place", "card": card, "at": [x, 0]}))
    assert state.decision == "steal" and state.to_move == 0
    assert state.gold == [5, 1, 0] and state.result["gained"] == {"ann": 5, "bob": 1}
    assert [p["has_gold"] for p in view_for(state, "cid")["players"]] == [True, True, False]
    state, events = play(state, ("ann", {"move": "steal", "victim": "bob"}))
    assert events == [
        {"kind": "stole", "to": None, "seat": "ann", "victim": "bob"},
        {"kind": "game-ended", "to": None, "gold": {"ann": 6, "bob": 0, "cid": 0}},
    ]
    assert state.rounds_done[0]["gained"] == {"ann": 5, "bob": 1}
    assert state.rounds_done[0]["thefts"] == [{"thief": "ann", "victim": "bob"}]


def test_a_saboteur_paid_only_a_card_of_0_gains_nothing_in_the_rounds_result():
    """Late in an old-mine game the supply may hold nothing but a 0: the saboteur takes it, and
    the round's result records no gain of 0."""
    roles = {"ann": "saboteur", "bob": "gold-digger", "cid": "gold-digger"}
    state = new_game(
        ruleset="base",
        seats=list(roles),
        variants=["old-mine"],
        rounds=1,
        round_seeds=["a"],
        deals=[{"first": "ann", "roles": roles, "hands": {s: ["map"] for s in roles}}],
    )
    state.pile, state.gold_supply = [], [0]
    for seat in roles:
        state, events = play(state, (seat, {"move": "pass", "discard": ["map"]}))
    assert state.finished and state.rounds_done[0]["winners"] == ["ann"]
    assert state.rounds_done[0]["gained"] == {} and state.gold_supply == []
    assert events[-1]["gold"] == {"ann": 0, "bob": 0, "cid": 0}
