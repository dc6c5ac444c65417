"""The shapes of moves and events: the dicts that flow from the engine to the play service, the
stored ``Move`` rows (``payload``, ``events``), the bots, the pages and the emails.

They stay plain dicts (``TypedDict``) so that their JSON form is exactly what it was; these
types only name their keys. A move from outside (a form, a one-tap link, a scenario file) is
untrusted until ``rules.check`` accepts it: ``apply`` takes any mapping and raises
``IllegalMove`` on a malformed one; the handlers after the check read it as a ``Move``.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

# -- Moves (docs/rules.md 2, 3, 6.3; docs/engine.md) ---------------------------------------------


class PlaceMove(TypedDict):
    move: Literal["place"]
    card: str
    at: list[int]  # [x, y]
    turned: NotRequired[bool]
    # Where a reached goal could lie either way: goal name -> turned (docs/rules.md 1.3, D13).
    goal_turned: NotRequired[dict[str, bool]]


class ActionMove(TypedDict):
    move: Literal["action"]
    card: str
    target: NotRequired[str]  # a seat name
    tool: NotRequired[str]  # which tool a two-tool repair card mends
    at: NotRequired[list[int]]  # rockfall
    goal: NotRequired[str]  # map


class PassMove(TypedDict):
    move: Literal["pass"]
    discard: list[str]


class ClearMove(TypedDict):
    move: Literal["clear"]
    discard: list[str]
    remove: str


class PickGoldMove(TypedDict):
    move: Literal["pick-gold"]
    value: int


class StealMove(TypedDict):
    move: Literal["steal"]
    victim: str | None


Move = PlaceMove | ActionMove | PassMove | ClearMove | PickGoldMove | StealMove
MoveKind = Literal["place", "action", "pass", "clear", "pick-gold", "steal"]


# -- Events -------------------------------------------------------------------------------------
# Each has ``kind`` and ``to``: None when everyone may see it, else the one seat name that may.


class DrewEvent(TypedDict):
    kind: Literal["drew"]
    to: str
    cards: list[str]


class PlacedEvent(TypedDict):
    kind: Literal["placed"]
    to: None
    seat: str
    card: str
    at: list[int]
    turned: bool


class GoalRevealedEvent(TypedDict):
    kind: Literal["goal-revealed"]
    to: None
    goal: str
    card: str
    turned: bool


class ActionEvent(TypedDict):
    kind: Literal["action"]
    to: None
    seat: str
    card: str
    target: NotRequired[str]
    tool: NotRequired[str]
    at: NotRequired[list[int]]
    goal: NotRequired[str]


class RepairedEvent(TypedDict):
    kind: Literal["repaired"]
    to: None
    target: str
    tool: str


class PeekedEvent(TypedDict):
    kind: Literal["peeked"]
    to: str
    goal: str
    card: str


class NewRoleEvent(TypedDict):
    kind: Literal["new-role"]
    to: str
    role: str


class HandReceivedEvent(TypedDict):
    kind: Literal["hand-received"]
    to: str
    cards: list[str]


class InspectedEvent(TypedDict):
    kind: Literal["inspected"]
    to: str
    target: str
    role: str


class PassedEvent(TypedDict):
    kind: Literal["passed"]
    to: None
    seat: str
    count: int


class DiscardedEvent(TypedDict):
    kind: Literal["discarded"]
    to: str
    cards: list[str]


class ClearedEvent(TypedDict):
    kind: Literal["cleared"]
    to: None
    seat: str
    removed: str


class RoundEndedEvent(TypedDict):
    kind: Literal["round-ended"]
    to: None
    round: int
    treasure_found: bool
    roles: dict[str, str]  # seat name -> role
    goals: dict[str, str]  # goal name -> goal card


class GoldPickedEvent(TypedDict):
    kind: Literal["gold-picked"]
    to: str
    value: int


class GoldTakenEvent(TypedDict):
    kind: Literal["gold-taken"]
    to: None
    seat: str


class StoleEvent(TypedDict):
    kind: Literal["stole"]
    to: None
    seat: str
    victim: str | None


class GameEndedEvent(TypedDict):
    kind: Literal["game-ended"]
    to: None
    gold: dict[str, int]  # seat name -> gold


class RoundStartedEvent(TypedDict):
    kind: Literal["round-started"]
    to: None
    round: int
    first: str  # the seat name that moves first


Event = (
    DrewEvent
    | PlacedEvent
    | GoalRevealedEvent
    | ActionEvent
    | RepairedEvent
    | PeekedEvent
    | NewRoleEvent
    | HandReceivedEvent
    | InspectedEvent
    | PassedEvent
    | DiscardedEvent
    | ClearedEvent
    | RoundEndedEvent
    | GoldPickedEvent
    | GoldTakenEvent
    | StoleEvent
    | GameEndedEvent
    | RoundStartedEvent
)


# -- A round's result (State.result while it is settled, then State.rounds_done) -----------------


class Theft(TypedDict):
    thief: str
    victim: str | None


class RoundResult(TypedDict):
    treasure_found: bool
    finisher: str | None
    winners: list[str]
    gained: dict[str, int]  # seat name -> gold gained this round
    thefts: list[Theft]
    # saboteur2, when the treasure was found: which doors reach it, the teams that won.
    reach: NotRequired[dict[str, bool]]
    teams: NotRequired[list[str]]
    trapped: NotRequired[list[str]]  # saboteur2: winners who were trapped (and got nothing)
    # Made public when the round is over (docs/rules.md 8).
    roles: NotRequired[dict[str, str]]
    goals: NotRequired[dict[str, str]]
    set_aside: NotRequired[list[str]]
    board: NotRequired[list[list[int | str | bool]]]  # [x, y, card, turned]
    seed: NotRequired[str]
