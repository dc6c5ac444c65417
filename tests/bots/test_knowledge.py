"""What a bot makes of roles it knows, of clearing cards in front of it and of a rockfall while
it plays quietly: the figures the seeded games of ``test_figures`` rarely meet."""

from __future__ import annotations

import random

import pytest

from games import ledger
from games.bots import choose_move
from games.bots.brain import PATH_SUSPICION, Table
from games.engine import legal_moves, new_game, view_for
from games.engine.state import Placed
from tests.bots.test_play import game, lay_path_east


def table(state, seat, history=()):
    return Table(view_for(state, seat), list(history))


def inspected(roles, seat):
    state = game({"ann": ["map"]}, roles=roles, ruleset="saboteur2")
    me = state.seats.index(seat)
    state.inspections[me] = {other: role for other, role in roles.items() if other != seat}
    bot = table(state, seat)
    return {other: bot.ally(other) for other in state.seats}


def test_roles_known_by_an_inspection_decide_whom_a_bot_wants_to_do_well():
    roles = {"ann": "saboteur", "bob": "blue-digger", "cid": "profiteer", "dan": "green-digger",
             "eve": "boss"}  # fmt: skip
    # A saboteur wants saboteurs and profiteers to do well, nobody else.
    assert inspected(roles, "ann") == {"ann": 1.0, "bob": -1.0, "cid": 1.0, "dan": -1.0,
                                       "eve": -1.0}  # fmt: skip
    # A digger: against saboteurs, half for the neutral, a little against the other colour.
    assert inspected(roles, "bob") == {"ann": -1.0, "bob": 1.0, "cid": 0.5, "dan": -0.3,
                                       "eve": 0.5}  # fmt: skip
    roles = {"ann": "saboteur", "bob": "blue-digger", "cid": "geologist", "dan": "profiteer",
             "eve": "blue-digger"}  # fmt: skip
    assert inspected(roles, "dan") == {"ann": -1.0, "bob": 0.5, "cid": 0.5, "dan": 1.0,
                                       "eve": 0.5}  # fmt: skip
    assert inspected(roles, "bob") == {"ann": -1.0, "bob": 1.0, "cid": 0.5, "dan": 0.5,
                                       "eve": 1.0}  # fmt: skip


def clears(hand, in_front):
    roles = {"ann": "blue-digger", "bob": "green-digger", "cid": "saboteur", "dan": "boss",
             "eve": "geologist"}  # fmt: skip
    state = game({"ann": hand}, roles=roles, ruleset="saboteur2")
    state.in_front[0] = list(in_front)
    bot = table(state, "ann")
    return {
        (tuple(move["discard"]), move["remove"]): bot.score(move)
        for move in legal_moves(state, "ann")
        if move["move"] == "clear"
    }


def test_a_bot_clears_what_no_card_in_hand_mends_and_never_its_own_theft():
    scores = clears(["free", "repair-cart", "map", "cross", "dead-n", "theft"],
                    ["break-cart", "break-lantern", "trapped", "theft"])  # fmt: skip
    assert scores[(("dead-n", "map"), "theft")] == -5.0
    assert scores[(("dead-n", "map"), "trapped")] == -1.0  # a Free card in hand does it
    assert scores[(("dead-n", "map"), "break-cart")] == -1.0  # so does a cart repair
    # Else 7, less half of what the two cards discarded are worth (a dead end: -1.5, a map 1.5,
    # a path card 0.8, a theft 2).
    assert scores[(("dead-n", "map"), "break-lantern")] == 7.0
    assert scores[(("cross", "dead-n"), "break-lantern")] == 7.35
    assert scores[(("map", "theft"), "break-lantern")] == 5.25
    scores = clears(["map", "cross", "dead-n", "theft", "break-cart", "rockfall"],
                    ["break-lantern", "trapped"])  # fmt: skip
    assert scores[(("break-cart", "dead-n"), "trapped")] == 7.6
    assert scores[(("dead-n", "rockfall"), "break-lantern")] == 7.65


def test_a_quiet_saboteur_makes_no_rockfall_that_shows():
    roles = {"ann": "saboteur", "bob": "gold-digger", "cid": "gold-digger", "dan": "gold-digger"}
    state = game({"ann": ["rockfall", "map", "cross", "dead-n", "break-cart", "t-nse"]},
                 roles=roles)  # fmt: skip
    lay_path_east(state, 2)
    quiet = table(state, "ann")
    assert quiet.quiet and quiet.min_distance == 5
    rockfall = {"move": "action", "card": "rockfall", "at": [2, 0]}
    assert quiet.score(rockfall) == -1.0
    assert quiet.score({**rockfall, "at": [5, 5]}) == -5.0  # nothing there to clear
    # Once it has broken a tool in public it plays openly: cutting the tunnel is worth much.
    history = [{"kind": "action", "to": None, "seat": "ann", "card": "break-cart", "target": "bob"}]
    shown = table(state, "ann", history)
    assert not shown.quiet and shown.score(rockfall) == pytest.approx(9.59375)


def action(seat, card, target):
    return {"kind": "action", "to": None, "seat": seat, "card": card, "target": target}


def test_suspicion_follows_breaks_and_repairs_of_the_suspected():
    """Cid broke dan's cart (1.0: not yet more than one break's worth); bob then broke cid's
    lantern and eve mended it: neither counts as helping a saboteur."""
    roles = {"ann": "blue-digger", "bob": "green-digger", "cid": "saboteur", "dan": "boss",
             "eve": "geologist"}  # fmt: skip
    state = game({"ann": ["hands-off", "inspection", "map"]}, roles=roles, ruleset="saboteur2")
    history = [action("cid", "break-cart", "dan"), action("bob", "break-lantern", "cid"),
               action("eve", "repair-cart", "cid")]  # fmt: skip
    assert table(state, "ann", history).suspicion == {"bob": 1.0, "cid": 1.0, "dan": 0.0,
                                                      "eve": -0.6}  # fmt: skip
    state.inspections[0] = {"cid": "saboteur", "eve": "geologist"}
    bot = table(state, "ann", history)
    # An inspection is a fact: a saboteur is suspected most, anyone else not at all.
    assert bot.suspicion["cid"] == 3.0 and bot.suspicion["eve"] == -2.0
    # Hands-off: worth most against an enemy; an inspection: against the most suspected, never
    # twice on the same seat.
    hands_off = {"move": "action", "card": "hands-off"}
    assert bot.score({**hands_off, "target": "cid"}) == 3.0
    assert bot.score({**hands_off, "target": "bob"}) == 1.0
    assert bot.score({**hands_off, "target": "dan"}) == pytest.approx(-0.2)
    inspection = {"move": "action", "card": "inspection"}
    assert bot.score({**inspection, "target": "bob"}) == 2.5
    assert bot.score({**inspection, "target": "dan"}) == 2.0
    assert bot.score({**inspection, "target": "cid"}) == -2.0


def test_a_profiteer_trapped_by_a_digger_and_its_other_actions():
    roles = {"ann": "profiteer", "bob": "blue-digger", "cid": "saboteur", "dan": "boss",
             "eve": "geologist"}  # fmt: skip
    hand = ["hands-off", "inspection", "swap-hats", "swap-hand", "free", "door-blue-ew"]
    state = game({"ann": hand}, roles=roles, ruleset="saboteur2")
    state.in_front[0], state.in_front[1] = ["trapped"], ["theft", "trapped"]
    state.theft_laid = {1: 0}
    history = [action("cid", "break-cart", "dan"), action("bob", "trapped", "ann")]
    bot = table(state, "ann", history)
    # Neither side: one who traps it is a little suspect (0.3), not as a digger would judge.
    assert bot.suspicion == {"bob": 0.3, "cid": 1.0, "dan": 0.0, "eve": 0.0}
    scores = {
        (move["card"], move.get("target")): bot.score(move)
        for move in legal_moves(state, "ann")
        if move["move"] == "action"
    }
    assert scores[("free", "ann")] == 9.0 and scores[("free", "bob")] == 0.0
    assert scores[("hands-off", "bob")] == 1.0 and scores[("inspection", "cid")] == 2.5
    assert scores[("swap-hats", "ann")] == -3.0 and scores[("swap-hats", "bob")] == -1.0
    assert scores[("swap-hand", "eve")] == -0.5


def test_repairs_on_oneself_and_others_with_and_without_rivalry():
    """With rivalry (base variant), a digger's own tools count more and mending another's less."""
    found = {}
    for variants in ([], ["rivalry"]):
        state = new_game(
            ruleset="base", seats=["ann", "bob", "cid", "dan", "eve"], rounds=1,
            round_seeds=["p"], variants=variants,
            deals=[{"first": "ann", "hands": {"ann": ["repair-cart", "repair-pickaxe-lantern"]},
                    "roles": {"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur",
                              "dan": "gold-digger"}}],
        )  # fmt: skip
        state.in_front[0], state.in_front[1] = ["break-cart"], ["break-lantern"]
        bot = table(state, "ann")
        found[tuple(variants)] = sorted(
            (move["card"], move["target"], bot.score(move))
            for move in legal_moves(state, "ann")
            if move["move"] == "action"
        )
    assert found[()] == [("repair-cart", "ann", 9.0), ("repair-pickaxe-lantern", "bob", 3.0)]
    assert found[("rivalry",)] == [
        ("repair-cart", "ann", 11.0), ("repair-pickaxe-lantern", "bob", 2.0),
    ]  # fmt: skip


def test_the_boss_avoids_doors_which_shut_out_a_team():
    roles = {"ann": "boss", "bob": "green-digger", "cid": "saboteur", "dan": "blue-digger",
             "eve": "geologist"}  # fmt: skip
    state = game({"ann": ["door-blue-ew", "straight-ew", "map"]}, roles=roles, ruleset="saboteur2")
    lay_path_east(state, 3)
    bot = table(state, "ann")
    place = {"move": "place", "at": [4, 0], "turned": False}
    door = bot.score({**place, "card": "door-blue-ew"})
    assert door == pytest.approx(bot.score({**place, "card": "straight-ew"}) - 1.0)


def test_a_saboteurs_own_rockfall_ends_its_quiet_play():
    roles = {"ann": "saboteur", "bob": "gold-digger", "cid": "gold-digger", "dan": "gold-digger"}
    state = game({"ann": ["map"]}, roles=roles)
    assert table(state, "ann").quiet
    rockfall = {"kind": "action", "to": None, "seat": "ann", "card": "rockfall", "at": [1, 0]}
    assert not table(state, "ann", [rockfall]).quiet
    peek = {"kind": "action", "to": None, "seat": "ann", "card": "map", "goal": "north"}
    assert table(state, "ann", [peek]).quiet


DIGGERS = {"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur", "dan": "gold-digger"}


def test_a_bot_needs_a_legal_move():
    state = game({"ann": ["map"]}, roles=DIGGERS)
    with pytest.raises(ValueError, match="^a bot needs at least one legal move$"):
        choose_move(view_for(state, "ann"), [], random.Random(1))


def test_the_greedy_dwarf_wants_to_reach_the_treasure_himself():
    scores = []
    for greedy in ({}, {"greedy": "ann"}):
        state = new_game(
            ruleset="base", seats=["ann", "bob", "cid", "dan", "eve"], rounds=1,
            round_seeds=["p"], variants=["greedy-dwarf"] if greedy else [],
            deals=[{"first": "ann", "hands": {"ann": ["cross", "map"]}, "roles": DIGGERS,
                    "treasure": "middle", **greedy}],
        )  # fmt: skip
        lay_path_east(state, 6)
        bot = table(state, "ann")
        assert bot.greedy is bool(greedy)
        scores.append(bot.score({"move": "place", "card": "cross", "at": [7, 0], "turned": False}))
    assert scores[1] == scores[0] + 5


def walled(cells):
    state = game({"ann": ["map", "cross"]}, roles=DIGGERS)
    for pos, card in cells.items():
        state.board[pos] = Placed(card)
    bot = table(state, "ann")
    return bot, [sorted(bot.front), bot.nearest, bot.second, bot.min_distance, bot.nearest_shared]


def test_the_front_of_none_one_and_two_cells():
    walls = {(-1, 0): "straight-ns", (0, 1): "straight-ew", (0, -1): "straight-ew"}
    bot, front = walled({**walls, (1, 0): "straight-ns"})
    assert front == [[], 99, 99, 99, False] and bot.progress_now == -15.0
    _, front = walled({**walls, (1, 0): "straight-ew", (1, 1): "straight-ew",
                       (1, -1): "straight-ew"})  # fmt: skip
    assert front == [[(2, 0)], 6, 99, 6, False]
    _, front = walled({**walls, (1, 0): "cross", (2, 0): "straight-ns"})
    assert front == [[(1, -1), (1, 1)], 8, 8, 8, True]


def test_only_saboteurs_and_geologists_play_quietly():
    for role, quiet in (("profiteer", False), ("blue-digger", False), ("geologist", True),
                        ("saboteur", True)):  # fmt: skip
        roles = {"ann": role, "bob": "green-digger", "cid": "boss", "dan": "geologist",
                 "eve": "saboteur"}  # fmt: skip
        state = game({"ann": ["map"]}, roles=roles, ruleset="saboteur2")
        assert table(state, "ann").quiet is quiet, role


def test_what_a_player_does_to_itself_says_nothing():
    state = game({"ann": ["map"]}, roles=DIGGERS)
    history = [action("bob", "repair-cart", "bob"), action("cid", "break-cart", "cid")]
    assert set(table(state, "ann", history).suspicion.values()) == {0.0}


def test_how_much_a_bot_wants_a_seat_to_do_well_stays_between_minus_one_and_one():
    breaks = [action("cid", "break-cart", target) for target in ("bob", "dan", "eve", "bob")]
    digger = table(game({"ann": ["map"]}, roles=DIGGERS), "ann", breaks)
    assert digger.suspicion["cid"] == 4.0 and digger.ally("cid") == -1.0
    assert digger.score({"move": "steal", "victim": "cid"}) == 3.0
    assert digger.score({"move": "steal", "victim": "bob"}) == pytest.approx(1.4)
    assert digger.score({"move": "steal", "victim": None}) == 0.0
    roles = {"ann": "saboteur", "bob": "gold-digger", "cid": "gold-digger", "dan": "gold-digger"}
    saboteur = table(game({"ann": ["map"]}, roles=roles), "ann", breaks)
    assert saboteur.ally("cid") == 1.0


def test_closing_the_last_front_cell_leaves_no_front():
    walls = {(-1, 0): "straight-ns", (0, 1): "straight-ew", (0, -1): "straight-ew"}
    bot, front = walled({**walls, (1, 0): "straight-ew", (1, 1): "straight-ew",
                         (1, -1): "straight-ew"})  # fmt: skip
    assert front[0] == [(2, 0)] and bot.progress_now == pytest.approx(-5.9953125)
    place = {"move": "place", "at": [2, 0], "turned": True}
    # A dead end there leaves no front at all (-15): ten times the loss for a digger.
    assert bot.score({**place, "card": "dead-e"}) == pytest.approx(10 * (-15 + 5.9953125))
    assert bot.score({**place, "card": "cross", "turned": False}) == pytest.approx(10.09375)


def test_maps_and_rockfalls_by_role():
    for role, map_score, rockfall in (("geologist", -1.0, 1.0), ("profiteer", 3.6, 0.2),
                                      ("blue-digger", 12.0, 0.2)):  # fmt: skip
        roles = {"ann": role, "bob": "green-digger", "cid": "boss", "dan": "geologist",
                 "eve": "saboteur"}  # fmt: skip
        if role == "geologist":
            roles["dan"] = "saboteur"
        bot = table(game({"ann": ["map"]}, roles=roles, ruleset="saboteur2"), "ann")
        assert bot.score({"move": "action", "card": "map", "goal": "north"}) == pytest.approx(
            map_score
        ), role
        assert bot.card_value("rockfall") == rockfall, role


def test_a_saboteur_breaks_first_who_is_not_trapped_already():
    roles = {"ann": "saboteur", "bob": "blue-digger", "cid": "boss", "dan": "geologist",
             "eve": "green-digger"}  # fmt: skip
    state = game({"ann": ["break-cart"]}, roles=roles, ruleset="saboteur2")
    state.in_front[1] = ["trapped"]
    lay_path_east(state, 6)
    bot = table(state, "ann")
    breaks = {"move": "action", "card": "break-cart"}
    assert bot.score({**breaks, "target": "bob"}) == pytest.approx(5.4)
    assert bot.score({**breaks, "target": "eve"}) == pytest.approx(7.4)


def test_a_bot_remembers_the_public_events_of_this_round_only():
    state = game({"ann": ["map"]}, roles=DIGGERS)
    private = {"kind": "action", "to": "ann", "seat": "cid", "card": "break-cart", "target": "bob"}
    history = [private, action("cid", "break-cart", "dan")]
    assert table(state, "ann", history).suspicion["cid"] == 1.0
    started = {"kind": "round-started", "to": None, "round": 2, "first": "ann"}
    history = [action("cid", "break-cart", "dan"), started, action("bob", "break-cart", "dan")]
    assert table(state, "ann", history).suspicion == {"bob": 1.0, "cid": 0.0, "dan": 0.0,
                                                      "eve": 0.0}  # fmt: skip


def test_a_geologist_guards_the_crystal_money_with_hands_off():
    roles = {"ann": "geologist", "bob": "blue-digger", "cid": "saboteur", "dan": "boss",
             "eve": "green-digger"}  # fmt: skip
    bot = table(game({"ann": ["hands-off"]}, roles=roles, ruleset="saboteur2"), "ann")
    assert bot.score({"move": "action", "card": "hands-off", "target": "bob"}) == 2.0


def test_a_quiet_saboteur_mends_a_known_saboteur_fully_and_the_others_a_little():
    roles = {"ann": "saboteur", "bob": "saboteur", "cid": "blue-digger", "dan": "boss",
             "eve": "green-digger"}  # fmt: skip
    state = game({"ann": ["repair-cart"]}, roles=roles, ruleset="saboteur2")
    state.in_front[1], state.in_front[2] = ["break-cart"], ["break-cart"]
    state.inspections[0] = {"bob": "saboteur"}
    bot = table(state, "ann")
    assert bot.quiet
    repair = {"move": "action", "card": "repair-cart"}
    assert bot.score({**repair, "target": "bob"}) == 5.0
    assert bot.score({**repair, "target": "cid"}) == 1.5  # as anybody would: 5 x 0.3


def placed(seat, card, at, turned=False):
    return {"kind": "placed", "to": None, "seat": seat, "card": card, "at": list(at),
            "turned": turned}  # fmt: skip


def test_path_cards_weigh_on_suspicion_as_the_public_ledger_counts_them():
    """The bots read the ledger the pages show (games/ledger.py): a card towards a goal looks
    like a digger's, a dead end or a cut like a saboteur's (issue 38)."""
    state = game({"ann": ["map"]}, roles=DIGGERS)
    history = [
        placed("bob", "straight-ew", (1, 0)),  # the tunnel one step nearer the goals
        placed("cid", "dead-e", (2, 0), turned=True),  # its stub faces west: a cut
        placed("dan", "dead-n", (0, -1)),  # opens onto nothing new: a dead end
    ]
    counted = ledger.ledger([(1, history)], ["ann", "bob", "cid", "dan"]).rounds[1]
    assert counted["bob"].towards == 1 and counted["cid"].cuts == 1
    assert counted["dan"].dead_ends == 1
    bot = table(state, "ann", history)
    assert bot.suspicion == {
        "bob": PATH_SUSPICION[ledger.TOWARDS],
        "cid": PATH_SUSPICION[ledger.CUT],
        "dan": PATH_SUSPICION[ledger.DEAD_END],
        "eve": 0.0,
    }
    assert bot.suspicion["bob"] < 0 < bot.suspicion["dan"] < bot.suspicion["cid"]


def test_mending_a_player_whose_cards_look_hostile_raises_suspicion():
    """Eve lays a dead end (0.8, as the ledger counts it) and breaks Dan's cart (+1: Dan looks
    honest): 1.8. Bob then mends Eve: helping someone above 1 looks like a saboteur's (+0.7),
    not a digger's (-0.6)."""
    state = game({"ann": ["map"]}, roles=DIGGERS)
    history = [
        placed("eve", "dead-n", (0, -1)),
        action("eve", "break-cart", "dan"),
        action("bob", "repair-cart", "eve"),
    ]
    suspicion = table(state, "ann", history).suspicion
    assert suspicion["eve"] == pytest.approx(1.8) and suspicion["bob"] == pytest.approx(0.7)
