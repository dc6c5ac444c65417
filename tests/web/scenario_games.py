"""A rule scenario (tests/scenarios) played as a real web game: created, joined and started
through the services, dealt the scenario's rigged deal, and its moves submitted one by one through
``move_submit``, so the stored moves, events and snapshot are the site's own."""

from __future__ import annotations

import json
from pathlib import Path

from games import engine
from games.engine.scenario import round_seeds
from games.models import Game, Seat
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from tests.players import create_player

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


SEAT_FIELDS = ("seat", "target", "victim", "first", "greedy")


def _renamed(move: dict, names: list[str]) -> dict:
    """Seat names in a move or a deal's fields as the web's engine names (positions)."""
    return {
        k: str(names.index(v)) if k in SEAT_FIELDS and v in names else v for k, v in move.items()
    }


def _deal(deal: dict | None, names: list[str]) -> dict | None:
    if deal is None:
        return None
    deal = _renamed(deal, names)
    for key in ("hands", "roles", "gold"):
        if isinstance(deal.get(key), dict):
            deal[key] = {str(names.index(k)): v for k, v in deal[key].items()}
    return deal


def scenario_game(name: str, *, stop_before: int | None = None):
    """(game, users by scenario seat name) for ``tests/scenarios/<name>.json``, played to the end
    (or up to move ``stop_before``)."""
    data = json.loads((SCENARIOS / f"{name}.json").read_text())
    names = data["seats"]
    mapped = {
        "deals": [_deal(deal, names) for deal in data.get("deals", [])],
        "moves": [_renamed(move, names) for move in data.get("moves", [])],
    }
    users = [create_player(f"p{index}x{seat}"[:30]) for index, seat in enumerate(names)]
    game = game_create(
        creator=users[0],
        name="Scenario",
        ruleset=data["ruleset"],
        max_seats=len(names),
        rounds=data.get("rounds", 3),
        variants=data.get("variants", []),
    )
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=users[0])
    rounds = data.get("rounds", 3)
    state = engine.new_game(
        ruleset=data["ruleset"],
        seats=[str(i) for i in range(len(names))],
        variants=data.get("variants", []),
        rounds=rounds,
        round_seeds=round_seeds(data.get("seed", 0), rounds),
        deals=mapped["deals"] or [],
        gold_seed=f"scenario:{data.get('seed', 0)}:gold",
    )
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json(), to_move=state.to_move)
    # users[i] sits at position i (engine seat "i"), so names in failures read as the scenario's.
    Seat.objects.filter(game=game).update(position=None)
    for index, user in enumerate(users):
        Seat.objects.filter(game=game, user=user).update(position=index)
    players = dict(zip(names, users, strict=True))
    play_moves(game, name, 0, stop_before)
    return game, players


def play_moves(game, name: str, start: int, stop: int | None = None) -> None:
    """Submit the scenario's accepted moves ``start`` to ``stop`` through ``move_submit``."""
    data = json.loads((SCENARIOS / f"{name}.json").read_text())
    by_position = {s.position: s.user for s in game.seats.select_related("user")}
    moves = [_renamed(m, data["seats"]) for m in data["moves"] if "reject" not in m]
    for step in moves[start:stop]:
        game.refresh_from_db()
        move = {k: v for k, v in step.items() if k != "seat"}
        move_submit(
            game_id=game.pk,
            user=by_position[int(step["seat"])],
            move=move,
            expected_version=game.version,
        )
    game.refresh_from_db()
