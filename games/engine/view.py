"""What one seat may know (docs/rules.md 8): the one road from a state to pages, JSON, emails."""

from __future__ import annotations

import hashlib

from .cards import BASE
from .state import PICK_GOLD, State
from .types import RoundResult, View, ViewMe, ViewPlayer, ViewRound


def seed_hash(seed: str) -> str:
    """The SHA-256 of a round's seed, public from the round's start."""
    return hashlib.sha256(seed.encode()).hexdigest()


def view_for(state: State, seat: str | None = None) -> View:
    """The game as ``seat`` may see it; ``seat=None`` is the public (spectator) view.

    The result is plain JSON-ready data. It never holds another seat's hand, role, peeks or gold,
    a face-down goal, the pile order, the set-aside cards, face-down discards or the round seed
    before these become public.
    """
    me = None
    if seat is not None:
        me = state.seat_index(seat)
        if me is None:
            raise ValueError(f"{seat!r} is not a seat of this game")
    names = state.seats
    board = sorted(
        ((x, y, p) for (x, y), p in state.board.items() if not p.face_down),
        key=lambda item: (item[0], item[1]),
    )
    view: View = {
        "ruleset": state.ruleset,
        "variants": list(state.config.variants),
        "seats": list(names),
        "rounds": state.config.rounds,
        "round": state.round,
        "version": state.version,
        "decision": state.decision,
        "to_move": names[state.to_move] if state.to_move is not None else None,
        "finished": state.finished,
        "board": [{"x": x, "y": y, "card": p.card, "turned": p.turned} for x, y, p in board],
        "goals": [
            {
                "name": name,
                "x": pos[0],
                "y": pos[1],
                "face_down": state.board[pos].face_down,
                "card": None if state.board[pos].face_down else state.board[pos].card,
            }
            for name, pos in state.goals.items()
        ],
        "pile_count": len(state.pile),
        "discard_count": len(state.discard),
        "players": [_player(state, i) for i in range(len(names))],
        "offer_count": len(state.offer) if state.decision == PICK_GOLD else 0,
        # The pick rotation, the one choosing first (public: the round is over, roles are shown).
        "pickers": [names[i] for i in state.pickers] if state.decision == PICK_GOLD else [],
        "seed_hash": seed_hash(state.config.round_seeds[state.round - 1]),
        # The gold supply's order is fixed for the whole game: its seed shows when the game ends.
        "gold_seed_hash": seed_hash(state.config.gold_seed) if state.ruleset == BASE else None,
        "gold_seed": state.config.gold_seed if state.finished and state.ruleset == BASE else None,
        "rounds_done": [_round_done(state, result, me) for result in state.rounds_done],
        # The round that just ended, while its gold is shared (the pick, the thefts).
        "round_ending": _round_ending(state, me) if state.result is not None else None,
        "me": _mine(state, me) if me is not None else None,
    }
    return view


def own_view(state: State, seat: str) -> ViewMe:
    """What ``seat`` alone knows (``view_for(state, seat)["me"]``): its hand, role, peeks."""
    me = state.seat_index(seat)
    if me is None:
        raise ValueError(f"{seat!r} is not a seat of this game")
    return _mine(state, me)


def _player(state: State, index: int) -> ViewPlayer:
    player: ViewPlayer = {
        "seat": state.seats[index],
        "hand_size": len(state.hands[index]),
        "in_front": sorted(state.in_front[index]),
    }
    if state.ruleset != BASE:
        # Who has gold is public in saboteur2; how much is not (7.4).
        player["has_gold"] = state.gold[index] > 0
    if state.finished:
        player["gold"] = state.gold[index]
    return player


def _mine(state: State, me: int) -> ViewMe:
    return {
        "seat": state.seats[me],
        "hand": list(state.hands[me]),
        "role": state.roles[me],
        "greedy": state.greedy == me,
        "peeks": dict(state.peeks[me]),
        "inspections": dict(state.inspections[me]),
        "gold": state.gold[me],
        "offer": sorted(state.offer) if state.decision == PICK_GOLD and state.to_move == me else [],
    }


def _round_ending(state: State, me: int | None) -> ViewRound:
    """The round that has ended but whose gold is still being shared: its roles, goals and maze
    are public since its "round-ended" event; its seed and set-aside cards only once it is done
    (``_finish_round``), the gold gained only to its owner."""
    assert state.result is not None  # only while a round is being settled
    result = state.result.copy()
    result["roles"] = dict(zip(state.seats, state.roles, strict=True))
    result["goals"] = {name: state.board[pos].card for name, pos in state.goals.items()}
    result["board"] = [[x, y, p.card, p.turned] for (x, y), p in sorted(state.board.items())]
    result["set_aside"] = []
    result["seed"] = ""
    done = _round_done(state, result, me)
    done["seed_hash"] = seed_hash(state.config.round_seeds[state.round - 1])
    return done


def _round_done(state: State, result: RoundResult, me: int | None) -> ViewRound:
    """A finished round: roles, goals and seed are public; gold gained only to its owner until
    the game ends."""
    if state.finished:
        gained = dict(result["gained"])
    elif me is not None and state.seats[me] in result["gained"]:
        gained = {state.seats[me]: result["gained"][state.seats[me]]}
    else:
        gained = {}
    return {
        "treasure_found": result["treasure_found"],
        "finisher": result["finisher"],
        "winners": result["winners"],
        "thefts": result["thefts"],
        "roles": result["roles"],
        "goals": result["goals"],
        "seed": result["seed"],
        "set_aside": list(result["set_aside"]),
        # Older snapshots lack these (recorded since the round recaps).
        "board": [list(cell) for cell in result.get("board", [])],
        "reach": dict(result.get("reach") or {}),
        "teams": list(result.get("teams") or []),
        "trapped": list(result.get("trapped") or []),
        "seed_hash": seed_hash(result["seed"]),
        "gained": gained,
    }
