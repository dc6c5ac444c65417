"""Every malformed move is refused with its reason code and its message (issue 41).

A move may come from anywhere (a form, a link, a file): each way it can be ill-formed has a
check, and each check its code (``malformed`` and the others of docs/rules.md 9) and words, which
the page shows. A refused move changes nothing.
"""

from __future__ import annotations

import pytest

from games.engine import IllegalMove, apply
from games.engine.errors import REASONS
from tests.engine.test_pinned_events import (
    at_the_steal,
    dig_to_the_treasure,
    game,
    play,
)

POSITION = "A position is two whole numbers."
TARGET = "The move needs a target player."
DISCARD = "'discard' lists cards from your hand."
GOALS = "'goal_turned' maps goal names to true or false."


def refusal(state, seat, move) -> tuple[str, str]:
    before = state.to_json()
    with pytest.raises(IllegalMove) as refused:
        apply(state, seat, move)
    assert state.to_json() == before
    assert str(refused.value) == f"{refused.value.code}: {refused.value.message}"
    return refused.value.code, refused.value.message


def turn():
    """ann's turn in a saboteur2 game; bob's tools: a broken lantern and a broken pickaxe."""
    state = game(
        hands={
            "ann": ["cross", "map", "rockfall", "repair-pickaxe-lantern", "break-cart",
                    "theft"],
            "bob": ["break-lantern", "map"],
            "cid": ["break-pickaxe", "map"],
        }
    )  # fmt: skip
    state, _ = play(
        state,
        ("ann", {"move": "pass", "discard": ["theft"]}),
        ("bob", {"move": "action", "card": "break-lantern", "target": "bob"}),
        ("cid", {"move": "action", "card": "break-pickaxe", "target": "bob"}),
    )
    assert state.seats[state.to_move] == "ann"
    return state


MALFORMED = [
    # The move itself.
    ("a list", ["place"], "Unknown move."),
    ("no kind", {"card": "cross"}, "Unknown move."),
    ("an unknown kind", {"move": "dig"}, "Unknown move."),
    ("a base game's kind", {"move": "pick-gold", "value": 1}, "Unknown move."),
    # Placing a path card.
    ("no card", {"move": "place", "at": [1, 0]}, "Unknown card."),
    ("a card not of the game", {"move": "place", "card": "ace", "at": [1, 0]}, "Unknown card."),
    ("a card that is no name", {"move": "place", "card": 7, "at": [1, 0]}, "Unknown card."),
    ("no position", {"move": "place", "card": "cross"}, POSITION),
    ("a position as text", {"move": "place", "card": "cross", "at": "1,0"}, POSITION),
    ("three numbers", {"move": "place", "card": "cross", "at": [1, 0, 0]}, POSITION),
    ("a fraction", {"move": "place", "card": "cross", "at": [1.0, 0]}, POSITION),
    ("a truth value", {"move": "place", "card": "cross", "at": [1, False]}, POSITION),
    ("turned as text", {"move": "place", "card": "cross", "at": [1, 0], "turned": "yes"},
     "'turned' is true or false."),
    ("turned as a number", {"move": "place", "card": "cross", "at": [1, 0], "turned": 1},
     "'turned' is true or false."),
    ("goal choices as a list",
     {"move": "place", "card": "cross", "at": [1, 0], "goal_turned": ["north"]}, GOALS),
    ("a goal that is not one",
     {"move": "place", "card": "cross", "at": [1, 0], "goal_turned": {"east": True}}, GOALS),
    ("a goal choice as a number",
     {"move": "place", "card": "cross", "at": [1, 0], "goal_turned": {"north": 1}}, GOALS),
    # Actions.
    ("an action without a card", {"move": "action", "target": "bob"}, "Unknown card."),
    ("a break without a target", {"move": "action", "card": "break-cart"}, TARGET),
    ("a target that is no name", {"move": "action", "card": "break-cart", "target": 1}, TARGET),
    ("a repair of a tool the card does not mend",
     {"move": "action", "card": "repair-pickaxe-lantern", "target": "bob", "tool": "cart"},
     "This card does not repair that tool."),
    ("a two-tool repair of two broken tools, none named",
     {"move": "action", "card": "repair-pickaxe-lantern", "target": "bob"},
     "Name the tool to repair."),
    ("a map without a goal", {"move": "action", "card": "map"},
     "Name a goal: north, middle or south."),
    ("a map of a goal that is not one", {"move": "action", "card": "map", "goal": "east"},
     "Name a goal: north, middle or south."),
    ("a rockfall without a position", {"move": "action", "card": "rockfall"}, POSITION),
    ("a rockfall at a position as text", {"move": "action", "card": "rockfall", "at": "0,0"},
     POSITION),
    # Passing and clearing.
    ("a pass without cards", {"move": "pass"}, DISCARD),
    ("a pass of a card as text", {"move": "pass", "discard": "map"}, DISCARD),
    ("a pass of a card not of the game", {"move": "pass", "discard": ["ace"]}, DISCARD),
    ("a clear without cards", {"move": "clear", "remove": "theft"}, DISCARD),
    ("a clear of nothing named", {"move": "clear", "discard": ["map", "cross"]},
     "'remove' names a card lying in front of you."),
    ("a clear of a card not of the game",
     {"move": "clear", "discard": ["map", "cross"], "remove": "ace"},
     "'remove' names a card lying in front of you."),
]  # fmt: skip


@pytest.mark.parametrize(("case", "move", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_each_malformed_move_is_refused_with_its_words(case, move, message):
    assert refusal(turn(), "ann", move) == ("malformed", message)


def test_an_unknown_player_is_refused_before_anything_else():
    state = turn()
    assert refusal(state, "nobody", {"move": "pass", "discard": ["map"]}) == (
        "malformed",
        "Unknown player.",
    )
    assert refusal(state, "", {"move": "pass", "discard": ["map"]})[1] == "Unknown player."
    # An unknown move by an unknown player: the move is judged first.
    assert refusal(state, "nobody", {"move": "dig"}) == ("malformed", "Unknown move.")


def test_the_other_refusals_carry_their_codes_and_the_standard_words():
    state = turn()
    cases = [
        ("bob", {"move": "pass", "discard": ["map"]}, "not-your-decision"),
        ("ann", {"move": "steal", "victim": None}, "not-your-decision"),
        ("ann", {"move": "pass", "discard": ["free"]}, "not-in-hand"),
        ("ann", {"move": "pass", "discard": []}, "wrong-count"),
        ("ann", {"move": "place", "card": "map", "at": [1, 0]}, "wrong-card"),
        ("ann", {"move": "action", "card": "cross", "target": "bob"}, "wrong-card"),
        ("ann", {"move": "place", "card": "cross", "at": [0, 0]}, "occupied"),
        ("ann", {"move": "place", "card": "cross", "at": [3, 0]}, "no-neighbour"),
        ("ann", {"move": "action", "card": "break-cart", "target": "dan"}, "bad-target"),
        ("ann", {"move": "action", "card": "rockfall", "at": [0, 0]}, "bad-position"),
        ("ann", {"move": "clear", "discard": ["map", "cross"], "remove": "theft"},
         "not-in-front"),
        ("ann", {"move": "clear", "discard": ["map"], "remove": "break-cart"}, "wrong-count"),
    ]  # fmt: skip
    for seat, move, code in cases:
        assert refusal(state, seat, move) == (code, REASONS[code]), move


def test_a_steal_and_a_gold_pick_are_refused_when_ill_formed():
    state = at_the_steal()
    assert state.decision == "steal"
    assert refusal(state, "bob", {"move": "steal"}) == ("malformed", "Name a victim, or none.")
    for victim in ("dan", 1, ["ann"]):
        assert refusal(state, "bob", {"move": "steal", "victim": victim}) == (
            "malformed",
            "Unknown victim.",
        )
    assert refusal(state, "bob", {"move": "steal", "victim": "bob"})[0] == "bad-victim"
    assert refusal(state, "bob", {"move": "steal", "victim": "cid"})[0] == "bad-victim"
    assert refusal(state, "ann", {"move": "steal", "victim": "bob"})[0] == "not-your-decision"
    assert refusal(state, "bob", {"move": "pass", "discard": ["map"]})[0] == "not-your-decision"

    base = game(
        "base",
        hands={"ann": ["cross", "cross", "straight-ew", "straight-ew", "t-new", "t-new", "cross"],
               "bob": ["map"], "cid": []},
        roles={"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur"},
        pile=["map"] * 5,
        gold=[3, 1, 3],
    )  # fmt: skip
    base, _ = dig_to_the_treasure(base)
    assert base.decision == "pick-gold"
    for value in ("3", 3.0, None):
        assert refusal(base, "ann", {"move": "pick-gold", "value": value}) == (
            "malformed",
            "'value' is a whole number.",
        )
    assert refusal(base, "ann", {"move": "pick-gold", "value": 2}) == (
        "bad-pick",
        REASONS["bad-pick"],
    )
    assert refusal(base, "ann", {"move": "steal", "victim": None}) == (
        "malformed",
        "Unknown move.",
    )


def test_the_expansions_cards_are_unknown_in_the_base_game():
    state = game("base", hands={"ann": ["map", "cross"], "bob": ["map"], "cid": ["map"]})
    assert refusal(state, "ann", {"move": "action", "card": "theft"}) == (
        "malformed",
        "Unknown card.",
    )
    assert refusal(state, "ann", {"move": "place", "card": "bridge", "at": [1, 0]}) == (
        "malformed",
        "Unknown card.",
    )
    assert refusal(state, "ann", {"move": "pass", "discard": ["theft"]}) == ("malformed", DISCARD)


def test_a_clear_of_cards_one_does_not_hold_is_refused():
    state = turn()
    ann = state.hands[0]
    assert "free" not in ann and "theft" not in ann
    state, _ = play(
        state,
        ("ann", {"move": "action", "card": "break-cart", "target": "ann"}),
        ("bob", {"move": "pass", "discard": [state.hands[1][0]]}),
        ("cid", {"move": "pass", "discard": [state.hands[2][0]]}),
    )
    move = {"move": "clear", "discard": ["free", "free"], "remove": "break-cart"}
    assert refusal(state, "ann", move) == ("not-in-hand", REASONS["not-in-hand"])
