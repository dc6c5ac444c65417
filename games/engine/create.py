"""Starting a game (docs/rules.md 4.1): check the setup, deal round 1 (``setup``) and open it
(``rules``). Above both, so that neither needs the other's caller.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BASE, PLAYERS, RULESETS, VARIANTS
from .errors import BadSetup
from .rules import open_first_round
from .setup import deal_round
from .state import Config, State


def new_game(
    *,
    ruleset: str,
    seats: list[str],
    round_seeds: list[str],
    variants: Sequence[str] = (),
    rounds: int = 3,
    deals: list[dict | None] | None = None,
    gold_seed: str | None = None,
) -> State:
    """A new game, with round 1 dealt. ``round_seeds`` holds one secret seed per round and
    ``gold_seed`` one for the gold supply (the caller draws them: the engine has no randomness).
    """
    variants = _checked_variants(ruleset, seats, variants)
    _check_rounds(rounds, round_seeds)
    deals = _checked_deals(deals)
    config = Config(
        ruleset=ruleset,
        seats=list(seats),
        variants=variants,
        rounds=rounds,
        round_seeds=[str(seed) for seed in round_seeds],
        deals=deals,
        # Without one (tests), derived from every round seed: public only once the game is over.
        gold_seed=str(gold_seed) if gold_seed is not None else ":".join(map(str, round_seeds)),
    )
    state = State(config=config, gold=[0] * len(seats))
    deal_round(state, previous_first=None)
    # Refuse an impossible rigged deal of a later round now rather than mid-game.
    for later in range(2, min(len(deals), rounds) + 1):
        scratch = state.clone()
        scratch.round = later
        deal_round(scratch, previous_first=0)
    open_first_round(state)
    return state


def _checked_variants(ruleset: str, seats: list[str], variants: Sequence[str]) -> list[str]:
    """The rule set, the seats and the variants checked, in that order; the variants listed."""
    if ruleset not in RULESETS:
        raise BadSetup("ruleset", f"unknown rule set {ruleset!r}")
    if not isinstance(seats, (list, tuple)) or not all(isinstance(s, str) and s for s in seats):
        raise BadSetup("seats", "must be a list of non-empty names")
    if len(set(seats)) != len(seats):
        raise BadSetup("seats", "names must be unique")
    low, high = PLAYERS[ruleset]
    if not low <= len(seats) <= high:
        raise BadSetup("seats", f"{ruleset} is for {low} to {high} players")
    listed = list(variants)
    for variant in listed:
        if variant not in VARIANTS:
            raise BadSetup("variants", f"unknown variant {variant!r}")
        if ruleset != BASE:
            raise BadSetup("variants", "variants belong to the base game")
    return listed


def _check_rounds(rounds: int, round_seeds: list[str]) -> None:
    if type(rounds) is not int or rounds < 1:
        raise BadSetup("rounds", "must be a whole number of at least 1")
    if len(round_seeds) < rounds:
        raise BadSetup("round_seeds", "one seed per round is needed")


def _checked_deals(deals: list[dict | None] | None) -> list[dict | None]:
    listed = list(deals or [])
    for index, deal in enumerate(listed):
        if deal is not None and not isinstance(deal, dict):
            raise BadSetup(f"deals[{index}]", "must be an object")
    return listed
