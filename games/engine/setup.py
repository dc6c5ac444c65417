"""Dealing each round (docs/rules.md 4.1, 5 and 7.5); ``games.engine.create`` starts a game with it.

Every random choice of a deal is ``sab-shuffle-v1`` (``games/engine/fairness/``,
docs/fairness.md): a labelled stream of the round's seed (``roles``, ``goals``, ``deck``, ``first``,
``greedy``; the game's gold supply ``gold`` from its gold seed), so replaying from the seeds deals
the same cards, and anyone with the seeds can check a deal.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from . import fairness
from .cards import (
    BASE,
    BASE_GOLD,
    BASE_SETUP,
    CATALOGUE,
    EXPANSION_HAND_SIZE,
    EXPANSION_REMOVED,
    EXPANSION_ROLES,
    GOAL_CARDS,
    GOAL_NAMES,
    GOAL_POSITIONS,
    GOLD_DIGGER,
    OLD_MINE_GOLD,
    SABOTEUR,
    START_POSITION,
    TREASURE,
    deck,
)
from .errors import BadSetup
from .state import TURN, Config, Placed, State

DEAL_KEYS = {"roles", "set_aside", "treasure", "goals", "first", "hands", "pile", "gold", "greedy"}


def seed_bytes(seed: str) -> bytes:
    """A round's seed as the algorithm's key: a round seed made by ``fairness.round_seed`` (64 hex
    digits) as its bytes; any other text (tests, scenarios, simulations) by its SHA-256."""
    if len(seed) == 64:
        try:
            return bytes.fromhex(seed)
        except ValueError:
            pass
    return hashlib.sha256(seed.encode("utf-8")).digest()


class Draws:
    """The random choices of one deal: each a labelled stream of the seed (sab-shuffle-v1),
    written down as drawn (a deal document lists them: docs/fairness.md)."""

    def __init__(self, seed: str):
        self.seed = seed_bytes(seed)
        self.shuffles: list[dict[str, Any]] = []  # each its label, canonical input and output
        self.picks: list[dict[str, Any]] = []  # each its label, n and the number drawn

    def shuffle[T](self, items: list[T], label: str) -> list[T]:
        out = fairness.shuffle(items, self.seed, label)
        self.shuffles.append({"label": label, "input": list(items), "output": list(out)})
        return out

    def uniform(self, n: int, label: str) -> int:
        value = fairness.Stream(self.seed, label).uniform(n)
        self.picks.append({"label": label, "n": n, "value": value})
        return value


def role_cards(ruleset: str, players: int, variants: list[str]) -> list[str]:
    if ruleset == BASE:
        saboteurs, diggers, _ = BASE_SETUP[players]
        if "max-saboteurs" in variants:
            diggers -= 1
        return [SABOTEUR] * saboteurs + [GOLD_DIGGER] * diggers
    return [role for role, copies in EXPANSION_ROLES.items() for _ in range(copies)]


def hand_size(ruleset: str, players: int) -> int:
    return BASE_SETUP[players][2] if ruleset == BASE else EXPANSION_HAND_SIZE


def _take(available: Counter, cards, field: str) -> None:
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise BadSetup(field, "must be a list of ids")
    for card in cards:
        if available[card] <= 0:
            raise BadSetup(field, f"{card!r} is not in the rule set or has no copy left")
        available[card] -= 1


def _seat_map(state: State, deal: dict, key: str) -> dict[int, Any]:
    value = deal.get(key, {})
    if not isinstance(value, dict):
        raise BadSetup(f"deals.{key}", "must be an object keyed by seat")
    result = {}
    for name, item in value.items():
        index = state.seat_index(name)
        if index is None:
            raise BadSetup(f"deals.{key}", f"{name!r} is not a seat")
        result[index] = item
    return result


def deal_round(state: State, previous_first: int | None) -> Draws:
    """Lay out the maze and deal roles and cards for ``state.round``; the draws it made."""
    config = state.config
    n = len(config.seats)
    deal = config.deals[state.round - 1] if state.round <= len(config.deals) else None
    deal = deal or {}
    unknown = set(deal) - DEAL_KEYS - {"description", "comment"}
    if unknown:
        raise BadSetup("deals", f"unknown key {sorted(unknown)[0]!r}")
    # The round's seed: reproducible, checkable (docs/fairness.md), never the global generator.
    rng = Draws(config.round_seeds[state.round - 1])
    _deal_roles(state, deal, rng)
    _lay_maze(state, deal, rng)
    _deal_cards(state, deal, rng)
    _choose_first(state, deal, rng, previous_first)
    _choose_greedy(state, deal, rng)
    _prepare_gold(state, deal, rng)
    state.discard = []
    state.in_front = [[] for _ in range(n)]
    state.peeks = [{} for _ in range(n)]
    state.inspections = [{} for _ in range(n)]
    state.theft_laid = {}
    state.role_discards = []
    state.treasure_found = False
    state.finisher = None
    state.last_turn_seat = None
    state.offer, state.pickers, state.thieves = [], [], []
    state.result = None
    state.decision = TURN
    return rng


def round_draws(config: Config, round_number: int) -> dict[str, Any]:
    """What a round's deal drew and the deal it made, from the game's configuration alone (the
    engine draws nothing else: docs/fairness.md, "From the seeds to the deal"): the round's
    ``shuffles`` and ``picks``, ``hand_size``, and ``deal`` (``roles``, ``set_aside``, ``goals``
    north to south, ``removed``, ``hands``, ``pile``; ``first`` in round 1, where it is drawn;
    ``greedy`` with the variant)."""
    state = State(config=config, gold=[0] * len(config.seats))
    state.round = round_number
    draws = deal_round(state, previous_first=None if round_number == 1 else 0)
    deal: dict[str, Any] = {
        "roles": state.roles,
        "set_aside": state.set_aside,
        "goals": {name: state.board[position].card for name, position in state.goals.items()},
        "removed": state.removed,
        "hands": state.hands,
        "pile": state.pile,
    }
    if round_number == 1:
        deal["first"] = state.first_seat
    if "greedy-dwarf" in config.variants:
        deal["greedy"] = state.greedy
    return {
        "shuffles": draws.shuffles,
        "picks": draws.picks,
        "hand_size": hand_size(config.ruleset, len(config.seats)),
        "deal": deal,
    }


def gold_draws(config: Config) -> list[dict[str, Any]]:
    """The shuffle of the base game's gold supply (from the game's gold seed), as drawn."""
    if config.ruleset != BASE:
        return []
    draws = Draws(config.gold_seed)
    draws.shuffle(_gold_cards(config), "gold")
    return draws.shuffles


def _gold_cards(config: Config) -> list[int]:
    return list(OLD_MINE_GOLD if "old-mine" in config.variants else BASE_GOLD)


def _deal_roles(state: State, deal: dict, rng: Draws) -> None:
    config = state.config
    available = Counter(role_cards(config.ruleset, len(config.seats), config.variants))
    fixed = _seat_map(state, deal, "roles")
    _take(available, list(fixed.values()), "deals.roles")
    aside = deal.get("set_aside", [])
    _take(available, aside, "deals.set_aside")
    # Seat by seat, the shuffled role cards from the start (docs/fairness.md); the rest set aside.
    rest = iter(rng.shuffle(list(available.elements()), "roles"))
    state.roles = [fixed[i] if i in fixed else next(rest) for i in range(len(config.seats))]
    state.set_aside = list(aside) + list(rest)


def _lay_maze(state: State, deal: dict, rng: Draws) -> None:
    if "goals" in deal:
        goals = deal["goals"]
        if not isinstance(goals, dict) or sorted(goals) != sorted(GOAL_NAMES):
            raise BadSetup("deals.goals", "must name the cards at north, middle and south")
        cards = list(goals.values())
        if not all(isinstance(card, str) for card in cards) or sorted(cards) != sorted(GOAL_CARDS):
            raise BadSetup("deals.goals", f"must use each of {', '.join(GOAL_CARDS)} once")
        cards = [goals[name] for name in GOAL_NAMES]
    elif "treasure" in deal:
        if deal["treasure"] not in GOAL_NAMES:
            raise BadSetup("deals.treasure", "must be north, middle or south")
        stones = iter(rng.shuffle([c for c in GOAL_CARDS if c != TREASURE], "goals"))
        cards = [TREASURE if name == deal["treasure"] else next(stones) for name in GOAL_NAMES]
    else:
        cards = rng.shuffle(list(GOAL_CARDS), "goals")
    state.board = {START_POSITION: Placed("start")}
    state.goals = {}
    for name, card in zip(GOAL_NAMES, cards, strict=True):
        position = GOAL_POSITIONS[name]
        state.board[position] = Placed(card, False, True)
        state.goals[name] = position


def _deal_cards(state: State, deal: dict, rng: Draws) -> None:
    config = state.config
    available = Counter(deck(config.ruleset))
    hands = _seat_map(state, deal, "hands")
    for index, cards in hands.items():
        _take(available, cards, f"deals.hands.{config.seats[index]}")
    pile = deal.get("pile", [])
    _take(available, pile, "deals.pile")
    rest = rng.shuffle(list(available.elements()), "deck")
    if config.ruleset != BASE:
        state.removed, rest = rest[:EXPANSION_REMOVED], rest[EXPANSION_REMOVED:]
    else:
        state.removed = []
    size = hand_size(config.ruleset, len(config.seats))
    state.hands = []
    for index in range(len(config.seats)):
        if index in hands:
            state.hands.append(list(hands[index]))
        else:
            state.hands.append(rest[:size])
            rest = rest[size:]
    state.pile = list(pile) + rest


def _choose_first(state: State, deal: dict, rng: Draws, previous: int | None) -> None:
    n = len(state.config.seats)
    if "first" in deal:
        first = state.seat_index(deal["first"])
        if first is None:
            raise BadSetup("deals.first", f"{deal['first']!r} is not a seat")
    elif previous is None:
        # Decision D4: a random first seat stands in for the youngest.
        first = rng.uniform(n, "first")
    else:
        first = previous
    state.first_seat = first
    state.to_move = first


def _choose_greedy(state: State, deal: dict, rng: Draws) -> None:
    state.greedy = None
    if "greedy" in deal:
        greedy = state.seat_index(deal["greedy"])
        if greedy is None or state.roles[greedy] != GOLD_DIGGER:
            raise BadSetup("deals.greedy", "must name a gold digger")
        if "greedy-dwarf" not in state.config.variants:
            raise BadSetup("deals.greedy", "needs the greedy-dwarf variant")
        state.greedy = greedy
    elif "greedy-dwarf" in state.config.variants:
        diggers = [i for i, role in enumerate(state.roles) if role == GOLD_DIGGER]
        state.greedy = diggers[rng.uniform(len(diggers), "greedy")] if diggers else None


def _prepare_gold(state: State, deal: dict, rng: Draws) -> None:
    if state.config.ruleset != BASE:
        if "gold" in deal:
            raise BadSetup("deals.gold", "saboteur2 has no gold cards")
        return
    if state.round == 1:
        state.gold_supply = Draws(state.config.gold_seed).shuffle(_gold_cards(state.config), "gold")
    top = deal.get("gold", [])
    if not isinstance(top, list) or not all(type(v) is int for v in top):
        raise BadSetup("deals.gold", "must be a list of gold values")
    rest = list(state.gold_supply)
    for value in top:
        if value not in rest:
            raise BadSetup("deals.gold", f"no gold card of value {value} left in the supply")
        rest.remove(value)
    state.gold_supply = list(top) + rest


def card_known(ruleset: str, card_id: object) -> bool:
    """Whether ``card_id`` names a card of the rule set's deck."""
    return (
        isinstance(card_id, str) and card_id in CATALOGUE and CATALOGUE[card_id].copies(ruleset) > 0
    )
