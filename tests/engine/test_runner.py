"""The scenario runner's command-line contract (docs/scenarios.md): output, exit codes, errors."""

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from games.engine.scenario import Malformed, load, main, matches, run_file

ROOT = Path(__file__).resolve().parents[2]

BASIC = {
    "ruleset": "base",
    "seats": ["ann", "bob", "cid"],
    "seed": 7,
    "deals": [
        {
            "roles": {"ann": "gold-digger", "bob": "saboteur", "cid": "gold-digger"},
            "first": "ann",
            "hands": {"ann": ["cross"], "bob": ["straight-ew"], "cid": ["map"]},
        }
    ],
    "moves": [
        {"seat": "bob", "move": "pass", "discard": ["straight-ew"], "reject": "not-your-decision"},
        {"seat": "ann", "move": "place", "card": "cross", "at": [1, 0], "turned": False},
    ],
    "expect": {"to_move": "bob", "board": {"1,0": {"card": "cross"}}, "pile": 63},
}


GOALS = {"north": "goal-stone-ne", "middle": "goal-gold", "south": "goal-stone-nw"}


def write(tmp_path, *scenarios):
    paths = []
    for i, scenario in enumerate(scenarios):
        path = tmp_path / f"s{i}.json"
        text = scenario if isinstance(scenario, str) else json.dumps(scenario)
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def run(tmp_path, *scenarios):
    """``python -m games.engine.scenario`` on the scenarios, as a separate process."""
    return subprocess.run(
        [sys.executable, "-m", "games.engine.scenario", *write(tmp_path, *scenarios)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run_here(tmp_path, capsys, *scenarios) -> Ran:
    """The same command's ``main``, in this process: its output, exit code and messages."""
    paths = write(tmp_path, *scenarios)
    code = main(paths)
    out, err = capsys.readouterr()
    return Ran(code, out, err.replace(str(tmp_path) + "/", ""))


def test_passing_scenario_prints_summary_and_exits_0(tmp_path):
    result = run(tmp_path, BASIC)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["to_move"] == "bob"
    assert summary["decision"] == "turn"
    assert summary["board"]["0,0"] == {"card": "start"}
    assert summary["hidden_goals"] == ["north", "middle", "south"]
    assert set(summary) == {
        "round", "finished", "to_move", "decision", "board", "hidden_goals", "hands", "pile",
        "in_front", "roles", "gold", "rounds_done",
    }  # fmt: skip


def test_one_summary_per_file(tmp_path, capsys):
    result = run_here(tmp_path, capsys, BASIC, BASIC)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]
    assert json.loads(lines[0]) == run_file(str(tmp_path / "s0.json")).summary


def test_the_summary_says_everything_of_the_state(tmp_path, capsys):
    summary = json.loads(run_here(tmp_path, capsys, BASIC).stdout)
    assert summary == {
        "round": 1,
        "finished": False,
        "to_move": "bob",
        "decision": "turn",
        "board": {"0,0": {"card": "start"}, "1,0": {"card": "cross", "turned": False}},
        "hidden_goals": ["north", "middle", "south"],
        "hands": {"ann": ["t-new"], "bob": ["straight-ew"], "cid": ["map"]},
        "pile": 63,
        "in_front": {"ann": [], "bob": [], "cid": []},
        "roles": {"ann": "gold-digger", "bob": "saboteur", "cid": "gold-digger"},
        "gold": {"ann": 0, "bob": 0, "cid": 0},
        "rounds_done": [],
    }


def test_failed_expectation_exits_1_and_says_what(tmp_path, capsys):
    scenario = {**BASIC, "expect": {"to_move": "cid"}}
    result = run_here(tmp_path, capsys, scenario)
    assert result.returncode == 1
    assert result.stderr == 's0.json: FAILED: expect.to_move: expected "cid", got "bob"\n'


def test_every_difference_is_named_by_its_path(tmp_path, capsys):
    expect = {
        "to_move": "bob",
        "board": {"1,0": {"card": "t-nse", "turned": False}, "5,5": {"card": "cross"}},
        "hands": {"bob": ["map"], "cid": ["map"]},
        "hidden_goals": ["north", "middle"],
        "in_front": {"ann": {"break-cart": True}},
        "roles": ["ann", "bob", "cid"],
        "nothing": 1,
    }
    result = run_here(tmp_path, capsys, {**BASIC, "expect": expect})
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        's0.json: FAILED: expect.board.1,0.card: expected "t-nse", got "cross"',
        "s0.json: FAILED: expect.board.5,5: missing from the output",
        's0.json: FAILED: expect.hands.bob[0]: expected "map", got "straight-ew"',
        's0.json: FAILED: expect.hidden_goals: expected ["north", "middle"], '
        'got ["north", "middle", "south"]',
        's0.json: FAILED: expect.in_front.ann: expected {"break-cart": true}, got []',
        's0.json: FAILED: expect.roles: expected ["ann", "bob", "cid"], got {"ann": '
        '"gold-digger", "bob": "saboteur", "cid": "gold-digger"}',
        "s0.json: FAILED: expect.nothing: missing from the output",
    ]


def test_each_differing_element_of_a_list_is_named(tmp_path, capsys):
    expect = {"hidden_goals": ["south", "north", "middle"], "to_move": {"seat": "bob"}}
    result = run_here(tmp_path, capsys, {**BASIC, "expect": expect})
    assert result.stderr.splitlines() == [
        's0.json: FAILED: expect.hidden_goals[0]: expected "south", got "north"',
        's0.json: FAILED: expect.hidden_goals[1]: expected "north", got "middle"',
        's0.json: FAILED: expect.hidden_goals[2]: expected "middle", got "south"',
        's0.json: FAILED: expect.to_move: expected {"seat": "bob"}, got "bob"',
    ]


def test_wrong_refusal_code_exits_1(tmp_path, capsys):
    moves = [dict(BASIC["moves"][0], reject="malformed")]
    result = run_here(tmp_path, capsys, {**BASIC, "moves": moves, "expect": {}})
    assert result.returncode == 1
    assert result.stderr == (
        's0.json: FAILED: moves[0] {"seat": "bob", "move": "pass", "discard": ["straight-ew"], '
        '"reject": "malformed"}: expected refusal \'malformed\', refused with '
        "'not-your-decision' (It is not your decision now, or this move does not fit it.)\n"
    )


def test_accepted_move_marked_reject_exits_1(tmp_path, capsys):
    moves = [dict(BASIC["moves"][1], reject="occupied"), BASIC["moves"][1]]
    result = run_here(tmp_path, capsys, {**BASIC, "moves": moves, "expect": {}})
    assert result.returncode == 1
    # The first failure stops the scenario: the second move is not played.
    assert result.stderr == (
        's0.json: FAILED: moves[0] {"seat": "ann", "move": "place", "card": "cross", '
        '"at": [1, 0], "turned": false, "reject": "occupied"}: expected refusal \'occupied\', '
        "it was accepted\n"
    )
    assert json.loads(result.stdout)["to_move"] == "bob"


def test_refused_move_without_reject_exits_1(tmp_path, capsys):
    moves = [{"seat": "ann", "move": "place", "card": "cross", "at": [0, 0]}, BASIC["moves"][1]]
    result = run_here(tmp_path, capsys, {**BASIC, "moves": moves, "expect": {}})
    assert result.returncode == 1
    assert result.stderr == (
        's0.json: FAILED: moves[0] {"seat": "ann", "move": "place", "card": "cross", '
        "\"at\": [0, 0]}: expected acceptance, refused with 'occupied' "
        "(That position already holds a card.)\n"
    )
    assert json.loads(result.stdout)["to_move"] == "ann"


def test_a_refusal_as_expected_goes_on_to_the_next_move(tmp_path, capsys):
    result = run_here(tmp_path, capsys, BASIC)
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["board"]["1,0"] == {"card": "cross", "turned": False}


BROKEN = [
    ("{not json",
     "(file): is not valid JSON: Expecting property name enclosed in double quotes at line 1"),
    ("[]", "(top level): must be a JSON object"),
    ({**BASIC, "ruleset": "chess"}, "ruleset: unknown rule set 'chess'"),
    ({**BASIC, "ruleset": 1}, "ruleset: must be str"),
    ({k: v for k, v in BASIC.items() if k != "ruleset"}, "ruleset: is required"),
    ({k: v for k, v in BASIC.items() if k != "seats"}, "seats: is required"),
    ({**BASIC, "seats": "ann"}, "seats: must be list"),
    ({**BASIC, "variants": "rivalry"}, "variants: must be list"),
    ({**BASIC, "variants": ["chess"]}, "variants: unknown variant 'chess'"),
    ({**BASIC, "rounds": "3"}, "rounds: must be int"),
    ({**BASIC, "rounds": True}, "rounds: must be int"),
    ({**BASIC, "rounds": 0}, "rounds: must be a whole number of at least 1"),
    ({**BASIC, "seed": True}, "seed: must be a number or a string"),
    ({**BASIC, "seed": [1]}, "seed: must be a number or a string"),
    ({**BASIC, "deals": {}}, "deals: must be list"),
    ({**BASIC, "moves": {}}, "moves: must be list"),
    ({**BASIC, "expect": []}, "expect: must be dict"),
    ({**BASIC, "deals": [{"hands": {"ann": ["cross"] * 6}}]},
     "deals.hands.ann: 'cross' is not in the rule set or has no copy left"),
    ({**BASIC, "deals": [{"hands": {"ann": ["bridge"]}}]},
     "deals.hands.ann: 'bridge' is not in the rule set or has no copy left"),
    ({**BASIC, "deals": [{"roles": {"zed": "saboteur"}}]}, "deals.roles: 'zed' is not a seat"),
    ({**BASIC, "moves": ["place"]}, "moves[0]: must be an object"),
    ({**BASIC, "moves": [BASIC["moves"][1], {"move": "pass"}]}, "moves[1].seat: is required"),
    ({**BASIC, "moves": [dict(BASIC["moves"][0], reject=1)]},
     "moves[0].reject: must be a reason code"),
]  # fmt: skip


@pytest.mark.parametrize(("scenario", "why"), BROKEN)
def test_a_malformed_file_exits_2_with_one_line_naming_the_field(tmp_path, capsys, scenario, why):
    result = run_here(tmp_path, capsys, scenario)
    assert result.returncode == 2
    assert result.stderr == f"s0.json: invalid scenario: field {why}\n"
    assert result.stdout == ""


def test_malformed_files_exit_2_with_one_line_naming_file_and_field(tmp_path):
    result = run(tmp_path, {**BASIC, "moves": ["place"]})
    assert result.returncode == 2
    assert (
        result.stderr
        == f"{tmp_path / 's0.json'}: invalid scenario: field moves[0]: must be an object\n"
    )


def test_a_missing_file_and_no_file_at_all(tmp_path, capsys):
    missing = str(tmp_path / "none.json")
    assert main([missing]) == 2
    assert capsys.readouterr().err == (
        f"{missing}: invalid scenario: field (file): cannot be read: No such file or directory\n"
    )
    assert main([]) == 2
    assert capsys.readouterr().err == (
        "usage: python -m games.engine.scenario FILE.json [FILE.json ...]\n"
    )


def test_without_arguments_main_reads_the_command_line(tmp_path, capsys, monkeypatch):
    paths = write(tmp_path, BASIC, {**BASIC, "expect": {"round": 3}})
    monkeypatch.setattr(sys, "argv", ["scenario", *paths])
    assert main() == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2 and err.endswith("expect.round: expected 3, got 1\n")


def test_a_malformed_scenario_says_its_field_and_why():
    assert str(Malformed("seats", "is required")) == "seats: is required"
    assert (Malformed("seats", "x").field, Malformed("seats", "x").why) == ("seats", "x")


def test_a_later_deal_impossible_only_once_played_is_malformed(tmp_path, capsys):
    """Round 2 asks for two gold cards of 3 on top; only one is left once round 1's diggers have
    taken three (the check at the start saw all four)."""
    route = ["cross", "cross", "straight-ew", "straight-ew", "t-new", "t-new", "cross"]
    roles = {"ann": "gold-digger", "bob": "gold-digger", "cid": "saboteur"}
    moves = []
    for x, card in enumerate(route, start=1):
        moves.append({"seat": "ann", "move": "place", "card": card, "at": [x, 0]})
        moves.append({"seat": "bob", "move": "pass", "discard": ["map"]})
    scenario = {
        "ruleset": "base",
        "seats": ["ann", "bob", "cid"],
        "rounds": 2,
        "deals": [
            {"first": "ann", "roles": roles, "goals": GOALS, "gold": [3, 3, 3],
             "hands": {"ann": route, "bob": ["map"] * 6 + ["rockfall"], "cid": []}},
            {"gold": [3, 3]},
        ],
        "moves": moves[:-1],
    }  # fmt: skip
    result = run_here(tmp_path, capsys, scenario)
    assert result.returncode == 2
    assert result.stderr == (
        "s0.json: invalid scenario: field deals (deals.gold): "
        "no gold card of value 3 left in the supply\n"
    )


def test_exit_2_wins_over_exit_1(tmp_path, capsys):
    result = run_here(tmp_path, capsys, {**BASIC, "expect": {"round": 3}}, "[]", BASIC)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "s0.json: FAILED: expect.round: expected 3, got 1",
        "s1.json: invalid scenario: field (top level): must be a JSON object",
    ]
    assert len(result.stdout.strip().splitlines()) == 2


def test_exit_1_stays_after_a_passing_file(tmp_path, capsys):
    result = run_here(tmp_path, capsys, {**BASIC, "expect": {"round": 3}}, BASIC)
    assert result.returncode == 1


def test_a_seed_and_the_rounds_make_the_games_seeds(tmp_path):
    state, moves, expect = load({**BASIC, "seed": "x", "rounds": 2})
    assert state.config.round_seeds == ["scenario:x:round:1", "scenario:x:round:2"]
    assert state.config.gold_seed == "scenario:x:gold"
    assert (moves, expect) == (BASIC["moves"], BASIC["expect"])
    state, moves, expect = load({"ruleset": "base", "seats": ["ann", "bob", "cid"]})
    assert state.config.round_seeds == [f"scenario:0:round:{r}" for r in (1, 2, 3)]
    assert state.config.variants == [] and (moves, expect) == ([], {})


def test_matches_compares_a_subset_and_tells_booleans_from_numbers():
    assert matches({"a": 1}, {"a": 1, "b": 2})
    assert not matches({"a": 1, "c": 3}, {"a": 1})
    assert not matches({"a": 1}, [1])
    assert matches([{"a": 1}, 2], [{"a": 1, "b": 0}, 2])
    assert not matches([1, 2], [1, 2, 3])
    assert not matches([1], (1,))
    assert not matches([1, 2], [1, 3])
    assert not matches(True, 1) and not matches(1, True) and not matches(0, False)
    assert matches(False, False) and not matches(True, False)
    assert matches(2, 2.0) and not matches("2", 2)
