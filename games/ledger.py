"""The public ledger: what each player did, per round, as everyone saw it (issue 38).

Pure Python, like the engine: the pages (``games/read/ledger_words.py`` says it in words) and the
bots (``games/bots/brain.py``, their suspicion of each seat) read the same ledger.

Built from the game's public move log only, like the log's public lines: an event with a ``to``
belongs to one seat (drawn cards, peeks, inspections, new roles, received hands, discards) and is
skipped without being read. The round-end event is read only for the round's number (its roles
and goal faces are not looked at), so the ledger is a pure function of what every seat saw.

- ``ledger(moves, seats, after=0)`` -> ``Ledger``; ``Ledger.rounds[n][seat]`` -> ``SeatRecord``,
  ``Ledger.total(seat)`` sums a seat's rounds.
- ``read(moves, seats, kept=None)`` -> ``Kept``: the ledger as it stands after the last of
  ``moves``, with what reading on needs (the public maze); given the ``Kept`` of an earlier move,
  only the moves after it are read. The site keeps one per game and reads each move once
  (``games/read/ledger_words.py``); ``Kept.ledger`` is the same ``Ledger`` a reading from the start
  gives.

How a path card counts (docs/ledger.md): the public maze is rebuilt move by move (start, face-down
goals, placed cards, rockfalls, revealed goals). Its *frontier* is the Manhattan distance from the
nearest open end of the tunnel joined to the start (an empty cell or a face-down goal that a
joined tunnel faces) to the nearest face-down goal. A placed card is ``towards`` a goal when it
revealed a goal or brought the frontier nearer; a ``cut`` when it took the frontier further away
(or left no open end at all); else a ``dead_end`` when none of its own joined tunnels opens onto
anything new; else ``sideways``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from games.engine.board import card_tunnels, joined_nodes, neighbour
from games.engine.cards import CATALOGUE, GOAL_CARDS, GOAL_POSITIONS, START_POSITION
from games.engine.state import Placed

Pos = tuple[int, int]
Board = dict[Pos, Placed]

# A face-down goal on the public maze: which goal card it is stays unknown (and unused: a face-down
# card has no tunnel), any goal card stands for it.
FACE_DOWN = Placed(GOAL_CARDS[0], False, True)
NO_WAY = 10**6  # the frontier of a maze with no open end left

TOWARDS, CUT, DEAD_END, SIDEWAYS = "towards", "cuts", "dead_ends", "sideways"


@dataclass(frozen=True)
class ToolHit:
    """A tool broken on, or repaired for, ``target`` (a seat name)."""

    target: str
    tool: str


@dataclass(frozen=True)
class Rockfall:
    """A card removed from the maze by a rockfall; ``owner`` is the seat that placed it."""

    card: str
    owner: str | None
    at: Pos


@dataclass(frozen=True)
class SeatRecord:
    """What one seat did in one round (or, summed, in a game), as everyone saw it."""

    seat: str
    broke: tuple[ToolHit, ...] = ()
    repaired: tuple[ToolHit, ...] = ()
    towards: int = 0  # path cards that brought the tunnel nearer a goal (or revealed one)
    cuts: int = 0  # path cards that took the tunnel's nearest open end further from the goals
    dead_ends: int = 0  # path cards opening onto nothing new
    sideways: int = 0  # the other path cards
    doors: int = 0  # door cards placed (Saboteur 2; counted among the path cards too)
    rockfalls: tuple[Rockfall, ...] = ()
    maps: tuple[str, ...] = ()  # the goals looked at (never what was seen)
    passes: int = 0
    cleared: tuple[str, ...] = ()  # cards removed from in front of oneself by discarding two
    thefts: int = 0  # theft cards laid
    stole_from: tuple[str, ...] = ()  # whom a theft took gold from at the round's end
    hands_off: tuple[str, ...] = ()  # whose theft card was removed
    trapped: tuple[str, ...] = ()
    freed: tuple[str, ...] = ()
    inspected: tuple[str, ...] = ()  # whose role was looked at (never what was seen)
    hat_swaps: tuple[str, ...] = ()
    hand_swaps: tuple[str, ...] = ()

    @property
    def placed(self) -> int:
        return self.towards + self.cuts + self.dead_ends + self.sideways

    @property
    def repaired_own(self) -> int:
        return sum(hit.target == self.seat for hit in self.repaired)

    @property
    def repaired_others(self) -> int:
        return len(self.repaired) - self.repaired_own

    @property
    def empty(self) -> bool:
        return self == SeatRecord(self.seat)

    def __add__(self, other: SeatRecord) -> SeatRecord:
        sums = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        return replace(self, **{**sums, "seat": self.seat})


@dataclass(frozen=True)
class Ledger:
    """Every seat's records, per round: ``rounds[n][seat]`` (rounds counted from 1)."""

    seats: tuple[str, ...]
    rounds: Mapping[int, Mapping[str, SeatRecord]]

    def total(self, seat: str) -> SeatRecord:
        """The seat's records summed over every round."""
        record = SeatRecord(seat)
        for records in self.rounds.values():
            record = record + records[seat]
        return record


# -- The public maze ----------------------------------------------------------------------------


def start_board() -> Board:
    """The maze at a round's start as everyone sees it: the start and three face-down goals."""
    board = {START_POSITION: Placed("start")}
    for position in GOAL_POSITIONS.values():
        board[position] = FACE_DOWN
    return board


def _open_ends(board: Board, only: Pos | None = None) -> set[Pos]:
    """Empty cells and face-down goals that a tunnel joined to the start faces (of the card at
    ``only``, or of the whole maze)."""
    ends = set()
    for pos, index in joined_nodes(board):
        if only is not None and pos != only:
            continue
        for edge in card_tunnels(board[pos])[index]:
            other = neighbour(pos, edge)
            if other not in board or board[other].face_down:
                ends.add(other)
    return ends


def frontier(board: Board) -> int:
    """The Manhattan distance from the tunnel's nearest open end to the nearest face-down goal."""
    goals = [pos for pos, placed in board.items() if placed.face_down]
    distances = [
        abs(x - gx) + abs(y - gy) for x, y in _open_ends(board) for gx, gy in goals
    ]  # fmt: skip
    return min(distances, default=NO_WAY)


def path_kind(before: Board, after: Board, at: Pos, revealed: bool) -> str:
    """How the card placed at ``at`` (``before`` -> ``after``) counts: see the module's doc."""
    return _kind(frontier(before), frontier(after), after, at, revealed)


def _kind(was: int, now: int, after: Board, at: Pos, revealed: bool) -> str:
    """``path_kind`` from the frontiers before and after (the reader keeps them)."""
    if revealed or now < was:
        return TOWARDS
    if now > was:
        return CUT
    if not _open_ends(after, only=at):
        return DEAD_END
    return SIDEWAYS


# -- Reading the log -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Kept:
    """The ledger after move ``sequence``, with what reading the next moves needs: the round
    under way, its public maze (and who laid each card), the last action's player. Never changed
    once made (``read`` copies what it goes on from), so one can be shared by every reader."""

    seats: tuple[str, ...]
    sequence: int
    round: int
    records: Mapping[int, Mapping[str, SeatRecord]]
    board: Mapping[Pos, Placed]
    owners: Mapping[Pos, str]
    actor: str | None
    frontier: int | None
    ended: bool = False  # the round is over (its gold being shared), the next not dealt yet

    @property
    def ledger(self) -> Ledger:
        return Ledger(self.seats, self.records)

    @property
    def this_round(self) -> Mapping[str, SeatRecord]:
        """The records of the round under way; none between a round's end and the next deal
        (what the bots weigh: ``games/bots/brain.py``)."""
        return {} if self.ended else self.records[self.round]


class _Reader:
    """Walks the public events once, keeping the public maze and the records."""

    def __init__(self, seats: Sequence[str], after: int):
        self.seats = tuple(seats)
        self.after = after
        self.sequence = 0
        self.round = 1
        self.records: dict[int, dict[str, SeatRecord]] = {}
        self.new_round(1)
        self.actor: str | None = None
        # A placement awaiting its reveals: who, where, and the frontier before it.
        self.pending: tuple[str, Pos, int] | None = None
        self.revealed = False

    @classmethod
    def going_on(cls, kept: Kept) -> _Reader:
        """A reader that goes on from ``kept`` (its own copies: ``kept`` stays as it is)."""
        reader = cls(kept.seats, 0)
        reader.sequence, reader.round, reader.actor = kept.sequence, kept.round, kept.actor
        reader.records = {number: dict(seats) for number, seats in kept.records.items()}
        reader.board, reader.owners = dict(kept.board), dict(kept.owners)
        reader.known_frontier, reader.ended = kept.frontier, kept.ended
        return reader

    def kept(self) -> Kept:
        """What this reader knows, to go on from later (copies: this reader may go on too)."""
        return Kept(
            seats=self.seats,
            sequence=self.sequence,
            round=self.round,
            records={number: dict(seats) for number, seats in self.records.items()},
            board=dict(self.board),
            owners=dict(self.owners),
            actor=self.actor,
            frontier=self.known_frontier,
            ended=self.ended,
        )

    def new_round(self, number: int) -> None:
        self.round = number
        self.records.setdefault(number, {seat: SeatRecord(seat) for seat in self.seats})
        self.board = start_board()
        self.known_frontier: int | None = None  # the board's frontier, while it is unchanged
        self.owners: dict[Pos, str] = {}
        self.ended = False

    def add(self, seat: str | None, name: str, value: Any = 1) -> None:
        """Add ``value`` to an int field of the seat's record, or append it to a tuple field."""
        if seat not in self.seats or self.sequence <= self.after:
            return
        records = self.records[self.round]
        current = getattr(records[seat], name)
        grown: Any = current + value if isinstance(current, int) else (*current, value)
        records[seat] = replace(records[seat], **{name: grown})

    def move(self, sequence: int, events: Iterable[Mapping[str, Any]]) -> None:
        self.sequence = sequence
        for event in events:
            if event.get("to") is not None:
                continue  # one seat's secret: never read
            if event["kind"] != "goal-revealed":
                self._settle()
            READERS.get(event["kind"], _ignored)(self, event)
        self._settle()

    def _settle(self) -> None:
        """Count the pending placement, now that the goals it revealed are known."""
        if self.pending is None:
            return
        seat, at, was = self.pending
        self.add(seat, _kind(was, self.frontier(), self.board, at, self.revealed))
        self.pending, self.revealed = None, False

    def frontier(self) -> int:
        """The public maze's frontier, worked out once per change of the maze."""
        if self.known_frontier is None:
            self.known_frontier = frontier(self.board)
        return self.known_frontier

    def changed(self) -> None:
        self.known_frontier = None


def _ignored(reader: _Reader, event: Mapping[str, Any]) -> None:
    return None


def _placed(reader: _Reader, event: Mapping[str, Any]) -> None:
    at = (event["at"][0], event["at"][1])
    reader.pending = (event["seat"], at, reader.frontier())
    reader.board[at] = Placed(event["card"], event.get("turned", False))
    reader.changed()
    reader.owners[at] = event["seat"]
    if CATALOGUE[event["card"]].door:
        reader.add(event["seat"], "doors")


def _goal_revealed(reader: _Reader, event: Mapping[str, Any]) -> None:
    at = GOAL_POSITIONS[event["goal"]]
    reader.board[at] = Placed(event["card"], event.get("turned", False))
    reader.changed()
    reader.revealed = True


def _repaired(reader: _Reader, event: Mapping[str, Any]) -> None:
    reader.add(reader.actor, "repaired", ToolHit(event["target"], event["tool"]))


def _rockfall(reader: _Reader, seat: str, event: Mapping[str, Any]) -> None:
    at = (event["at"][0], event["at"][1])
    removed = reader.board.pop(at, None)
    reader.changed()
    owner = reader.owners.pop(at, None)
    if removed is not None:
        reader.add(seat, "rockfalls", Rockfall(removed.card, owner, at))


# Action cards with a target, by effect: the record's field that lists the targets.
TARGET_FIELDS = {
    "hands-off": "hands_off",
    "trapped": "trapped",
    "free": "freed",
    "inspection": "inspected",
    "swap-hats": "hat_swaps",
    "swap-hand": "hand_swaps",
}


def _action(reader: _Reader, event: Mapping[str, Any]) -> None:
    seat, card = event["seat"], CATALOGUE[event["card"]]
    reader.actor = seat
    if card.effect == "break":
        reader.add(seat, "broke", ToolHit(event["target"], card.tools[0]))
    elif card.effect == "rockfall":
        _rockfall(reader, seat, event)
    elif card.effect == "map":
        reader.add(seat, "maps", event["goal"])
    elif card.effect == "theft":
        reader.add(seat, "thefts")
    elif card.effect in TARGET_FIELDS:
        reader.add(seat, TARGET_FIELDS[card.effect], event["target"])
    # A repair is counted from its "repaired" event, which names the tool mended.


def _stole(reader: _Reader, event: Mapping[str, Any]) -> None:
    if event["victim"] is not None:
        reader.add(event["seat"], "stole_from", event["victim"])


def _round_started(reader: _Reader, event: Mapping[str, Any]) -> None:
    reader.new_round(event["round"])


def _round_ended(reader: _Reader, event: Mapping[str, Any]) -> None:
    reader.ended = True  # its roles and goals are not read: the ledger is the public moves'


READERS = {
    "placed": _placed,
    "goal-revealed": _goal_revealed,
    "action": _action,
    "repaired": _repaired,
    "passed": lambda reader, event: reader.add(event["seat"], "passes"),
    "cleared": lambda reader, event: reader.add(event["seat"], "cleared", event["removed"]),
    "stole": _stole,
    "round-started": _round_started,
    "round-ended": _round_ended,
}


def ledger(moves: Iterable[Sequence[Any]], seats: Sequence[str], after: int = 0) -> Ledger:
    """The public ledger of ``moves`` (as ``history.move_log`` gives them: sequence and events
    first) for the engine seat names ``seats``; only moves after sequence ``after`` are counted
    (the earlier ones still build the maze)."""
    reader = _Reader(seats, after)
    for sequence, events, *_rest in moves:
        reader.move(sequence, events)
    return Ledger(reader.seats, reader.records)


def read(moves: Iterable[Sequence[Any]], seats: Sequence[str], kept: Kept | None = None) -> Kept:
    """The ledger after ``moves`` (as ``ledger`` takes them, oldest first); given ``kept`` (the
    same seats' ledger after an earlier move), only the moves after its ``sequence`` are read.
    Moves after a gap are never skipped: a caller passes the moves that follow ``kept``."""
    if kept is not None and tuple(seats) != kept.seats:
        kept = None  # another table (a seat came or went): read from the start
    reader = _Reader(seats, 0) if kept is None else _Reader.going_on(kept)
    for sequence, events, *_rest in moves:
        if sequence <= reader.sequence:
            continue  # read already
        reader.move(sequence, events)
    return reader.kept()
