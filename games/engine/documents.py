"""Deal documents (docs/fairness.md, "The deal document"): what a verifier needs to recompute a
round's deal, or a game's seating and gold supply, from the revealed seeds.

Pure, like the rest of the engine: the caller (``games.read.deals``) says which seeds are public
and gives the players' names. The round seed written is the one the engine really dealt from
(``config``): a checker compares it with the one the committed seeds give.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import fairness
from .setup import gold_draws, round_draws
from .state import Config


def _head(game_id: int, number: int, server_seed: bytes, player_seeds: Sequence[str]) -> dict:
    return {
        "algorithm": fairness.ALGORITHM,
        "game": game_id,
        "round": number,
        "commitment": fairness.commitment(server_seed),
        "server_seed": server_seed.hex(),
        "player_seeds": list(player_seeds),
    }


def round_document(
    config: Config,
    game_id: int,
    number: int,
    server_seed: bytes,
    player_seeds: Sequence[str],
    players: Sequence[str],
) -> dict[str, Any]:
    """Round ``number``'s document: the seeds in seat order, each shuffle's canonical input and
    output, each pick, and the deal they made (``setup.round_draws``)."""
    return {
        **_head(game_id, number, server_seed, player_seeds),
        "players": list(players),
        "round_seed": config.round_seeds[number - 1],
        **round_draws(config, number),
    }


def game_document(
    config: Config,
    game_id: int,
    server_seed: bytes,
    joined_seeds: Sequence[str],
    joined: Sequence[str],
    seated: Sequence[str],
) -> dict[str, Any]:
    """Round 0's document: the players' seeds in the order they ``joined``, the shuffle that
    ``seated`` them (names: input in the order they joined, output seat by seat) and the base
    game's gold supply."""
    gold = gold_draws(config)
    return {
        **_head(game_id, fairness.GAME_ROUND, server_seed, joined_seeds),
        "players": list(joined),
        "round_seed": config.gold_seed,
        "shuffles": [{"label": "seats", "input": list(joined), "output": list(seated)}, *gold],
        "picks": [],
        "deal": {
            "seating": list(seated),
            **({"gold_supply": gold[0]["output"]} if gold else {}),
        },
    }
