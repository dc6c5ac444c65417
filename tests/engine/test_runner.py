"""The scenario runner's command-line contract (SCENARIOS.md): output, exit codes, errors."""

import json
import subprocess
import sys
from pathlib import Path

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


def run(tmp_path, *scenarios):
    paths = []
    for i, scenario in enumerate(scenarios):
        path = tmp_path / f"s{i}.json"
        text = scenario if isinstance(scenario, str) else json.dumps(scenario)
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return subprocess.run(
        [sys.executable, "-m", "games.engine.scenario", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


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


def test_one_summary_per_file(tmp_path):
    result = run(tmp_path, BASIC, BASIC)
    assert result.returncode == 0
    assert len(result.stdout.strip().splitlines()) == 2


def test_failed_expectation_exits_1_and_says_what(tmp_path):
    scenario = {**BASIC, "expect": {"to_move": "cid"}}
    result = run(tmp_path, scenario)
    assert result.returncode == 1
    assert '"cid"' in result.stderr and '"bob"' in result.stderr
    assert "Traceback" not in result.stderr


def test_wrong_refusal_code_exits_1(tmp_path):
    moves = [dict(BASIC["moves"][0], reject="malformed")]
    result = run(tmp_path, {**BASIC, "moves": moves, "expect": {}})
    assert result.returncode == 1
    assert "not-your-decision" in result.stderr


def test_accepted_move_marked_reject_exits_1(tmp_path):
    moves = [dict(BASIC["moves"][1], reject="occupied")]
    result = run(tmp_path, {**BASIC, "moves": moves, "expect": {}})
    assert result.returncode == 1
    assert "accepted" in result.stderr


def test_refused_move_without_reject_exits_1(tmp_path):
    moves = [{"seat": "ann", "move": "place", "card": "cross", "at": [0, 0]}]
    result = run(tmp_path, {**BASIC, "moves": moves, "expect": {}})
    assert result.returncode == 1
    assert "occupied" in result.stderr


def test_malformed_files_exit_2_with_one_line_naming_file_and_field(tmp_path):
    broken = [
        "{not json",
        {**BASIC, "ruleset": "chess"},
        {**BASIC, "seats": "ann"},
        {**BASIC, "deals": [{"hands": {"ann": ["cross"] * 6}}]},
        {**BASIC, "deals": [{"hands": {"ann": ["bridge"]}}]},
        {**BASIC, "deals": [{"roles": {"zed": "saboteur"}}]},
        {**BASIC, "moves": ["place"]},
    ]
    for scenario in broken:
        result = run(tmp_path, scenario)
        assert result.returncode == 2, scenario
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "s0.json" in lines[0], result.stderr
        assert "Traceback" not in result.stderr


def test_exit_2_wins_over_exit_1(tmp_path):
    result = run(tmp_path, {**BASIC, "expect": {"round": 3}}, "[]")
    assert result.returncode == 2
