"""Rule scenarios (docs/scenarios.md): ``python -m games.engine.scenario FILE.json ...``.

Prints one JSON summary per file. Exit 0 when every expectation held, 1 when one failed (or a
move was accepted or refused against the file), 2 when a file is not a valid scenario.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import GOAL_NAMES
from .create import new_game
from .errors import BadSetup, IllegalMove
from .rules import apply_in_place
from .state import State, pos_key

SUMMARY_ROUND_KEYS = ("treasure_found", "finisher", "winners", "gained", "thefts")


class Malformed(Exception):
    """The file is not a valid scenario: names the field and why."""

    def __init__(self, field: str, why: str):
        self.field, self.why = field, why
        super().__init__(f"{field}: {why}")


@dataclass
class Outcome:
    summary: dict | None = None
    failures: list[str] = field(default_factory=list)


def round_seeds(seed, rounds: int) -> list[str]:
    """Every round's seed, derived from the scenario's one seed."""
    return [f"scenario:{seed}:round:{r}" for r in range(1, rounds + 1)]


def summary(state: State) -> dict:
    """The state in the output format of docs/scenarios.md (everything, secrets included)."""
    names = state.seats
    board = {}
    for position, placed in sorted(state.board.items()):
        if placed.face_down:
            continue
        entry: dict[str, str | bool] = {"card": placed.card}
        if placed.card != "start":
            entry["turned"] = placed.turned
        board[pos_key(position)] = entry
    return {
        "round": state.round,
        "finished": state.finished,
        "to_move": names[state.to_move] if state.to_move is not None else None,
        "decision": state.decision,
        "board": board,
        "hidden_goals": [name for name in GOAL_NAMES if state.board[state.goals[name]].face_down],
        "hands": {name: sorted(state.hands[i]) for i, name in enumerate(names)},
        "pile": len(state.pile),
        "in_front": {name: sorted(state.in_front[i]) for i, name in enumerate(names)},
        "roles": dict(zip(names, state.roles, strict=True)),
        "gold": dict(zip(names, state.gold, strict=True)),
        "rounds_done": [_summary_round(result) for result in state.rounds_done],
    }


def _summary_round(result: Mapping[str, object]) -> dict:
    return {key: result[key] for key in SUMMARY_ROUND_KEYS}


def matches(expected, actual) -> bool:
    """Subset match: objects compare only the keys given, lists element by element."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and matches(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return expected == actual


def _differences(expected, actual, path: str = "expect") -> list[str]:
    if matches(expected, actual):
        return []
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing from the output")
            else:
                found += _differences(value, actual[key], f"{path}.{key}")
        return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        found = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found += _differences(e, a, f"{path}[{i}]")
        return found
    return [f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}"]


def _require(data: dict, key: str, kind, default=None, *, required=False):
    if key not in data:
        if required:
            raise Malformed(key, "is required")
        return default
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Malformed(key, f"must be {getattr(kind, '__name__', kind)}")
    return value


def load(data) -> tuple[State, list[dict], dict]:
    """Set up the scenario's game; return it, the moves and the expectations."""
    if not isinstance(data, dict):
        raise Malformed("(top level)", "must be a JSON object")
    ruleset = _require(data, "ruleset", str, required=True)
    seats = _require(data, "seats", list, required=True)
    variants = _require(data, "variants", list, [])
    rounds = _require(data, "rounds", int, 3)
    seed = data.get("seed", 0)
    if not isinstance(seed, (int, str)) or isinstance(seed, bool):
        raise Malformed("seed", "must be a number or a string")
    deals = _require(data, "deals", list, [])
    moves = _require(data, "moves", list, [])
    expect = _require(data, "expect", dict, {})
    for i, move in enumerate(moves):
        if not isinstance(move, dict):
            raise Malformed(f"moves[{i}]", "must be an object")
        if "seat" not in move:
            raise Malformed(f"moves[{i}].seat", "is required")
        if "reject" in move and not isinstance(move["reject"], str):
            raise Malformed(f"moves[{i}].reject", "must be a reason code")
    try:
        state = new_game(
            ruleset=ruleset,
            seats=seats,
            variants=variants,
            rounds=rounds,
            round_seeds=round_seeds(seed, rounds),
            deals=deals,
            gold_seed=f"scenario:{seed}:gold",
        )
    except BadSetup as error:
        raise Malformed(error.field, error.why) from None
    return state, moves, expect


def run(data) -> Outcome:
    """Play one scenario (already parsed from JSON)."""
    state, moves, expect = load(data)
    outcome = Outcome()
    for i, step in enumerate(moves):
        seat = step["seat"]
        move = {k: v for k, v in step.items() if k not in ("seat", "reject")}
        wanted = step.get("reject")
        before = state.version
        try:
            apply_in_place(state, seat, move)
        except IllegalMove as refusal:
            if wanted != refusal.code:
                said = f"refused with {refusal.code!r} ({refusal.message})"
                hope = f"refusal {wanted!r}" if wanted else "acceptance"
                outcome.failures.append(f"moves[{i}] {json.dumps(step)}: expected {hope}, {said}")
                break
            continue
        except BadSetup as error:
            raise Malformed(f"deals ({error.field})", error.why) from None
        if wanted:
            outcome.failures.append(
                f"moves[{i}] {json.dumps(step)}: expected refusal {wanted!r}, it was accepted"
            )
            break
        assert state.version == before + 1
    outcome.summary = summary(state)
    if not outcome.failures:
        outcome.failures = _differences(expect, outcome.summary)
    return outcome


def run_file(path: str) -> Outcome:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise Malformed("(file)", f"cannot be read: {error.strerror}") from None
    except json.JSONDecodeError as error:
        why = f"is not valid JSON: {error.msg} at line {error.lineno}"
        raise Malformed("(file)", why) from None
    return run(data)


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m games.engine.scenario FILE.json [FILE.json ...]", file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            outcome = run_file(path)
        except Malformed as error:
            print(f"{path}: invalid scenario: field {error.field}: {error.why}", file=sys.stderr)
            status = 2
            continue
        except Exception as error:  # never a traceback, even for an engine bug
            print(f"{path}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
            status = max(status, 1)
            continue
        print(json.dumps(outcome.summary))
        for failure in outcome.failures:
            print(f"{path}: FAILED: {failure}", file=sys.stderr)
        if outcome.failures:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
