"""Starting a game (docs/rules.md 4.1), pinned: the setup each game keeps, the field and words of
every refused setup."""

from __future__ import annotations

import pytest

from games.engine import BadSetup, new_game

SEATS = ["ann", "bob", "cid"]


def refusal(**setup) -> tuple[str, str]:
    arguments = {"ruleset": "base", "seats": list(SEATS), "round_seeds": ["a", "b", "c"]}
    with pytest.raises(BadSetup) as refused:
        new_game(**{**arguments, **setup})
    return refused.value.field, refused.value.why


def test_the_config_keeps_the_setup_and_derives_the_gold_seed_from_the_round_seeds():
    seats = list(SEATS)
    state = new_game(
        ruleset="base", seats=seats, round_seeds=["a", 2], rounds=2, variants=("rivalry",)
    )
    config = state.config
    assert (config.ruleset, config.seats, config.variants) == ("base", SEATS, ["rivalry"])
    assert config.seats is not seats and type(config.variants) is list
    assert config.rounds == 2 and config.round_seeds == ["a", "2"] and config.deals == []
    assert config.gold_seed == "a:2"
    assert state.gold == [0, 0, 0] and state.round == 1 and state.decision == "turn"
    chosen = new_game(ruleset="base", seats=seats, round_seeds=["a"], rounds=1, gold_seed=7)
    assert chosen.config.gold_seed == "7"
    assert new_game(ruleset="saboteur2", seats=["a", "b"], round_seeds=["s"] * 3).config.rounds == 3


@pytest.mark.parametrize(
    ("setup", "field", "why"),
    [
        ({"ruleset": "chess"}, "ruleset", "unknown rule set 'chess'"),
        ({"seats": "ann"}, "seats", "must be a list of non-empty names"),
        ({"seats": ["ann", "", "cid"]}, "seats", "must be a list of non-empty names"),
        ({"seats": ["ann", 2, "cid"]}, "seats", "must be a list of non-empty names"),
        ({"seats": ["ann", "ann", "cid"]}, "seats", "names must be unique"),
        ({"seats": ["ann", "bob"]}, "seats", "base is for 3 to 10 players"),
        ({"seats": [str(i) for i in range(11)]}, "seats", "base is for 3 to 10 players"),
        ({"ruleset": "saboteur2", "seats": ["ann"]}, "seats", "saboteur2 is for 2 to 12 players"),
        ({"variants": ["rivalry", "chess"]}, "variants", "unknown variant 'chess'"),
        ({"ruleset": "saboteur2", "variants": ["rivalry"]}, "variants",
         "variants belong to the base game"),
        ({"rounds": 0}, "rounds", "must be a whole number of at least 1"),
        ({"rounds": 1.0}, "rounds", "must be a whole number of at least 1"),
        ({"rounds": True}, "rounds", "must be a whole number of at least 1"),
        ({"rounds": 4}, "round_seeds", "one seed per round is needed"),
        ({"deals": [None, "x"]}, "deals[1]", "must be an object"),
        ({"deals": [{}, {"first": "zed"}]}, "deals.first", "'zed' is not a seat"),
    ],
)  # fmt: skip
def test_a_refused_setup_names_its_field(setup, field, why):
    assert refusal(**setup) == (field, why)


def test_a_tuple_of_seats_and_a_deal_of_none_are_accepted():
    state = new_game(ruleset="base", seats=("ann", "bob", "cid"), round_seeds=["a"], rounds=1,
                     deals=[None])  # fmt: skip
    assert state.seats == SEATS and state.config.deals == [None]


def test_an_impossible_later_deal_is_refused_at_the_start_only_for_rounds_played():
    """Round 3's rigged deal is checked when the game starts; a deal past the last round is not."""
    assert refusal(deals=[{}, {}, {"first": "zed"}]) == ("deals.first", "'zed' is not a seat")
    state = new_game(ruleset="base", seats=list(SEATS), round_seeds=["a"], rounds=1,
                     deals=[{}, {"first": "zed"}])  # fmt: skip
    assert (
        state.round == 1
        and state.hands
        == new_game(ruleset="base", seats=list(SEATS), round_seeds=["a"], rounds=1).hands
    )
