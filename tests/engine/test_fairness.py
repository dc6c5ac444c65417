"""``sab-shuffle-v1`` (games/engine/fairness/) against the vectors of docs/fairness.md, and the
offline checker: a deal that matches, and every kind of tampering reported."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import fairness

ROOT = Path(__file__).resolve().parents[2]  # where `python -m` finds the games package
SERVER = bytes(range(32))
ROUND = "aaca749efb845050b8467421662d95715c0b6c9dd271f00cae206ae75c80f1aa"


def test_the_documented_vectors():
    assert fairness.commitment(SERVER) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    seed = fairness.round_seed(SERVER, 42, 1, ["alpha", "beta", "gamma"])
    assert seed.hex() == ROUND
    assert fairness.shuffle(list(range(10)), seed, "deck") == [9, 4, 2, 5, 3, 8, 1, 0, 6, 7]
    roles = ["gold-digger", "gold-digger", "saboteur", "saboteur"]
    assert fairness.shuffle(roles, seed, "roles") == [
        "saboteur", "gold-digger", "gold-digger", "saboteur",
    ]  # fmt: skip
    first = fairness.Stream(seed, "first")
    assert [first.uniform(6) for _ in range(5)] == [3, 0, 4, 0, 4]


def test_uniform_rejects_the_words_that_would_bias_it():
    seed = bytes.fromhex(ROUND)
    stream = fairness.Stream(seed, "rejects")
    # Its first word, 4274263657, is at least 2^32 - (2^32 mod n) = 3,000,000,000: taken again.
    assert stream.uniform(3_000_000_000) == 1061087027
    with pytest.raises(ValueError):
        fairness.Stream(seed, "x").uniform(0)


def test_every_seed_counts_and_the_order_of_seats_too():
    base = fairness.round_seed(SERVER, 42, 1, ["alpha", "beta", "gamma"])
    for other in (
        fairness.round_seed(SERVER, 43, 1, ["alpha", "beta", "gamma"]),
        fairness.round_seed(SERVER, 42, 2, ["alpha", "beta", "gamma"]),
        fairness.round_seed(SERVER, 42, 1, ["alpha", "gamma", "beta"]),
        fairness.round_seed(SERVER, 42, 1, ["alpha", "beta", "gamma!"]),
        fairness.round_seed(bytes(32), 42, 1, ["alpha", "beta", "gamma"]),
    ):
        assert other != base


def test_a_shuffle_is_a_permutation_and_each_position_is_reachable():
    seen = set()
    for k in range(200):
        seed = fairness.round_seed(SERVER, k, 1, ["s"])
        out = fairness.shuffle("abcd", seed, "deck")
        assert sorted(out) == list("abcd")
        seen.add("".join(out))
    assert len(seen) == 24  # all 4! orders come up


def document():
    seed = bytes.fromhex(ROUND)
    return {
        "algorithm": "sab-shuffle-v1",
        "game": 42,
        "round": 1,
        "commitment": fairness.commitment(SERVER),
        "server_seed": SERVER.hex(),
        "player_seeds": ["alpha", "beta", "gamma"],
        "round_seed": ROUND,
        "shuffles": [
            {
                "label": "deck",
                "input": list(range(10)),
                "output": fairness.shuffle(range(10), seed, "deck"),
            },
        ],
    }


def test_the_offline_checker_says_matches_or_what_differs(tmp_path, capsys):
    assert fairness.verify(document()) == []
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(document()))
    assert fairness.main([str(path)]) == 0 and "matches" in capsys.readouterr().out
    tampered = document()
    tampered["player_seeds"][1] = "BETA"
    tampered["shuffles"][0]["output"][0], tampered["shuffles"][0]["output"][1] = (
        tampered["shuffles"][0]["output"][1],
        tampered["shuffles"][0]["output"][0],
    )
    problems = fairness.verify(tampered)
    assert "round_seed: differs" in problems and "shuffle deck: output differs" in problems
    lying = document()
    lying["commitment"] = "0" * 64
    assert fairness.verify(lying) == ["commitment: SHA-256(server_seed) differs"]
    path.write_text(json.dumps(lying))
    assert fairness.main([str(path)]) == 1 and "does not match" in capsys.readouterr().out
    assert fairness.verify({**document(), "server_seed": "zz"}) == [
        "server_seed: missing or not hex"
    ]


def test_uniform_of_one_and_a_bound_that_rejects_almost_half_the_words():
    seed = bytes.fromhex(ROUND)
    assert fairness.Stream(seed, "one").uniform(1) == 0
    # n = 2^31 + 1: words from 2^31 + 1 up are rejected (2^32 mod n = 2^31 - 1).
    half = fairness.Stream(seed, "half")
    assert [half.uniform(2**31 + 1) for _ in range(6)] == [
        150038846, 803870187, 1702132395, 870417110, 2073656630, 157415243,
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"^uniform needs n >= 1$"):
        fairness.Stream(seed, "x").uniform(0)


def test_the_checker_names_each_problem_and_reads_a_document_without_shuffles():
    bare = {key: value for key, value in document().items() if key != "shuffles"}
    assert fairness.verify(bare) == []
    assert fairness.verify({**document(), "algorithm": "v0"}) == [
        "algorithm: expected sab-shuffle-v1"
    ]


def test_the_command_line(tmp_path, capsys, monkeypatch):
    lying = {**document(), "commitment": "0" * 64}
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(lying), encoding="utf-8")
    monkeypatch.setattr("sys.argv", ["fairness", str(path)])
    assert fairness.main() == 1
    assert capsys.readouterr().out == "commitment: SHA-256(server_seed) differs\ndoes not match\n"
    path.write_text(json.dumps(document()), encoding="utf-8")
    assert fairness.main([str(path)]) == 0 and capsys.readouterr().out == "matches\n"
    assert fairness.main([]) == 2
    said = capsys.readouterr()
    assert said.err == "usage: python -m games.engine.fairness DEAL.json\n" and said.out == ""


def test_the_documented_command_prints_the_verdict_alone(tmp_path):
    """``python -m games.engine.fairness`` as docs/fairness.md says, in a fresh interpreter:
    the verdict and nothing on stderr (issue 50: run as a module the engine had already
    imported, it printed runpy's RuntimeWarning first)."""
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(document()), encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "games.engine.fairness", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "matches\n", "")


# -- Deals from the engine: the documents a verifier reads ------------------------------------


def test_a_rounds_draws_are_the_deal_the_engine_dealt():
    """``round_draws`` recomputes a round's deal from the configuration alone: round 1 as
    ``new_game`` dealt it; a later round as it is dealt when the round before ends."""
    import random

    from games import engine
    from games.engine.setup import deal_round

    rng = random.Random(39)
    for ruleset, players, variants in [
        ("base", 3, []), ("base", 10, ["greedy-dwarf"]), ("saboteur2", 7, []),
        ("base", 5, ["old-mine", "max-saboteurs"]), ("saboteur2", 12, []),
    ]:  # fmt: skip
        state = engine.new_game(
            ruleset=ruleset,
            seats=[f"s{i}" for i in range(players)],
            variants=variants,
            rounds=2,
            round_seeds=[rng.randbytes(32).hex(), rng.randbytes(32).hex()],
        )
        first = engine.round_draws(state.config, 1)
        deal = first["deal"]
        assert deal["roles"] == state.roles and deal["hands"] == state.hands
        assert deal["pile"] == state.pile and deal["removed"] == state.removed
        assert deal["set_aside"] == state.set_aside and deal["first"] == state.first_seat
        assert deal.get("greedy") == state.greedy
        later = state.clone()
        later.round = 2
        deal_round(later, previous_first=0)
        second = engine.round_draws(state.config, 2)["deal"]
        assert second["roles"] == later.roles and second["hands"] == later.hands
        assert "first" not in second  # after round 1 the first seat follows the rules, not a draw
        if ruleset == "base":
            (gold,) = engine.gold_draws(state.config)
            assert gold["output"] == state.gold_supply and gold["label"] == "gold"
        else:
            assert engine.gold_draws(state.config) == []


def test_random_documents_match_and_every_tampering_is_reported():
    import random

    from tests.fairness_documents import random_document, tampered

    rng = random.Random(1039)
    for _ in range(40):
        document = random_document(rng)
        assert fairness.verify(document) == [], document["round"]
        forged = tampered(document, rng)
        assert fairness.verify(forged) != [] or forged == document


def test_the_seating_and_the_round_seeds_of_a_game_vector():
    """docs/fairness.md, "A game's seeds": the documented example."""
    servers = [bytes([n] * 32) for n in range(3)]
    seating, seeds = fairness.game_seeds(servers, 42, ["alpha", "beta", "gamma"])
    assert seeds[0] == fairness.round_seed(servers[0], 42, 0, ["alpha", "beta", "gamma"])
    in_seats = [["alpha", "beta", "gamma"][i] for i in seating]
    assert seeds[1] == fairness.round_seed(servers[1], 42, 1, in_seats)
    assert seeds[2] == fairness.round_seed(servers[2], 42, 2, in_seats)
    assert seating == [1, 0, 2]  # beta, alpha, gamma
    assert [seed.hex() for seed in seeds] == [
        "3731319ffc80d68e2494e08800ab3f40f002c1361ddd869c3d1052b32f8bea47",
        "76e9469f8daa0a83584504020c2b2e7254072f942906dde33c1b13adeda5b71c",
        "9610e597477f3150486b8fbafdde025fd5f0c3844b4afea017daad06e66d9c90",
    ]
