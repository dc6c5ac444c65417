"""The game state: plain data with a stable JSON form.

A ``State`` holds everything, secrets included; only ``view_for`` may turn it into something a
player sees. Positions are ``(x, y)`` tuples in memory and ``"x,y"`` strings in JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .types import RoundResult

TURN, PICK_GOLD, STEAL, GAME_OVER = "turn", "pick-gold", "steal", "game-over"


@dataclass
class Placed:
    """A card on the table. ``face_down`` only for goals nobody has reached yet."""

    card: str
    turned: bool = False
    face_down: bool = False

    def to_json(self):
        return [self.card, self.turned, self.face_down]

    @classmethod
    def from_json(cls, data):
        return cls(data[0], data[1], data[2])


@dataclass
class Config:
    """What is fixed when the game is created."""

    ruleset: str
    seats: list[str]
    variants: list[str] = field(default_factory=list)
    rounds: int = 3
    # One secret seed per round, drawn by the caller (the engine never draws randomness itself).
    round_seeds: list[str] = field(default_factory=list)
    # Rigged deals (scenarios and tests only): one dict per round, or None.
    deals: list[dict | None] = field(default_factory=list)
    # The base game's gold supply is shuffled once for the whole game, with its own secret seed:
    # the round seeds become public after their round, the gold order must stay hidden.
    gold_seed: str = ""


@dataclass
class State:
    config: Config
    version: int = 0
    round: int = 1
    decision: str = TURN
    to_move: int | None = None
    finished: bool = False
    # The maze: position -> card; goals name -> position of that goal.
    board: dict[tuple[int, int], Placed] = field(default_factory=dict)
    goals: dict[str, tuple[int, int]] = field(default_factory=dict)
    hands: list[list[str]] = field(default_factory=list)
    pile: list[str] = field(default_factory=list)  # top first
    discard: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # saboteur2: the 10 cards removed unseen
    in_front: list[list[str]] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)  # leftover dwarf cards, top first
    role_discards: list[str] = field(default_factory=list)  # saboteur2: Swap Hats discards
    # Private knowledge: per seat, goal name -> goal card seen; seat index -> role seen.
    peeks: list[dict[str, str]] = field(default_factory=list)
    inspections: list[dict[str, str]] = field(default_factory=list)
    # saboteur2: version at which each seat laid the Theft now in front of them.
    theft_laid: dict[int, int] = field(default_factory=dict)
    greedy: int | None = None
    first_seat: int = 0
    last_turn_seat: int | None = None
    treasure_found: bool = False
    finisher: int | None = None
    gold_supply: list[int] = field(default_factory=list)  # base: top first
    gold: list[int] = field(default_factory=list)
    # The round-end decisions under way.
    offer: list[int] = field(default_factory=list)
    pickers: list[int] = field(default_factory=list)  # base: the pick rotation, next picker first
    thieves: list[int] = field(default_factory=list)  # saboteur2: thieves still to decide
    result: RoundResult | None = None  # the round being settled
    rounds_done: list[RoundResult] = field(default_factory=list)

    def clone(self) -> State:
        """A copy that shares nothing mutable with this state (cheaper than deepcopy)."""
        return State(
            config=self.config,
            version=self.version,
            round=self.round,
            decision=self.decision,
            to_move=self.to_move,
            finished=self.finished,
            board={pos: Placed(p.card, p.turned, p.face_down) for pos, p in self.board.items()},
            goals=dict(self.goals),
            hands=[list(h) for h in self.hands],
            pile=list(self.pile),
            discard=list(self.discard),
            removed=list(self.removed),
            in_front=[list(f) for f in self.in_front],
            roles=list(self.roles),
            set_aside=list(self.set_aside),
            role_discards=list(self.role_discards),
            peeks=[dict(p) for p in self.peeks],
            inspections=[dict(i) for i in self.inspections],
            theft_laid=dict(self.theft_laid),
            greedy=self.greedy,
            first_seat=self.first_seat,
            last_turn_seat=self.last_turn_seat,
            treasure_found=self.treasure_found,
            finisher=self.finisher,
            gold_supply=list(self.gold_supply),
            gold=list(self.gold),
            offer=list(self.offer),
            pickers=list(self.pickers),
            thieves=list(self.thieves),
            result=_copy_json(self.result),
            rounds_done=[_copy_json(r) for r in self.rounds_done],
        )

    @property
    def seats(self) -> list[str]:
        return self.config.seats

    @property
    def ruleset(self) -> str:
        return self.config.ruleset

    def seat_index(self, name) -> int | None:
        try:
            return self.config.seats.index(name)
        except (ValueError, TypeError):
            return None

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """The stable JSON form stored as the game's snapshot."""
        data = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "config":
                value = {c.name: _copy_json(getattr(value, c.name)) for c in fields(Config)}
            elif f.name == "board":
                value = {f"{x},{y}": p.to_json() for (x, y), p in value.items()}
            elif f.name == "goals":
                value = {name: list(pos) for name, pos in value.items()}
            elif f.name == "theft_laid":
                value = {str(seat): v for seat, v in value.items()}
            else:
                value = _copy_json(value)
            data[f.name] = value
        return data

    @classmethod
    def from_json(cls, data: dict) -> State:
        values = dict(data)
        values["config"] = Config(**_copy_json(data["config"]))
        values["board"] = {_pos(key): Placed.from_json(p) for key, p in data["board"].items()}
        values["goals"] = {name: tuple(pos) for name, pos in data["goals"].items()}
        values["theft_laid"] = {int(seat): v for seat, v in data["theft_laid"].items()}
        for name in ("result", "rounds_done", "peeks", "inspections"):
            values[name] = _copy_json(data[name])
        for name in ("hands", "in_front"):
            values[name] = [list(x) for x in data[name]]
        for name in (
            "pile",
            "discard",
            "removed",
            "roles",
            "set_aside",
            "role_discards",
            "gold_supply",
            "gold",
            "offer",
            "pickers",
            "thieves",
        ):
            values[name] = list(data[name])
        return cls(**values)


def _pos(key: str) -> tuple[int, int]:
    x, y = key.split(",")
    return int(x), int(y)


def pos_key(pos: tuple[int, int]) -> str:
    return f"{pos[0]},{pos[1]}"


def _copy_json(value):
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy_json(v) for v in value]
    return value
