"""``sab-shuffle-v1``: the documented algorithm by which a round's deal can be checked (issue 39;
docs/fairness.md gives it in words, with test vectors).

Pure Python (``hashlib``, ``hmac``), like the rest of the engine:

- ``commitment(server_seed)``: ``SHA-256(server seed)``, shown before anyone joins;
- ``round_seed(server_seed, game_id, round_number, player_seeds)``: ``HMAC-SHA256`` keyed by
  the server seed over ``UTF-8("sab-shuffle-v1|<game id>|<round>|<seeds joined by |>")``;
- ``Stream(round_seed, label)``: the blocks ``HMAC-SHA256`` keyed by the round seed over
  ``UTF-8(label + ":" + k)`` for k = 0, 1, 2, ... concatenated; ``uniform(n)`` takes 4 bytes
  at a time as a big-endian unsigned integer x and returns ``x mod n`` once
  ``x < 2**32 - (2**32 mod n)`` (rejection: no bias);
- ``shuffle(items, round_seed, label)``: Fisher-Yates from the end, ``j = uniform(i + 1)`` for
  ``i`` from ``len - 1`` down to 1, swapping items ``i`` and ``j``.

``python -m games.engine.fairness deal.json`` checks a deal document offline: the commitment, the
round seed and every shuffle's output from its canonical input (see ``verify``). The command is
``__main__.py`` beside this file: the engine imports this module when it starts (its deals), so
run as the script itself it would be a second copy of it, and Python warns of that first.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Sequence
from typing import Any

ALGORITHM = "sab-shuffle-v1"


def commitment(server_seed: bytes) -> str:
    """The hex SHA-256 of the server seed: published before the seed is used."""
    return hashlib.sha256(server_seed).hexdigest()


def round_seed(
    server_seed: bytes, game_id: int | str, round_number: int, player_seeds: Sequence[str]
) -> bytes:
    """The round's seed: the server's committed seed keyed over the game, the round and every
    player's own seed in seat order."""
    message = "|".join([ALGORITHM, str(game_id), str(round_number), *player_seeds])
    return hmac.new(server_seed, message.encode("utf-8"), hashlib.sha256).digest()


class Stream:
    """The labelled byte stream of a round seed, read 4 bytes at a time."""

    def __init__(self, seed: bytes, label: str):
        self.seed, self.label = seed, label
        self.block, self.buffer = 0, b""

    def _next4(self) -> int:
        while len(self.buffer) < 4:
            message = f"{self.label}:{self.block}".encode()
            self.buffer += hmac.new(self.seed, message, hashlib.sha256).digest()
            self.block += 1
        word, self.buffer = self.buffer[:4], self.buffer[4:]
        return int.from_bytes(word, "big")

    def uniform(self, n: int) -> int:
        """A number from 0 to n - 1, each equally likely."""
        if n < 1:
            raise ValueError("uniform needs n >= 1")
        limit = 2**32 - (2**32 % n)
        while True:
            x = self._next4()
            if x < limit:
                return x % n


def shuffle[T](items: Sequence[T], seed: bytes, label: str) -> list[T]:
    """``items`` shuffled by the stream ``label`` of ``seed`` (a new list)."""
    out = list(items)
    stream = Stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.uniform(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


GAME_ROUND = 0  # the game's own draws: the seating and the base game's gold supply


def game_seeds(
    server_seeds: Sequence[bytes], game_id: int | str, joined_seeds: Sequence[str]
) -> tuple[list[int], list[bytes]]:
    """The seating and every round's seed of a game (docs/fairness.md, "A game's seeds").

    ``server_seeds`` are the game's committed seeds: round 0's (the game's own draws), then one
    per round; ``joined_seeds`` the players' seeds in the order they joined. Round 0's seed is
    ``round_seed`` over the seeds in that order: its stream ``seats`` shuffles the players into
    their seats (the seating: indexes into ``joined_seeds``, seat by seat), and ``gold`` orders
    the base game's gold supply. Each round r >= 1 then has ``round_seed`` over the seeds in
    seat order. Returns ``(seating, [round 0's seed, round 1's, ...])``."""
    first = round_seed(server_seeds[GAME_ROUND], game_id, GAME_ROUND, joined_seeds)
    seating = shuffle(range(len(joined_seeds)), first, "seats")
    in_seats = [joined_seeds[i] for i in seating]
    rounds = [
        round_seed(server, game_id, number, in_seats)
        for number, server in enumerate(server_seeds[1:], start=1)
    ]
    return seating, [first, *rounds]


# -- Checking a deal document offline -------------------------------------------------------------


GOAL_PLACES = ("north", "middle", "south")


def verify(document: dict[str, Any]) -> list[str]:
    """What differs between a deal document and the algorithm (empty: it matches).

    The document (docs/fairness.md, "The deal document"): ``algorithm``, ``game``, ``round``,
    ``commitment``, ``server_seed`` (hex), ``player_seeds``, ``round_seed`` (hex), ``shuffles``
    (each a ``label``, its canonical ``input`` and its ``output``), ``picks`` (each a ``label``,
    ``n`` and the ``value`` drawn), and ``deal``, which must follow from them (a document
    without one checks the seeds and the draws alone)."""
    problems = []
    if document.get("algorithm") != ALGORITHM:
        problems.append(f"algorithm: expected {ALGORITHM}")
    try:
        server = bytes.fromhex(document["server_seed"])
    except (KeyError, TypeError, ValueError):
        return [*problems, "server_seed: missing or not hex"]
    seed = round_seed(server, document["game"], document["round"], document["player_seeds"])
    if commitment(server) != document.get("commitment"):
        problems.append("commitment: SHA-256(server_seed) differs")
    if seed.hex() != document.get("round_seed"):
        problems.append("round_seed: differs")
    outputs, picks = {}, {}
    for entry in document.get("shuffles", []):
        outputs[entry["label"]] = shuffle(entry["input"], seed, entry["label"])
        if outputs[entry["label"]] != entry["output"]:
            problems.append(f"shuffle {entry['label']}: output differs")
    for entry in document.get("picks", []):
        picks[entry["label"]] = Stream(seed, entry["label"]).uniform(entry["n"])
        if picks[entry["label"]] != entry["value"]:
            problems.append(f"pick {entry['label']}: value differs")
    if "deal" in document:
        deal = document["deal"] or {}
        for key, value in expected_deal(document, outputs, picks).items():
            if deal.get(key) != value:
                problems.append(f"deal {key}: differs")
    return problems


def expected_deal(document: dict[str, Any], outputs: dict, picks: dict) -> dict[str, Any]:
    """The deal that the shuffles' and picks' true outputs make (docs/fairness.md, "From the
    seeds to the deal"): seat i takes role i; goals north, middle, south; Saboteur 2 first puts
    ``len(deal.removed)`` cards of the deck away, then each seat takes a block of ``hand_size``,
    the rest is the pile; the greedy dwarf is a gold digger picked in seat order; round 0 (the
    game's draws) seats the players and orders the gold supply."""
    deal = document.get("deal") or {}
    expected: dict[str, Any] = {}
    if "seats" in outputs:
        expected["seating"] = outputs["seats"]
    if "gold" in outputs:
        expected["gold_supply"] = outputs["gold"]
    players = len(document["player_seeds"])
    if "roles" in outputs:
        expected["roles"] = outputs["roles"][:players]
        expected["set_aside"] = outputs["roles"][players:]
    if "goals" in outputs:
        expected["goals"] = dict(zip(GOAL_PLACES, outputs["goals"], strict=False))
    if "deck" in outputs:
        rest = outputs["deck"]
        removed = len(deal.get("removed") or [])
        size = int(document.get("hand_size", 0))
        expected["removed"], rest = rest[:removed], rest[removed:]
        expected["hands"] = [rest[i * size : (i + 1) * size] for i in range(players)]
        expected["pile"] = rest[players * size :]
    if "first" in picks:
        expected["first"] = picks["first"]
    if "greedy" in picks and "roles" in expected:
        diggers = [i for i, role in enumerate(expected["roles"]) if role == "gold-digger"]
        expected["greedy"] = diggers[picks["greedy"]] if picks["greedy"] < len(diggers) else None
    return expected


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m games.engine.fairness DEAL.json", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as handle:
        problems = verify(json.load(handle))
    for problem in problems:
        print(problem)
    print("matches" if not problems else "does not match")
    return 0 if not problems else 1
