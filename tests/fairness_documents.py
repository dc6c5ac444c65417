"""Random deal documents for the checkers' tests (issue 39): games of every size of both rule
sets, with and without variants, their seeds drawn as the site draws them, each document made by
the engine (``games.engine.documents``), and tampered copies of them."""

from __future__ import annotations

import copy
import random

from games import engine
from games.engine import documents, fairness
from games.engine.cards import PLAYERS

NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou")


def random_document(rng: random.Random) -> dict:
    ruleset = rng.choice(("base", "saboteur2"))
    low, high = PLAYERS[ruleset]
    players = rng.randint(low, high)
    variants = []
    if ruleset == "base":
        variants = [v for v in ("greedy-dwarf", "old-mine") if rng.random() < 0.3]
    rounds = rng.randint(1, 3)
    servers = [rng.randbytes(32) for _ in range(rounds + 1)]
    game_id = rng.randint(1, 10**6)
    joined = list(NAMES[:players])
    joined_seeds = [
        rng.choice((rng.randbytes(16).hex(), f"{name.lower()}-{rng.randint(0, 99)}"))
        for name in joined
    ]
    seating, seeds = fairness.game_seeds(servers, game_id, joined_seeds)
    state = engine.new_game(
        ruleset=ruleset,
        seats=[str(i) for i in range(players)],
        variants=variants,
        rounds=rounds,
        round_seeds=[seed.hex() for seed in seeds[1:]],
        gold_seed=seeds[0].hex(),
    )
    seated = [joined[i] for i in seating]
    number = rng.randint(0, rounds)
    if number == fairness.GAME_ROUND:
        return documents.game_document(
            state.config, game_id, servers[0], joined_seeds, joined, seated
        )
    return documents.round_document(
        state.config,
        game_id,
        number,
        servers[number],
        [joined_seeds[i] for i in seating],
        seated,
    )


def tampered(document: dict, rng: random.Random) -> dict:
    """A copy with one thing changed: a seed, a shuffle's output, a pick, or the deal."""
    forged = copy.deepcopy(document)
    deal = forged["deal"]
    choices = [
        lambda: forged["player_seeds"].__setitem__(0, forged["player_seeds"][0] + "x"),
        lambda: forged.__setitem__("server_seed", rng.randbytes(32).hex()),
        lambda: forged.__setitem__("round_seed", rng.randbytes(32).hex()),
        lambda: forged["shuffles"][-1]["output"].reverse(),
    ]
    if "hands" in deal:
        choices.append(lambda: deal["hands"].reverse())
        choices.append(lambda: deal["pile"].insert(0, deal["pile"].pop()))
        choices.append(lambda: deal["roles"].reverse())
    if "seating" in deal:
        choices.append(lambda: deal["seating"].reverse())
    if forged["picks"]:
        choices.append(
            lambda: forged["picks"][0].__setitem__("value", forged["picks"][0]["value"] + 1)
        )
    rng.choice(choices)()
    return forged
