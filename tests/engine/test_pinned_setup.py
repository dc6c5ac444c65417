"""Dealing, pinned (docs/rules.md 4.1, 5, 7.5): what a round's seed deals, the role cards and hand
sizes by player count, rigged deals, and the code and words of every malformed deal."""

from __future__ import annotations

import pytest

from games.engine import new_game
from games.engine.errors import BadSetup
from games.engine.setup import card_known, deal_round, hand_size, role_cards

FIVE = ["ann", "bob", "cid", "dan", "eve"]


def goal_cards(state) -> dict[str, str]:
    return {name: state.board[pos].card for name, pos in state.goals.items()}


def base_game():
    return new_game(
        ruleset="base",
        seats=list(FIVE),
        round_seeds=["s1", "s2"],
        rounds=2,
        variants=["greedy-dwarf", "old-mine"],
    )


def test_a_base_round_seed_deals_these_roles_goals_hands_and_gold():
    state = base_game()
    assert state.roles == ["gold-digger", "saboteur", "gold-digger", "saboteur", "gold-digger"]
    assert state.set_aside == ["gold-digger"]
    assert goal_cards(state) == {
        "north": "goal-stone-nw",
        "middle": "goal-stone-ne",
        "south": "goal-gold",
    }
    assert all(state.board[pos].face_down for pos in state.goals.values())
    assert state.board[(0, 0)].card == "start" and len(state.board) == 4
    assert state.hands == [
        ["dead-ew", "straight-ew", "t-new", "curve-nw", "break-cart", "cross"],
        ["rockfall", "straight-ew", "cross", "break-pickaxe", "repair-lantern", "straight-ns"],
        ["t-nse", "dead-ne", "straight-ns", "dead-nesw", "t-new", "break-lantern"],
        ["dead-nw", "break-cart", "map", "curve-ne", "t-new", "map"],
        ["dead-new", "rockfall", "t-nse", "repair-lantern-cart", "dead-ns", "repair-cart"],
    ]
    assert state.pile[:5] == ["map", "t-nse", "curve-ne", "map", "break-lantern"]
    assert len(state.pile) == 67 - 5 * 6 and state.removed == []
    assert state.first_seat == 4 and state.to_move == 4 and state.greedy == 2
    # The old mine's supply: six cards of 0 among the 28, shuffled by the gold seed.
    assert state.gold_supply == [2, 1, 1, 2, 0, 0, 2, 1, 1, 3, 0, 1, 1, 2, 1, 0, 3, 2, 0, 1, 1,
                                 2, 2, 3, 1, 3, 2, 0]  # fmt: skip
    assert state.decision == "turn" and state.discard == [] and state.theft_laid == {}
    assert state.in_front == [[]] * 5 and state.peeks == [{}] * 5


def test_a_later_round_is_dealt_afresh_from_its_own_seed_and_keeps_the_gold_supply():
    state = base_game()
    later = state.clone()
    later.round = 2
    later.in_front[0].append("break-cart")
    later.peeks[0]["north"] = "goal-gold"
    later.theft_laid = {0: 1}
    later.treasure_found, later.finisher, later.last_turn_seat = True, 0, 3
    later.offer, later.pickers, later.thieves = [3], [0], [1]
    later.decision = "pick-gold"
    deal_round(later, previous_first=state.first_seat)
    assert later.roles == ["saboteur", "gold-digger", "gold-digger", "saboteur", "gold-digger"]
    assert goal_cards(later) == {
        "north": "goal-gold",
        "middle": "goal-stone-ne",
        "south": "goal-stone-nw",
    }
    assert later.hands[0] == [
        "break-pickaxe", "straight-ns", "curve-ne", "cross", "repair-lantern", "break-lantern",
    ]  # fmt: skip
    assert later.pile[:3] == ["break-pickaxe", "straight-ew", "straight-ew"]
    assert len(later.pile) == 37
    assert later.first_seat == 4 and later.greedy == 1  # the first seat as the caller says
    assert later.gold_supply == state.gold_supply
    # Everything of the round before is cleared.
    assert later.in_front == [[]] * 5 and later.peeks == [{}] * 5 and later.inspections == [{}] * 5
    assert later.theft_laid == {} and later.role_discards == [] and later.discard == []
    assert (later.treasure_found, later.finisher, later.last_turn_seat) == (False, None, None)
    assert (later.offer, later.pickers, later.thieves) == ([], [], [])
    assert later.result is None and later.decision == "turn"
    drawn = state.clone()
    drawn.round = 2
    deal_round(drawn, previous_first=None)
    assert drawn.first_seat == 2  # no previous first seat: drawn from the round's seed


def test_a_saboteur2_round_seed_sets_ten_cards_aside_and_no_gold():
    state = new_game(ruleset="saboteur2", seats=["ann", "bob", "cid"], round_seeds=["s1"], rounds=1)
    assert state.roles == ["green-digger", "saboteur", "profiteer"] and len(state.set_aside) == 12
    assert state.removed == [
        "repair-lantern", "dead-nw", "t-nse", "straight-ew", "repair-pickaxe", "crystal-ew-s",
        "crystal-cross", "break-pickaxe", "door-blue-en", "cross",
    ]  # fmt: skip
    assert state.hands[0] == [
        "break-cart", "dead-nse", "swap-hats", "rockfall", "curve-nw", "break-pickaxe",
    ]  # fmt: skip
    assert len(state.pile) == 111 - 10 - 3 * 6 and state.gold_supply == [] and state.greedy is None


def test_a_rigged_deal_puts_what_it_names_first_and_deals_the_rest_from_the_seed():
    deal = {
        "treasure": "north",
        "roles": {"ann": "boss"},
        "set_aside": ["profiteer"],
        "hands": {"bob": ["theft"]},
        "pile": ["map", "free"],
        "first": "cid",
        "comment": "ignored",
        "description": "ignored too",
    }
    state = new_game(
        ruleset="saboteur2", seats=["ann", "bob", "cid"], round_seeds=["s1"], rounds=1, deals=[deal]
    )
    assert state.roles[0] == "boss" and state.set_aside[0] == "profiteer"
    assert len(state.set_aside) == 15 - 3
    assert goal_cards(state) == {
        "north": "goal-gold",
        "middle": "goal-stone-ne",
        "south": "goal-stone-nw",
    }
    assert state.hands[1] == ["theft"] and len(state.hands[0]) == 6
    assert state.pile[:2] == ["map", "free"] and len(state.pile) == 111 - 10 - 6 - 1 - 6
    assert state.first_seat == 2 and state.to_move == 2


def test_a_rigged_gold_supply_and_greedy_dwarf():
    state = new_game(
        ruleset="base",
        seats=["ann", "bob", "cid"],
        round_seeds=["s"],
        rounds=1,
        variants=["greedy-dwarf"],
        deals=[{"roles": {"ann": "gold-digger"}, "greedy": "ann", "gold": [3, 3, 1]}],
    )
    assert state.greedy == 0
    assert state.gold_supply[:3] == [3, 3, 1] and sorted(state.gold_supply) == sorted(
        [3] * 4 + [2] * 8 + [1] * 16
    )


@pytest.mark.parametrize(
    ("players", "saboteurs", "diggers", "fewer_diggers", "hand"),
    [(3, 1, 3, 2, 6), (4, 1, 4, 3, 6), (5, 2, 4, 3, 6), (6, 2, 5, 4, 5), (7, 3, 5, 4, 5),
     (8, 3, 6, 5, 4), (9, 3, 7, 6, 4), (10, 4, 7, 6, 4)],
)  # fmt: skip
def test_base_role_cards_and_hand_size_by_players(players, saboteurs, diggers, fewer_diggers, hand):
    cards = role_cards("base", players, [])
    assert cards == ["saboteur"] * saboteurs + ["gold-digger"] * diggers
    # The max-saboteurs variant takes one gold digger out.
    assert role_cards("base", players, ["max-saboteurs"]).count("gold-digger") == fewer_diggers
    assert hand_size("base", players) == hand


def test_saboteur2_role_cards_and_hand_size():
    assert role_cards("saboteur2", 4, []) == (
        ["blue-digger"] * 4 + ["green-digger"] * 4 + ["boss"] + ["geologist"] * 2
        + ["profiteer"] + ["saboteur"] * 3
    )  # fmt: skip
    assert hand_size("saboteur2", 2) == hand_size("saboteur2", 12) == 6


def test_card_known_is_a_card_of_the_rule_sets_deck():
    assert card_known("base", "map") and card_known("saboteur2", "theft")
    assert not card_known("base", "theft") and not card_known("base", "start")
    assert not card_known("base", "nothing") and not card_known("base", 3)


BAD_DEALS = [
    ({"x": 1}, "deals", "unknown key 'x'"),
    ({"roles": []}, "deals.roles", "must be an object keyed by seat"),
    ({"roles": {"zed": "saboteur"}}, "deals.roles", "'zed' is not a seat"),
    ({"roles": {"ann": "boss"}}, "deals.roles",
     "'boss' is not in the rule set or has no copy left"),
    ({"set_aside": "saboteur"}, "deals.set_aside", "must be a list of ids"),
    ({"set_aside": [1]}, "deals.set_aside", "must be a list of ids"),
    ({"set_aside": ["saboteur", "saboteur"]}, "deals.set_aside",
     "'saboteur' is not in the rule set or has no copy left"),
    ({"goals": {"north": "goal-gold"}}, "deals.goals",
     "must name the cards at north, middle and south"),
    ({"goals": []}, "deals.goals", "must name the cards at north, middle and south"),
    ({"goals": {"north": "goal-gold", "middle": "goal-gold", "south": "goal-stone-ne"}},
     "deals.goals", "must use each of goal-gold, goal-stone-ne, goal-stone-nw once"),
    ({"goals": {"north": ["goal-gold"], "middle": "goal-stone-ne", "south": "goal-stone-nw"}},
     "deals.goals", "must use each of goal-gold, goal-stone-ne, goal-stone-nw once"),
    ({"treasure": "east"}, "deals.treasure", "must be north, middle or south"),
    ({"hands": {"ann": "cross"}}, "deals.hands.ann", "must be a list of ids"),
    ({"hands": {"bob": ["cross"] * 6}}, "deals.hands.bob",
     "'cross' is not in the rule set or has no copy left"),
    ({"hands": []}, "deals.hands", "must be an object keyed by seat"),
    ({"pile": ["bridge"]}, "deals.pile", "'bridge' is not in the rule set or has no copy left"),
    ({"first": "zed"}, "deals.first", "'zed' is not a seat"),
    ({"greedy": "ann"}, "deals.greedy", "needs the greedy-dwarf variant"),
    ({"greedy": "zed"}, "deals.greedy", "must name a gold digger"),
    ({"gold": "3"}, "deals.gold", "must be a list of gold values"),
    ({"gold": [3.0]}, "deals.gold", "must be a list of gold values"),
    ({"gold": [True]}, "deals.gold", "must be a list of gold values"),
    ({"gold": [5]}, "deals.gold", "no gold card of value 5 left in the supply"),
    ({"gold": [3, 3, 3, 3, 3]}, "deals.gold", "no gold card of value 3 left in the supply"),
]  # fmt: skip


@pytest.mark.parametrize(("deal", "field", "why"), BAD_DEALS)
def test_a_malformed_deal_is_refused_naming_its_field(deal, field, why):
    with pytest.raises(BadSetup) as refused:
        new_game(ruleset="base", seats=["ann", "bob", "cid"], round_seeds=["s"], rounds=1,
                 deals=[{"roles": {"ann": "gold-digger"}, **deal}])  # fmt: skip
    assert (refused.value.field, refused.value.why) == (field, why)


def test_gold_in_saboteur2_and_a_greedy_saboteur_are_refused():
    with pytest.raises(BadSetup) as refused:
        new_game(ruleset="saboteur2", seats=["a", "b"], round_seeds=["s"], rounds=1,
                 deals=[{"gold": [1]}])  # fmt: skip
    assert (refused.value.field, refused.value.why) == ("deals.gold", "saboteur2 has no gold cards")
    with pytest.raises(BadSetup) as refused:
        new_game(ruleset="base", seats=["a", "b", "c"], round_seeds=["s"], rounds=1,
                 variants=["greedy-dwarf"],
                 deals=[{"greedy": "a", "roles": {"a": "saboteur"}}])  # fmt: skip
    assert (refused.value.field, refused.value.why) == ("deals.greedy", "must name a gold digger")


def test_a_seeded_deal_is_sab_shuffle_v1_of_the_canonical_lists():
    """Every random choice of a deal is the documented algorithm (docs/fairness.md), so anyone
    with the seeds can recompute it: roles, goals and the deck from their lists in catalogue
    order; hands dealt in blocks in seat order, the rest the pile; the first seat and the greedy
    dwarf drawn by ``uniform``; the gold supply from the gold seed."""
    from collections import Counter

    from games.engine import fairness
    from games.engine.cards import BASE_GOLD, GOAL_CARDS, GOAL_NAMES, deck
    from games.engine.setup import seed_bytes

    state = new_game(ruleset="base", seats=list(FIVE), round_seeds=["s1"], rounds=1,
                     variants=["greedy-dwarf"], gold_seed="g")  # fmt: skip
    seed = seed_bytes("s1")
    roles = fairness.shuffle(list(Counter(role_cards("base", 5, [])).elements()), seed, "roles")
    assert state.roles == roles[:5] and state.set_aside == roles[5:]
    goals = fairness.shuffle(list(GOAL_CARDS), seed, "goals")
    assert goal_cards(state) == dict(zip(GOAL_NAMES, goals, strict=True))
    cards = fairness.shuffle(list(Counter(deck("base")).elements()), seed, "deck")
    size = hand_size("base", 5)
    assert state.hands == [cards[i * size : (i + 1) * size] for i in range(5)]
    assert state.pile == cards[5 * size :]
    assert state.first_seat == fairness.Stream(seed, "first").uniform(5)
    diggers = [i for i, role in enumerate(state.roles) if role == "gold-digger"]
    assert state.greedy == diggers[fairness.Stream(seed, "greedy").uniform(len(diggers))]
    assert state.gold_supply == fairness.shuffle(list(BASE_GOLD), seed_bytes("g"), "gold")
    # A deal that names the treasure's place shuffles the two stones for the other places.
    named = new_game(ruleset="base", seats=list(FIVE), round_seeds=["s6"], rounds=1,
                     deals=[{"treasure": "north"}])  # fmt: skip
    # (the stones' stream is "goals": another label would swap them with this seed)
    assert goal_cards(named) == {
        "north": "goal-gold", "middle": "goal-stone-nw", "south": "goal-stone-ne",
    }  # fmt: skip
    # A round seed made by fairness.round_seed (64 hex digits) is used as its bytes.
    made = fairness.round_seed(bytes(32), 7, 1, ["a", "b", "c", "d", "e"]).hex()
    hexed = new_game(ruleset="base", seats=list(FIVE), round_seeds=[made], rounds=1)
    again = fairness.shuffle(list(Counter(deck("base")).elements()), bytes.fromhex(made), "deck")
    assert hexed.hands[0] == again[:size]
