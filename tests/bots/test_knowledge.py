"""What a bot makes of roles it knows, of clearing cards in front of it and of a rockfall while
it plays quietly: the figures the seeded games of ``test_figures`` rarely meet."""

from __future__ import annotations

import pytest

from games.bots.brain import Table
from games.engine import legal_moves, view_for
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
