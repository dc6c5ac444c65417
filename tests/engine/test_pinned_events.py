"""The events of each move, exactly (issue 41): who did what to whom, with which card, and who
may see it (``to``: None for everyone, else the one seat). The rule scenarios check the state a
move leaves; the pages, the log, the recaps and the emails are built from these events, so an
event that lost its card, its target or its audience would go unnoticed there.
"""

from __future__ import annotations

from games.engine import IllegalMove, apply, new_game

PILE = ["cross", "t-nse", "t-new", "straight-ns", "curve-ne", "curve-nw", "straight-ew"]


def game(ruleset="saboteur2", hands=None, *, pile=PILE, roles=None, goals=None, rounds=1, **deal):
    """Seats ann, bob and cid; ann moves first; the hands and the pile's top as given."""
    deal = {"first": "ann", "hands": hands or {}, "pile": list(pile), **deal}
    if roles:
        deal["roles"] = roles
    deal["goals"] = goals or {"north": "goal-stone-ne", "middle": "goal-gold",
                              "south": "goal-stone-nw"}  # fmt: skip
    return new_game(
        ruleset=ruleset,
        seats=["ann", "bob", "cid"],
        round_seeds=[f"seed-{r}" for r in range(rounds)],
        rounds=rounds,
        deals=[deal],
    )


def play(state, *moves):
    """Apply (seat, move) pairs; return the final state and the last move's events."""
    events = []
    for seat, move in moves:
        state, events = apply(state, seat, move)
    return state, events


def drew(seat, *cards):
    return {"kind": "drew", "to": seat, "cards": list(cards)}


def action(seat, card, **what):
    return {"kind": "action", "to": None, "seat": seat, "card": card, **what}


def test_placing_a_path_card_says_who_placed_which_card_where_and_how_turned():
    state = game(hands={"ann": ["curve-ne", "straight-ew"], "bob": ["map"], "cid": ["map"]})
    state, events = play(
        state, ("ann", {"move": "place", "card": "straight-ew", "at": [1, 0], "turned": True})
    )
    assert events == [
        {"kind": "placed", "to": None, "seat": "ann", "card": "straight-ew", "at": [1, 0],
         "turned": True},
        drew("ann", "cross"),
    ]  # fmt: skip
    assert state.to_move == 1


def test_a_card_placed_without_saying_how_lies_the_right_way_up():
    """A curve from the start's east edge to the north fits only the right way up; a move
    without ``turned`` places it so, and says so."""
    state = game(hands={"ann": ["curve-nw", "map"], "bob": ["map"], "cid": ["map"]})
    state, events = play(state, ("ann", {"move": "place", "card": "curve-nw", "at": [1, 0]}))
    assert events[0] == {"kind": "placed", "to": None, "seat": "ann", "card": "curve-nw",
                         "at": [1, 0], "turned": False}  # fmt: skip
    assert state.board[(1, 0)].turned is False


def test_a_broken_tool_names_its_card_and_its_victim():
    state = game(hands={"ann": ["break-cart", "map"], "bob": ["map"], "cid": ["map"]})
    state, events = play(state, ("ann", {"move": "action", "card": "break-cart", "target": "bob"}))
    assert events == [action("ann", "break-cart", target="bob"), drew("ann", "cross")]
    assert state.in_front[1] == ["break-cart"]


def test_a_repair_names_the_mended_tool_and_whose_it_was():
    state = game(
        hands={
            "ann": ["break-lantern", "map"],
            "bob": ["map"],
            "cid": ["repair-pickaxe-lantern", "repair-lantern-cart"],
        }
    )
    state, _ = play(
        state,
        ("ann", {"move": "action", "card": "break-lantern", "target": "bob"}),
        ("bob", {"move": "pass", "discard": ["map"]}),
    )
    # No tool named: the one broken tool the card mends.
    after, events = play(
        state, ("cid", {"move": "action", "card": "repair-pickaxe-lantern", "target": "bob"})
    )
    assert events == [
        action("cid", "repair-pickaxe-lantern", target="bob"),
        {"kind": "repaired", "to": None, "target": "bob", "tool": "lantern"},
        drew("cid", "t-new"),
    ]
    assert after.in_front[1] == []
    # A tool named: it is part of what everyone sees.
    after, events = play(
        state,
        ("cid", {"move": "action", "card": "repair-lantern-cart", "target": "bob",
                 "tool": "lantern"}),
    )  # fmt: skip
    assert events[:2] == [
        action("cid", "repair-lantern-cart", target="bob", tool="lantern"),
        {"kind": "repaired", "to": None, "target": "bob", "tool": "lantern"},
    ]


def test_a_rockfall_names_the_position_it_cleared():
    state = game(hands={"ann": ["straight-ew"], "bob": ["rockfall"], "cid": ["map"]})
    state, events = play(
        state,
        ("ann", {"move": "place", "card": "straight-ew", "at": [1, 0]}),
        ("bob", {"move": "action", "card": "rockfall", "at": [1, 0]}),
    )
    assert events == [action("bob", "rockfall", at=[1, 0]), drew("bob", "t-nse")]
    assert (1, 0) not in state.board
    assert state.discard[-2:] == ["straight-ew", "rockfall"]


def test_a_map_shows_the_goal_to_its_player_alone():
    state = game(hands={"ann": ["map"], "bob": ["map"], "cid": ["map"]})
    state, events = play(state, ("ann", {"move": "action", "card": "map", "goal": "south"}))
    assert events == [
        action("ann", "map", goal="south"),
        {"kind": "peeked", "to": "ann", "goal": "south", "card": "goal-stone-nw"},
        drew("ann", "cross"),
    ]
    assert state.peeks[0] == {"south": "goal-stone-nw"}


def test_passing_tells_everyone_how_many_and_the_player_which():
    state = game(hands={"ann": ["map", "rockfall", "trapped", "free"], "bob": ["map"]})
    state, events = play(state, ("ann", {"move": "pass", "discard": ["rockfall", "map"]}))
    assert events == [
        {"kind": "passed", "to": None, "seat": "ann", "count": 2},
        {"kind": "discarded", "to": "ann", "cards": ["rockfall", "map"]},
        drew("ann", "cross", "t-nse"),
    ]
    assert state.discard[-2:] == ["rockfall", "map"]


def test_trapping_and_freeing_name_both_players():
    state = game(hands={"ann": ["trapped", "map"], "bob": ["map"], "cid": ["free", "map"]})
    state, events = play(state, ("ann", {"move": "action", "card": "trapped", "target": "bob"}))
    assert events == [action("ann", "trapped", target="bob"), drew("ann", "cross")]
    state, events = play(
        state,
        ("bob", {"move": "pass", "discard": ["map"]}),
        ("cid", {"move": "action", "card": "free", "target": "bob"}),
    )
    assert events == [action("cid", "free", target="bob"), drew("cid", "t-new")]
    assert state.in_front[1] == [] and state.discard[-2:] == ["trapped", "free"]


def test_an_inspection_shows_the_role_to_the_inspector_alone():
    roles = {"ann": "blue-digger", "bob": "saboteur", "cid": "green-digger"}
    state = game(hands={"ann": ["inspection", "map"], "bob": ["map"]}, roles=roles)
    state, events = play(state, ("ann", {"move": "action", "card": "inspection", "target": "bob"}))
    assert events == [
        action("ann", "inspection", target="bob"),
        {"kind": "inspected", "to": "ann", "target": "bob", "role": "saboteur"},
        drew("ann", "cross"),
    ]
    assert state.inspections[0] == {"bob": "saboteur"}


def test_swapped_hats_tell_the_new_role_to_its_holder_alone():
    roles = {"ann": "blue-digger", "bob": "saboteur", "cid": "green-digger"}
    state = game(
        hands={"ann": ["swap-hats", "map"], "bob": ["map"]}, roles=roles, set_aside=["boss"]
    )
    state, events = play(state, ("ann", {"move": "action", "card": "swap-hats", "target": "cid"}))
    assert events == [
        action("ann", "swap-hats", target="cid"),
        {"kind": "new-role", "to": "cid", "role": "boss"},
        drew("ann", "cross"),
    ]
    assert state.roles[2] == "boss" and state.role_discards == ["green-digger"]


def test_swapped_hands_go_each_to_its_new_holder_and_the_other_draws():
    state = game(hands={"ann": ["swap-hand", "map", "free"], "bob": ["rockfall"], "cid": ["map"]})
    state, events = play(state, ("ann", {"move": "action", "card": "swap-hand", "target": "bob"}))
    assert events == [
        action("ann", "swap-hand", target="bob"),
        {"kind": "hand-received", "to": "ann", "cards": ["rockfall"]},
        {"kind": "hand-received", "to": "bob", "cards": ["map", "free"]},
        drew("bob", "cross"),
    ]
    assert state.hands[0] == ["rockfall"] and state.hands[1] == ["map", "free", "cross"]


ROUTE = ["cross", "cross", "straight-ew", "straight-ew", "t-new", "t-new", "cross"]


def dig_to_the_treasure(state, *, first=True):
    """ann lays the route from the start to the middle goal (the treasure), one card a turn,
    while bob passes with whatever he holds (cid holds nothing)."""
    for x, card in enumerate(ROUTE, start=1):
        if not first:
            state, _ = play(state, ("bob", {"move": "pass", "discard": [state.hands[1][0]]}))
        first = False
        state, events = play(state, ("ann", {"move": "place", "card": card, "at": [x, 0]}))
    return state, events


def theft_game(bob_role="saboteur", bob_hand=("map",)):
    roles = {"ann": "blue-digger", "bob": bob_role, "cid": "green-digger"}
    hands = {"ann": ["theft", "map", "map", *ROUTE], "bob": list(bob_hand), "cid": []}
    return game(hands=hands, roles=roles, pile=["rockfall"] * 3)


def at_the_steal():
    """ann and bob, both blue diggers, each laid a Theft (bob last) and ann found the treasure:
    the thieves steal, bob first."""
    state = theft_game(bob_role="blue-digger", bob_hand=("theft",))
    state, _ = play(
        state,
        ("ann", {"move": "action", "card": "theft", "target": "ann"}),
        ("bob", {"move": "action", "card": "theft", "target": "bob"}),
    )
    state, _ = dig_to_the_treasure(state)
    return state


def gold_pick(rounds=1):
    """Base game: ann found the treasure; the offer is 3, 1 and 3; ann picks first."""
    state = game(
        "base",
        hands={"ann": list(ROUTE), "bob": ["map"], "cid": []},
        roles={"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur"},
        pile=["map"] * 5,
        gold=[3, 1, 3],
        rounds=rounds,
    )
    state, _ = dig_to_the_treasure(state)
    return state


def test_a_theft_laid_and_cleared_again_keeps_no_claim_on_the_gold():
    """A player who clears their own Theft (two cards discarded) gives up its claim: at the
    round's end, with the gold won, nobody steals."""
    state = theft_game()
    state, events = play(state, ("ann", {"move": "action", "card": "theft"}))
    assert events == [action("ann", "theft"), drew("ann", "rockfall")]
    assert state.in_front[0] == ["theft"] and state.theft_laid == {0: 0}
    state, events = play(
        state,
        ("bob", {"move": "pass", "discard": ["map"]}),
        ("ann", {"move": "clear", "discard": ["map", "map"], "remove": "theft"}),
    )
    assert events == [
        {"kind": "cleared", "to": None, "seat": "ann", "removed": "theft"},
        {"kind": "discarded", "to": "ann", "cards": ["map", "map"]},
        drew("ann", "rockfall"),
    ]
    assert state.in_front[0] == [] and state.theft_laid == {}
    assert state.discard[-3:] == ["map", "map", "theft"]
    state, events = dig_to_the_treasure(state, first=False)
    assert state.finished and state.rounds_done[0]["winners"] == ["ann"]
    assert state.rounds_done[0]["thefts"] == []
    assert not any(event["kind"] == "stole" for event in events)


def test_hands_off_takes_the_theft_and_its_claim():
    state = theft_game(bob_hand=("hands-off",))
    state, events = play(
        state,
        ("ann", {"move": "action", "card": "theft", "target": "ann"}),
        ("bob", {"move": "action", "card": "hands-off", "target": "ann"}),
    )
    assert events == [action("bob", "hands-off", target="ann"), drew("bob", "rockfall")]
    assert state.in_front[0] == [] and state.theft_laid == {}
    state, _ = play(state, ("ann", {"move": "pass", "discard": ["map"]}))
    state, _ = dig_to_the_treasure(state, first=False)
    assert state.finished and state.rounds_done[0]["thefts"] == []


def test_a_steal_says_who_stole_from_whom():
    """ann and bob, both blue diggers, hold a Theft when ann finds the treasure; bob laid his
    last, so he steals first, from ann; then ann, who declines."""
    state = theft_game(bob_role="blue-digger", bob_hand=("theft",))
    state, _ = play(
        state,
        ("ann", {"move": "action", "card": "theft", "target": "ann"}),
        ("bob", {"move": "action", "card": "theft", "target": "bob"}),
    )
    assert state.theft_laid == {0: 0, 1: 1}
    state, events = dig_to_the_treasure(state)
    assert state.decision == "steal" and state.seats[state.to_move] == "bob"
    assert [e["kind"] for e in events] == ["placed", "goal-revealed", "drew", "round-ended"]
    assert events[1] == {"kind": "goal-revealed", "to": None, "goal": "middle",
                         "card": "goal-gold", "turned": False}  # fmt: skip
    gold = list(state.gold)
    assert gold[0] > 0 and gold[1] > 0
    # A malformed steal is refused: the victim must be a seat's name or None.
    for bad in ({"move": "steal"}, {"move": "steal", "victim": "nobody"},
                {"move": "steal", "victim": 1}):  # fmt: skip
        try:
            apply(state, "bob", bad)
        except IllegalMove as refused:
            assert refused.code == "malformed"
        else:
            raise AssertionError(f"{bad} was accepted")
    state, events = play(state, ("bob", {"move": "steal", "victim": "ann"}))
    assert events == [{"kind": "stole", "to": None, "seat": "bob", "victim": "ann"}]
    assert state.gold[:2] == [gold[0] - 1, gold[1] + 1]
    assert state.decision == "steal" and state.seats[state.to_move] == "ann"
    state, events = play(state, ("ann", {"move": "steal", "victim": None}))
    assert events[0] == {"kind": "stole", "to": None, "seat": "ann", "victim": None}
    assert state.finished
    assert state.rounds_done[0]["thefts"] == [
        {"thief": "bob", "victim": "ann"},
        {"thief": "ann", "victim": None},
    ]


def test_a_rounds_end_makes_its_roles_goals_and_maze_public_then_says_who_starts_next():
    roles = {"ann": "blue-digger", "bob": "saboteur", "cid": "green-digger"}
    hands = {"ann": [*ROUTE, "map"], "bob": ["map"], "cid": []}
    state = game(hands=hands, roles=roles, pile=["rockfall"] * 3, rounds=2)
    aside = list(state.set_aside)
    state, events = dig_to_the_treasure(state)
    goals = {"north": "goal-stone-ne", "middle": "goal-gold", "south": "goal-stone-nw"}
    assert [e["kind"] for e in events] == [
        "placed", "goal-revealed", "drew", "round-ended", "round-started",
    ]  # fmt: skip
    assert events[3] == {"kind": "round-ended", "to": None, "round": 1, "treasure_found": True,
                         "roles": roles, "goals": goals}  # fmt: skip
    assert events[4] == {"kind": "round-started", "to": None, "round": 2,
                         "first": state.seats[state.to_move]}  # fmt: skip
    assert state.round == 2 and state.seats[state.to_move] == "bob"  # after ann's last turn
    done = state.rounds_done[0]
    assert done["roles"] == roles and done["goals"] == goals and done["set_aside"] == aside
    assert done["gained"] == {"ann": 5} and done["winners"] == ["ann"]
    assert done["seed"] == "seed-0" and done["finisher"] == "ann"
    # What decided it: both colours' diggers could reach the treasure (no door on the way), the
    # blue finisher's team won, nobody was trapped.
    assert done["reach"] == {"blue-digger": True, "green-digger": True}
    assert done["teams"] == ["blue-digger"] and done["trapped"] == []
    assert [0, 0, "start", False] in done["board"] and [7, 0, "cross", False] in done["board"]
    assert [8, 0, "goal-gold", False] in done["board"] and len(done["board"]) == 1 + 7 + 3
    assert done["board"] == sorted(done["board"])


def test_the_last_rounds_end_ends_the_game_with_everyones_gold():
    roles = {"ann": "blue-digger", "bob": "saboteur", "cid": "green-digger"}
    hands = {"ann": [*ROUTE, "map"], "bob": ["map"], "cid": []}
    state, events = dig_to_the_treasure(game(hands=hands, roles=roles, pile=["rockfall"] * 3))
    assert events[-1] == {"kind": "game-ended", "to": None,
                          "gold": {"ann": 5, "bob": 0, "cid": 0}}  # fmt: skip
    assert state.finished and state.to_move is None and state.decision == "game-over"
    assert state.offer == [] and state.pickers == [] and state.thieves == []


def test_each_gold_pick_tells_its_picker_the_value_and_everyone_who_took_one():
    """ann found the treasure; the offer is 3, 1 and 3; ann and bob (the gold diggers) pick in
    turn, and the last card, alone, goes without a choice."""
    state = gold_pick()
    assert state.offer == [3, 1, 3] and state.pickers == [0, 1]
    state, events = play(state, ("ann", {"move": "pick-gold", "value": 3}))
    assert events == [
        {"kind": "gold-picked", "to": "ann", "value": 3},
        {"kind": "gold-taken", "to": None, "seat": "ann"},
    ]
    state, events = play(state, ("bob", {"move": "pick-gold", "value": 1}))
    assert events[:4] == [
        {"kind": "gold-picked", "to": "bob", "value": 1},
        {"kind": "gold-taken", "to": None, "seat": "bob"},
        {"kind": "gold-picked", "to": "ann", "value": 3},
        {"kind": "gold-taken", "to": None, "seat": "ann"},
    ]
    assert state.gold == [6, 1, 0] and state.rounds_done[0]["gained"] == {"ann": 6, "bob": 1}
