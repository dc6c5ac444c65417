"""Legal move lists pinned move by move (issue 41): the steals a thief may choose, the passes and
clears of a turn (``discard_moves``, the list the page's discard form offers), the cards a seat
may play, and the empty lists of a seat whose decision it is not. The property tests prove the
lists exact over random games; these name the lists in a few positions.
"""

from __future__ import annotations

from games.engine import discard_moves, legal_moves, playable_cards, playable_on_turn
from tests.engine.test_pinned_events import (
    at_the_steal,
    dig_to_the_treasure,
    game,
    play,
)


def test_a_thief_may_steal_from_each_other_player_with_gold_or_from_nobody():
    state = at_the_steal()
    assert state.decision == "steal" and state.gold[2] == 0  # cid has nothing to steal
    assert legal_moves(state, "bob") == [
        {"move": "steal", "victim": None},
        {"move": "steal", "victim": "ann"},
    ]
    assert legal_moves(state, "bob", card="theft") == []  # a steal plays no card
    # Nobody else decides now, and a steal is no turn: nothing to discard or play.
    assert legal_moves(state, "ann") == [] and legal_moves(state, "cid") == []
    assert discard_moves(state, "bob") == [] and playable_cards(state, "bob") == set()
    state, _ = play(state, ("bob", {"move": "steal", "victim": "ann"}))
    assert legal_moves(state, "ann") == [
        {"move": "steal", "victim": None},
        {"move": "steal", "victim": "bob"},
    ]


def test_the_discards_of_a_saboteur2_turn_are_passes_of_one_to_three_and_clears():
    state = game(hands={"ann": ["theft", "map", "rockfall"], "bob": ["map"]})
    state, _ = play(
        state,
        ("ann", {"move": "action", "card": "theft"}),
        ("bob", {"move": "pass", "discard": ["map"]}),
    )
    state, _ = play(state, ("cid", {"move": "pass", "discard": [state.hands[2][0]]}))
    hand = sorted(state.hands[0])
    assert hand == ["cross", "map", "rockfall"]
    assert discard_moves(state, "ann") == [
        {"move": "pass", "discard": ["cross"]},
        {"move": "pass", "discard": ["map"]},
        {"move": "pass", "discard": ["rockfall"]},
        {"move": "pass", "discard": ["cross", "map"]},
        {"move": "pass", "discard": ["cross", "rockfall"]},
        {"move": "pass", "discard": ["map", "rockfall"]},
        {"move": "pass", "discard": ["cross", "map", "rockfall"]},
        {"move": "clear", "discard": ["cross", "map"], "remove": "theft"},
        {"move": "clear", "discard": ["cross", "rockfall"], "remove": "theft"},
        {"move": "clear", "discard": ["map", "rockfall"], "remove": "theft"},
    ]
    # The same moves close the full list; only ann may discard now.
    assert legal_moves(state, "ann")[-10:] == discard_moves(state, "ann")
    assert discard_moves(state, "bob") == [] and discard_moves(state, "nobody") == []


def test_the_discards_of_a_base_turn_are_passes_of_one_card():
    state = game("base", hands={"ann": ["map", "cross", "map"], "bob": ["map"], "cid": ["map"]})
    assert discard_moves(state, "ann") == [
        {"move": "pass", "discard": ["cross"]},
        {"move": "pass", "discard": ["map"]},
    ]


def test_playable_cards_are_the_cards_a_legal_move_plays_and_only_on_ones_turn():
    state = game(hands={"ann": ["cross", "rockfall", "free", "map"], "bob": ["map", "cross"]})
    # Nothing lies on the maze to clear and nobody is trapped: the cross and the map only.
    assert playable_cards(state, "ann") == {"cross", "map"}
    assert playable_cards(state, "bob") == set()  # not bob's turn
    assert playable_cards(state, "nobody") == set()
    assert legal_moves(state, "bob") == [] and legal_moves(state, "nobody") == []
    assert legal_moves(state, "ann", card="map") == [
        {"move": "action", "card": "map", "goal": "north"},
        {"move": "action", "card": "map", "goal": "middle"},
        {"move": "action", "card": "map", "goal": "south"},
    ]
    assert legal_moves(state, "ann", card="free") == []
    state, _ = play(state, ("ann", {"move": "place", "card": "cross", "at": [1, 0]}))
    assert playable_cards(state, "bob") == {"cross", "map"}
    assert playable_cards(state, "ann") == set()
    # A trapped player plays no path card, but still actions.
    state = game(hands={"ann": ["trapped", "map"], "bob": ["cross", "map", "free"]})
    state, _ = play(state, ("ann", {"move": "action", "card": "trapped", "target": "bob"}))
    assert playable_cards(state, "bob") == {"map", "free"}
    assert [m for m in legal_moves(state, "bob") if m["move"] == "place"] == []


def test_a_waiting_hand_shows_what_would_be_playable_on_its_turn():
    state = game(hands={"ann": ["cross", "map"], "bob": ["map", "cross", "free", "rockfall"]})
    # Ann's turn: hers as playable_cards says; Bob's as if it were his (the maze as it is), and
    # the state untouched.
    assert playable_on_turn(state, "ann") == playable_cards(state, "ann") == {"cross", "map"}
    assert playable_on_turn(state, "bob") == {"map", "cross"} and state.to_move == 0
    assert playable_on_turn(state, "nobody") == set()
    # Trapped, Bob could play his map and his free card, not his cross.
    trapped = game(hands={"ann": ["trapped", "map"], "bob": ["cross", "map", "free"]})
    trapped, _ = play(trapped, ("ann", {"move": "action", "card": "trapped", "target": "bob"}))
    assert playable_on_turn(trapped, "bob") == playable_cards(trapped, "bob") == {"map", "free"}
    # Outside a turn to play cards (a gold pick, the game over): nothing.
    picking = state.clone()
    picking.decision = "pick-gold"
    assert playable_on_turn(picking, "ann") == playable_on_turn(picking, "bob") == set()
    over = state.clone()
    over.finished = True
    assert playable_on_turn(over, "bob") == set()


def test_a_gold_pick_offers_each_value_once_and_nothing_else():
    state = game(
        "base",
        hands={"ann": ["cross", "cross", "straight-ew", "straight-ew", "t-new", "t-new", "cross"],
               "bob": ["map"], "cid": []},
        roles={"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur"},
        pile=["map"] * 5,
        gold=[3, 1, 3],
    )  # fmt: skip
    state, _ = dig_to_the_treasure(state)
    assert state.decision == "pick-gold" and state.seats[state.to_move] == "ann"
    assert legal_moves(state, "ann") == [
        {"move": "pick-gold", "value": 1},
        {"move": "pick-gold", "value": 3},
    ]
    assert legal_moves(state, "ann", card="cross") == []
    assert legal_moves(state, "bob") == [] and discard_moves(state, "ann") == []
    assert playable_cards(state, "ann") == set()


def test_each_action_cards_moves_name_every_fitting_target_position_goal_and_tool():
    """ann's turn; a cross lies at (1, 0); bob broke his own lantern and cid trapped him."""
    hand = [
        "rockfall",
        "break-cart",
        "repair-pickaxe-lantern",
        "repair-cart",
        "repair-lantern",
        "theft",
        "trapped",
        "free",
        "inspection",
        "swap-hats",
        "swap-hand",
        "hands-off",
        "cross",
    ]
    state = game(hands={"ann": hand, "bob": ["break-lantern", "map"], "cid": ["trapped", "map"]})
    state, _ = play(
        state,
        ("ann", {"move": "place", "card": "cross", "at": [1, 0]}),
        ("bob", {"move": "action", "card": "break-lantern", "target": "bob"}),
        ("cid", {"move": "action", "card": "trapped", "target": "bob"}),
    )  # fmt: skip

    def moves(card):
        return legal_moves(state, "ann", card=card)

    def aimed(card, *targets):
        return [{"move": "action", "card": card, "target": t} for t in targets]

    assert moves("rockfall") == [{"move": "action", "card": "rockfall", "at": [1, 0]}]
    assert moves("break-cart") == aimed("break-cart", "ann", "bob", "cid")
    assert moves("repair-pickaxe-lantern") == [
        {"move": "action", "card": "repair-pickaxe-lantern", "target": "bob", "tool": "lantern"}
    ]
    assert moves("repair-cart") == []
    # A one-tool repair names no tool.
    assert moves("repair-lantern") == aimed("repair-lantern", "bob")
    assert moves("theft") == aimed("theft", "ann")
    assert moves("trapped") == aimed("trapped", "cid")
    assert moves("free") == aimed("free", "bob")
    assert moves("inspection") == aimed("inspection", "bob", "cid")
    assert moves("swap-hats") == aimed("swap-hats", "ann", "bob", "cid")
    assert moves("swap-hand") == aimed("swap-hand", "bob", "cid")
    assert moves("hands-off") == []
    # The whole list: the placements, then each action card's moves, then the discards.
    every = legal_moves(state, "ann")
    actions = [m for m in every if m["move"] == "action"]
    assert actions == [
        m for card in sorted(set(hand)) for m in moves(card) if m["move"] == "action"
    ]
    assert every[len(every) - len(discard_moves(state, "ann")) :] == discard_moves(state, "ann")
    placements = [m for m in every if m["move"] == "place"]
    assert placements == moves("cross") and placements
    assert {"move": "place", "card": "cross", "at": [2, 0], "turned": False} in placements
    assert all(m["card"] == "cross" for m in placements)
    # A cross fits both ways round: each position twice, turned and not, no move twice.
    assert {"move": "place", "card": "cross", "at": [2, 0], "turned": True} in placements
    assert len({(tuple(m["at"]), m["turned"]) for m in placements}) == len(placements)
    assert sum(m["turned"] for m in placements) * 2 == len(placements)
    assert playable_cards(state, "ann") == {
        "rockfall", "break-cart", "repair-pickaxe-lantern", "repair-lantern", "theft",
        "trapped", "free", "inspection", "swap-hats", "swap-hand", "cross",
    }  # fmt: skip
