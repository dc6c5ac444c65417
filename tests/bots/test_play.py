"""The bots play their roles: a few positions with a clearly right move, and the simulation
command on a small count."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.bots import choose_move, public_events
from games.engine import apply_in_place, legal_moves, new_game, view_for
from games.engine.state import Placed

ROOT = Path(__file__).resolve().parents[2]
SEATS = ["ann", "bob", "cid", "dan", "eve"]


def game(hands, *, roles=None, ruleset="base", treasure="south"):
    deal = {"hands": hands, "first": "ann", "treasure": treasure}
    if roles:
        deal["roles"] = roles
    return new_game(
        ruleset=ruleset, seats=list(SEATS), rounds=1, round_seeds=["play"], deals=[deal]
    )


def bot(state, seat="ann", history=(), seed=1):
    return choose_move(
        view_for(state, seat), legal_moves(state, seat), random.Random(seed), list(history)
    )


def lay_path_east(state, until_x):
    """Straight tunnels from the start to (until_x, 0): the front is near the goals."""
    for x in range(1, until_x + 1):
        state.board[(x, 0)] = Placed("cross")


DIGGERS = {"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur", "dan": "gold-digger"}


def test_a_digger_uses_a_map_first_when_the_treasure_is_unknown():
    state = game(
        {"ann": ["map", "cross", "straight-ew", "t-nse", "curve-ne", "dead-n"]}, roles=DIGGERS
    )
    move = bot(state)
    assert move["move"] == "action" and move["card"] == "map"


def test_a_digger_digs_toward_the_goal_it_saw_holding_the_treasure():
    state = game(
        {"ann": ["cross", "cross", "straight-ew", "t-nse", "curve-ne", "dead-n"]}, roles=DIGGERS
    )
    lay_path_east(state, 5)
    state.peeks[0] = {"south": "goal-gold"}
    move = bot(state)
    assert move["move"] == "place" and "dead" not in move["card"]
    x, y = move["at"]
    assert (x, y) in ((6, 0), (5, 1))  # nearer the south goal (8, 2) than any other front cell


def test_a_digger_mends_its_own_broken_tool():
    state = game(
        {"ann": ["repair-pickaxe", "cross", "straight-ew", "t-nse", "curve-ne", "dead-n"]},
        roles=DIGGERS,
    )
    state.in_front[0].append("break-pickaxe")
    move = bot(state)
    assert move == {"move": "action", "card": "repair-pickaxe", "target": "ann"}


def test_a_saboteur_blocks_the_front_near_the_goals():
    roles = {"ann": "saboteur", "bob": "gold-digger", "cid": "gold-digger", "dan": "gold-digger"}
    state = game(
        {"ann": ["dead-nesw", "cross", "straight-ew", "t-nse", "curve-ne", "map"]}, roles=roles
    )
    lay_path_east(state, 7)
    state.peeks[0] = {"middle": "goal-stone-ne", "north": "goal-stone-nw"}
    move = bot(state)
    # Never a tunnel that reaches the treasure; a dead end, a rockfall or a break instead.
    assert move["move"] == "action" or move["card"] == "dead-nesw", move


def test_suspicion_from_public_moves_picks_whom_a_digger_breaks():
    """Cid broke two diggers' tools in public: a digger with a break card breaks Cid."""
    state = game(
        {"ann": ["break-cart", "dead-n", "dead-e", "dead-ns", "dead-ew", "dead-nw"]}, roles=DIGGERS
    )
    history = [
        {"kind": "action", "to": None, "seat": "cid", "card": "break-pickaxe", "target": "bob"},
        {"kind": "action", "to": None, "seat": "cid", "card": "break-lantern", "target": "dan"},
        {
            "kind": "placed",
            "to": None,
            "seat": "bob",
            "card": "cross",
            "at": [1, 0],
            "turned": False,
        },
    ]
    move = bot(state, history=history)
    assert move == {"move": "action", "card": "break-cart", "target": "cid"}


def test_a_blue_digger_prefers_its_own_door_on_the_way():
    roles = {
        "ann": "blue-digger",
        "bob": "green-digger",
        "cid": "boss",
        "dan": "saboteur",
        "eve": "blue-digger",
    }
    state = game(
        {"ann": ["door-blue-ew", "door-green-ew", "dead-n", "dead-e", "theft", "inspection"]},
        roles=roles,
        ruleset="saboteur2",
    )
    lay_path_east(state, 4)
    state.peeks[0] = {"middle": "goal-gold"}
    move = bot(state)
    assert move["move"] == "place" and move["card"] == "door-blue-ew", move


def test_the_history_a_bot_sees_holds_no_private_event():
    events = [
        {"kind": "drew", "to": "ann", "cards": ["map"]},
        {"kind": "passed", "to": None, "seat": "ann", "count": 1},
    ]
    assert public_events(events) == [{"kind": "passed", "to": None, "seat": "ann", "count": 1}]


def test_bots_play_whole_games_to_the_end():
    for ruleset, players in (("base", 5), ("saboteur2", 7)):
        state = new_game(
            ruleset=ruleset,
            seats=SEATS[:5] + ["x", "y"][: players - 5],
            round_seeds=["a", "b", "c"],
        )
        rng, history = random.Random(3), []
        while not state.finished:
            seat = state.seats[state.to_move]
            move = choose_move(view_for(state, seat), legal_moves(state, seat), rng, history)
            history += public_events(apply_in_place(state, seat, move))
        assert len(state.rounds_done) == 3


def run_simulate(*args):
    return subprocess.run(
        [sys.executable, "-m", "games.bots.simulate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_simulation_command_prints_the_strength_and_balance_tables():
    done = run_simulate("--ruleset", "base", "--players", "4", "--games", "3", "--seed", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("base, 4 players, 3 games, seed 1")
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert {"gold-digger", "saboteur", "(treasure found)"} <= set(rows)
    # Random diggers never reach the treasure in these games; bot diggers do.
    digger = [cell.strip() for cell in rows["gold-digger"].split("|")[1:-1]]
    assert float(digger[2].rstrip(" %")) > float(digger[1].rstrip(" %"))


def test_the_simulation_command_refuses_bad_arguments():
    done = run_simulate("--ruleset", "base", "--players", "2")
    assert done.returncode == 2 and "base is for 3 to 10 players" in done.stderr
    done = run_simulate("--ruleset", "saboteur2", "--variant", "rivalry")
    assert done.returncode == 2 and "variants belong to the base game" in done.stderr


GEOLOGY = {
    "ann": "geologist",
    "bob": "blue-digger",
    "cid": "green-digger",
    "dan": "saboteur",
    "eve": "boss",
}


def test_a_geologist_lays_its_crystal_before_anything_else():
    state = game(
        {"ann": ["crystal-t-esw", "map", "break-cart", "cross", "theft", "dead-n"]},
        roles=GEOLOGY,
        ruleset="saboteur2",
    )
    lay_path_east(state, 2)
    move = bot(state)
    assert move["move"] == "place" and move["card"] == "crystal-t-esw", move


def test_a_geologist_mends_others_and_never_breaks_anyone():
    """Crystals pay whoever wins: everybody able to lay cards is worth more than any break."""
    state = game(
        {"ann": ["break-cart", "trapped", "repair-pickaxe", "map", "dead-n", "dead-e"]},
        roles=GEOLOGY,
        ruleset="saboteur2",
    )
    state.in_front[1].append("break-pickaxe")  # bob cannot lay cards
    history = [  # dan looks like a saboteur: a digger would break him back
        {"kind": "action", "to": None, "seat": "dan", "card": "break-lantern", "target": "cid"},
        {"kind": "action", "to": None, "seat": "dan", "card": "break-cart", "target": "eve"},
    ]
    move = bot(state, history=history)
    assert move == {"move": "action", "card": "repair-pickaxe", "target": "bob"}, move
    state.hands[0].remove("repair-pickaxe")
    move = bot(state, history=history)
    assert move.get("card") not in ("break-cart", "trapped", "map"), move


@pytest.mark.slow  # started first (tests/conftest.py)
def test_the_simulation_gives_the_same_figures_over_several_processes():
    args = ("--ruleset", "saboteur2", "--players", "4", "--games", "2", "--reverse-games", "1")
    alone, spread = run_simulate(*args), run_simulate(*args, "--jobs", "2")
    assert alone.returncode == spread.returncode == 0, alone.stderr + spread.stderr
    assert alone.stdout == spread.stdout
    assert "(1 for the reverse column)" in alone.stdout
