"""The engine's public API beyond what scenarios express: set-up checks, seeds, snapshots."""

import json
import re
from pathlib import Path

import pytest

from games.engine import BadSetup, IllegalMove, apply, new_game, seed_hash, view_for
from games.engine.state import State

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def game(ruleset="base", players=4, **options):
    seats = [f"s{i}" for i in range(players)]
    rounds = options.pop("rounds", 3)
    seeds = options.pop("round_seeds", [f"seed-{r}" for r in range(rounds)])
    return new_game(ruleset=ruleset, seats=seats, round_seeds=seeds, rounds=rounds, **options)


def pass_to_the_end(state):
    """Play the game out by passing (and keeping the highest gold card when offered)."""
    while not state.finished:
        seat = state.seats[state.to_move]
        move = (
            {"move": "pass", "discard": [state.hands[state.to_move][0]]}
            if state.decision == "turn"
            else {"move": "pick-gold", "value": max(state.offer)}
        )
        state, _ = apply(state, seat, move)
    return state


@pytest.mark.parametrize(
    ("ruleset", "players"), [("base", 2), ("base", 11), ("saboteur2", 1), ("saboteur2", 13)]
)
def test_player_counts_outside_the_rule_set_are_refused(ruleset, players):
    with pytest.raises(BadSetup):
        game(ruleset, players)


def test_variants_belong_to_the_base_game():
    with pytest.raises(BadSetup):
        game("saboteur2", 4, variants=["rivalry"])
    with pytest.raises(BadSetup):
        game("base", 4, variants=["no-such-variant"])


def test_d4_first_seat_is_drawn_from_the_round_seed():
    """Decision D4: round 1 starts with a random seat; the same seed gives the same seat."""
    firsts = {game(round_seeds=[f"s{i}", "x", "y"]).to_move for i in range(60)}
    assert firsts == {0, 1, 2, 3}
    assert game(round_seeds=["a", "b", "c"]).to_move == game(round_seeds=["a", "b", "c"]).to_move


def test_the_same_seeds_deal_the_same_game_and_other_seeds_another():
    assert game().to_json() == game().to_json()
    assert game().hands != game(round_seeds=["other", "b", "c"]).hands


def test_snapshot_round_trips_through_json_text():
    state = game("saboteur2", 7)
    text = json.dumps(state.to_json())
    assert State.from_json(json.loads(text)) == state
    assert json.dumps(State.from_json(json.loads(text)).to_json()) == text


def test_a_state_read_from_json_shares_nothing_with_it():
    data = game().to_json()
    state = State.from_json(data)
    data["config"]["seats"][0] = "changed"
    data["hands"][0].append("changed")
    assert state.seats[0] == "s0" and "changed" not in state.hands[0]


def test_refused_move_leaves_the_state_as_it_was():
    state = game()
    before = state.to_json()
    seat = state.seats[state.to_move]
    with pytest.raises(IllegalMove) as refused:
        apply(state, seat, {"move": "place", "card": state.hands[state.to_move][0], "at": [0, 0]})
    assert refused.value.code in {"occupied", "wrong-card"}
    assert state.to_json() == before


def test_views_show_the_seed_hash_during_the_round_and_the_seed_after_it():
    state = game(rounds=1)
    seed = state.config.round_seeds[0]
    for seat in [None, *state.seats]:
        view = view_for(state, seat)
        assert view["seed_hash"] == seed_hash(seed)
        assert seed not in json.dumps(view)
    state = pass_to_the_end(state)
    assert view_for(state, None)["rounds_done"][0]["seed"] == seed


def test_every_decision_of_the_rules_has_a_scenario():
    """Decisions D1 to D12 of docs/rules.md each have a scenario named after them."""
    names = [p.name for p in SCENARIOS.glob("*/*.json")]
    missing = [n for n in range(1, 13) if not any(re.match(rf"d{n}_", name) for name in names)]
    assert missing == []


@pytest.mark.parametrize("ruleset", ["base", "saboteur2"])
def test_playable_cards_and_card_filter_agree_with_the_full_list(ruleset):
    import random

    from games.engine import legal_moves, playable_cards

    rng = random.Random(5)
    state = game(ruleset, 5)
    for _ in range(120):
        if state.finished:
            break
        seat = state.seats[state.to_move]
        moves = legal_moves(state, seat)
        played = {m["card"] for m in moves if m["move"] in ("place", "action")}
        assert playable_cards(state, seat) == played
        for card in set(state.hands[state.to_move]):
            with_card = [m for m in moves if m.get("card") == card and m["move"] != "pass"]
            assert legal_moves(state, seat, card=card) == with_card
        state, _ = apply(state, seat, rng.choice(moves))


def test_the_gold_order_has_its_own_seed_revealed_only_at_game_end():
    """Round seeds are published after their round; the gold supply's order must not follow."""
    import dataclasses

    state = game(rounds=1, gold_seed="gold-secret")
    other = state.clone()
    other.config = dataclasses.replace(state.config, gold_seed="another")
    for seat in [None, *state.seats]:
        mine, theirs = view_for(state, seat), view_for(other, seat)
        assert mine["gold_seed_hash"] == seed_hash("gold-secret") != theirs["gold_seed_hash"]
        mine.pop("gold_seed_hash"), theirs.pop("gold_seed_hash")
        assert mine == theirs
        assert mine["gold_seed"] is None
    same_rounds = game(rounds=1, gold_seed="another")
    assert same_rounds.gold_supply != state.gold_supply  # the gold seed alone orders the gold
    assert same_rounds.hands == state.hands
    state = pass_to_the_end(state)
    assert view_for(state, None)["gold_seed"] == "gold-secret"
