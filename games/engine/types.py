"""The shapes of moves, events and views: the dicts that flow from the engine to the play service,
the stored ``Move`` rows (``payload``, ``events``), the bots, the pages and the emails.

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


# -- What one seat may know (``view_for``, docs/rules.md 8) ----------------------------------------


class ViewCard(TypedDict):
    """A face-up card in the maze."""

    x: int
    y: int
    card: str
    turned: bool


class ViewGoal(TypedDict):
    name: str  # "north", "middle", "south"
    x: int
    y: int
    face_down: bool
    card: str | None  # None while face down


class ViewPlayer(TypedDict):
    seat: str
    hand_size: int
    in_front: list[str]  # the broken tools, thefts and traps in front of the seat
    has_gold: NotRequired[bool]  # saboteur2 only: who has gold is public, how much is not
    gold: NotRequired[int]  # once the game is over


class ViewMe(TypedDict):
    """The viewer's own seat: its hand, role and what it alone has seen."""

    seat: str
    hand: list[str]
    role: str
    greedy: bool
    peeks: dict[str, str]  # goal name -> goal card seen this round
    inspections: dict[str, str]  # seat name -> role seen this round
    gold: int
    offer: list[int]  # the gold cards to pick from, while it is this seat's pick


class ViewRound(TypedDict):
    """A finished round (or the one whose gold is being shared), as the viewer may see it."""

    treasure_found: bool
    finisher: str | None
    winners: list[str]
    thefts: list[Theft]
    roles: dict[str, str]  # seat name -> role
    goals: dict[str, str]  # goal name -> goal card
    seed: str  # "" while the round's gold is being shared
    seed_hash: str
    set_aside: list[str]
    board: list[list[int | str | bool]]  # the round's final maze: [x, y, card, turned]
    reach: dict[str, bool]  # saboteur2: which doors reach the treasure (older rounds: empty)
    teams: list[str]  # saboteur2: the winning teams
    trapped: list[str]  # saboteur2: winners who were trapped
    gained: dict[str, int]  # seat name -> gold: everyone's once the game is over, else only mine


class View(TypedDict):
    """The game as one seat (or, with ``me`` None, a spectator) may see it."""

    ruleset: str
    variants: list[str]
    seats: list[str]
    rounds: int
    round: int
    version: int
    decision: str  # TURN, PICK_GOLD, STEAL or GAME_OVER (``state.py``)
    to_move: str | None  # the seat name deciding, if any
    finished: bool
    board: list[ViewCard]  # face-up cards, sorted by position
    goals: list[ViewGoal]
    pile_count: int
    discard_count: int
    players: list[ViewPlayer]
    offer_count: int  # gold cards left to pick from (base, at a round's end)
    pickers: list[str]  # the pick rotation, the one choosing first
    seed_hash: str
    gold_seed_hash: str | None  # base only
    gold_seed: str | None  # base only, once the game is over
    rounds_done: list[ViewRound]
    round_ending: ViewRound | None  # the round whose gold is being shared
    me: ViewMe | None  # None for a spectator
