"""How a bot picks its move: score every legal move from what its seat may know, take the best.

Everything here is computed from ``view_for(state, seat)`` and the public events, never from a
``State``: a bot cannot know more than a person in its seat. The knowledge it builds:

- **Targets**: the goals that may hold the treasure (its own map peeks, revealed stones, and the
  last unknown goal once the two others are stones).
- **The front**: the empty cells next to a tunnel joined to the start; how near the front is to a
  target measures the diggers' progress. Diggers place cards that bring it nearer, saboteurs cards
  (dead ends) and rockfalls that push it away.
- **Suspicion** of every other seat from the round's public moves: breaking, trapping or placing
  dead ends raises it, repairing and freeing others lowers it; inspections (Saboteur 2) are facts.
  It decides whom a bot repairs, breaks, traps, inspects and robs.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from games import ledger
from games.engine import board as maze
from games.engine.cards import (
    BASE,
    BLUE,
    BOSS,
    CATALOGUE,
    GEOLOGIST,
    GOAL_NAMES,
    GOLD_DIGGER,
    GREEN,
    PATH,
    PROFITEER,
    SABOTEUR,
    TREASURE,
    tunnels_of,
)
from games.engine.state import Placed
from games.engine.types import (
    ActionEvent,
    ActionMove,
    ClearMove,
    Event,
    Move,
    PlaceMove,
    View,
    ViewMe,
)

# How much a role wants the treasure found this round: +1 digs, -1 blocks, 0 does not care.
STANCE = {
    GOLD_DIGGER: 1.0,
    BLUE: 1.0,
    GREEN: 1.0,
    BOSS: 1.0,
    PROFITEER: 0.0,
    GEOLOGIST: -0.2,
    SABOTEUR: -1.0,
}
# Public events whose meaning suspicion follows (the rest say nothing about a role).
HOSTILE_EFFECTS = ("break", "trapped")
FRIENDLY_EFFECTS = ("repair", "free")
# A saboteur plays quietly while the front is at least this far from every target.
QUIET_DISTANCE = 5
NO_FRONT = -15.0
# How a path card of each kind in the public ledger moves the suspicion of whoever laid it:
# towards a goal looks like a digger, a cut or a dead end like a saboteur.
PATH_SUSPICION = {
    ledger.TOWARDS: -0.3,
    ledger.CUT: 0.9,
    ledger.DEAD_END: 0.8,
    ledger.SIDEWAYS: -0.05,
}


def public_events(events: Iterable[Event]) -> list[Event]:
    """The events everyone saw (``to`` is None): the only history a bot may remember."""
    return [event for event in events if event.get("to") is None]


def choose_move(
    view: View,
    moves: list[Move],
    rng: random.Random,
    history: Iterable[Event] = (),
    seen: Mapping[str, ledger.SeatRecord] | None = None,
) -> Move:
    """One of ``moves`` (the seat's legal moves) for the seat whose ``view`` this is.

    ``rng`` breaks ties between equally good moves; the same view, moves, history and seed always
    give the same move. ``seen``: this round's public ledger (``games.ledger``), when the caller
    keeps the game's (the site does: ``games/read/ledger_words.py``); else it is read from
    ``history``.
    """
    if not moves:
        raise ValueError("a bot needs at least one legal move")
    if len(moves) == 1:
        return moves[0]
    table = Table(view, history, seen)
    best, best_score = moves[0], None
    for move in moves:
        score = table.score(move) + rng.random() * 0.01
        if best_score is None or score > best_score:
            best, best_score = move, score
    return best


class Table:
    """What the bot's seat knows now, and how it scores a move."""

    def __init__(
        self,
        view: View,
        history: Iterable[Event],
        seen: Mapping[str, ledger.SeatRecord] | None = None,
    ):
        me = view["me"]
        if me is None:
            raise ValueError("a bot plays from its own seat's view, not a spectator's")
        self.view = view
        self.me = me["seat"]
        self.role = me["role"]
        self.hand = list(me["hand"])
        self.ruleset = view["ruleset"]
        self.variants = set(view["variants"])
        self.greedy = bool(me.get("greedy"))
        self.stance = STANCE.get(self.role, 0.0)
        self.players = {p["seat"]: p for p in view["players"]}
        self.inspections = dict(me.get("inspections", {}))
        self._board(view, me)
        self.progress_now = self._progress(self.front, reach=0)
        # The front's distances, kept to score placements without rebuilding the front.
        self.front_distance = {cell: self._distance(cell) for cell in self.front}
        self.front_weight = sum(0.5**d for d in self.front_distance.values())
        ordered = sorted(self.front_distance.values())
        self.nearest = ordered[0] if ordered else 99
        self.nearest_shared = len(ordered) > 1 and ordered[1] == ordered[0]
        self.second = ordered[1] if len(ordered) > 1 else 99
        self.min_distance = min((self._distance(c) for c in self.front), default=99)
        self.quiet = False
        self.suspicion = self._suspicion(_this_round(history), seen)
        if self.stance < 0:
            mine = [e for e in self.round_events if e.get("seat") == self.me and _hostile(e)]
            self.quiet = self.min_distance >= QUIET_DISTANCE and not mine

    # -- Knowledge ---------------------------------------------------------------------------

    def _board(self, view: View, me: ViewMe) -> None:
        board = {(c["x"], c["y"]): Placed(c["card"], c["turned"]) for c in view["board"]}
        known = {}
        self.goal_positions = {}
        for goal in view["goals"]:
            pos = (goal["x"], goal["y"])
            self.goal_positions[goal["name"]] = pos
            if goal["face_down"]:
                # The card under a face-down goal is unknown: any goal card has no tunnel there.
                board[pos] = Placed("goal-stone-ne", False, True)
            else:
                known[goal["name"]] = goal["card"]
        for name, card in me.get("peeks", {}).items():
            known.setdefault(name, card)
        gold = [name for name, card in known.items() if card == TREASURE]
        unknown = [name for name in GOAL_NAMES if name not in known]
        self.certain = bool(gold) or len(unknown) == 1
        names = gold or unknown or list(GOAL_NAMES)
        self.unknown_goals = unknown
        self.targets = [self.goal_positions[n] for n in names if n in self.goal_positions]
        self.hidden_targets = {
            pos for pos in self.targets if board.get(pos) is not None and board[pos].face_down
        }
        self.board = board
        self.joined = maze.joined_nodes(board)
        self.front = _front(board, self.joined)

    def _distance(self, cell) -> int:
        return min((abs(cell[0] - x) + abs(cell[1] - y) for x, y in self.targets), default=99)

    def _progress(self, front, reach: int) -> float:
        """How near the diggers are to the treasure (higher is nearer)."""
        if reach:
            return 30.0 if self.certain else 12.0
        if not front:
            return NO_FRONT
        distances = [self._distance(cell) for cell in front]
        return -min(distances) + 0.3 * sum(0.5**d for d in distances)

    def _suspicion(
        self, events: list[Event], seen: Mapping[str, ledger.SeatRecord] | None = None
    ) -> dict[str, float]:
        """Per other seat: above 1 looks like a saboteur, below 0 like a digger. Path cards are
        judged as the public ledger counts them (games/ledger.py, the one the pages show):
        towards a goal, a cut, a dead end or sideways; ``seen``: that ledger's records of this
        round, when the caller keeps it (else read from ``events``, this round's)."""
        self.round_events = events
        suspicion = {seat: 0.0 for seat in self.players}
        if seen is None:
            counted = ledger.ledger([(1, events)], list(self.players)).rounds
            seen = counted[max(counted)] if counted else {}
        for seat, record in seen.items():
            suspicion[seat] += sum(
                PATH_SUSPICION[kind] * getattr(record, kind) for kind in PATH_SUSPICION
            )
        for event in events:
            actor = event.get("seat")
            if actor in suspicion and event["kind"] == "action":
                suspicion[actor] += self._action_suspicion(suspicion, actor, event)
        for seat, role in self.inspections.items():
            if seat in suspicion:
                suspicion[seat] = 3.0 if role == SABOTEUR else -2.0
        suspicion.pop(self.me, None)
        return suspicion

    def _action_suspicion(
        self, suspicion: dict[str, float], seat: str | None, event: ActionEvent
    ) -> float:
        """How much an action card ``seat`` played changes the suspicion of them."""
        effect = CATALOGUE[event["card"]].effect
        target = event.get("target")
        if effect in HOSTILE_EFFECTS and target in suspicion and target != seat:
            if target == self.me:
                return 1.5 if self.stance > 0 else 0.3
            return -0.5 if suspicion[target] > 1.0 else 1.0
        if effect in FRIENDLY_EFFECTS and target in suspicion and target != seat:
            return 0.7 if suspicion[target] > 1.0 else -0.6
        if effect == "rockfall":
            return 0.4
        return 0.0

    def ally(self, seat: str) -> float:
        """How much this bot wants ``seat`` to do well: from -1 (enemy) to +1 (friend)."""
        if seat == self.me:
            return 1.0
        if self.role == GEOLOGIST:
            return 0.6  # paid per crystal whoever wins: everyone able to lay cards helps
        role = self.inspections.get(seat)
        if role is not None:
            return _attitude(self.role, role)
        s = self.suspicion.get(seat, 0.0)
        if self.stance > 0:
            return max(-1.0, min(1.0, 0.6 - 0.6 * s))
        if self.stance < 0:
            return max(-1.0, min(1.0, -0.6 + 0.5 * s))
        return 0.0

    # -- Scoring -----------------------------------------------------------------------------

    def score(self, move: Move) -> float:
        if move["move"] == "place":
            return self._score_place(move)
        if move["move"] == "action":
            return self._score_action(move)
        if move["move"] == "pass":
            return -0.5 - 0.5 * sum(self.card_value(c) for c in move["discard"])
        if move["move"] == "clear":
            return self._score_clear(move)
        if move["move"] == "pick-gold":
            return float(move["value"])
        if move["move"] == "steal":
            victim = move["victim"]
            return 0.0 if victim is None else 2.0 - self.ally(victim)
        return 0.0

    def _score_place(self, move: PlaceMove) -> float:
        card = CATALOGUE[move["card"]]
        at = tuple(move["at"])
        new_cells, reach = self._opened(card.id, at, move["turned"])
        delta = self._progress_after(at, new_cells, reach) - self.progress_now
        stance = self.stance
        if self.quiet:
            # Early on a saboteur digs sideways: no progress, no obvious dead end.
            score = -abs(delta) * 3 + (0.5 if not _dead(card) else -2.0)
        else:
            score = stance * 10 * delta
        if reach and self.greedy and stance > 0:
            score += 5  # the greedy dwarf wins only by finding the treasure himself
        if self.role == GEOLOGIST:
            # Crystals pay; so does a wide maze, where the others can lay theirs.
            score += 6 * card.crystals + len(new_cells) - 1
        if card.door and self.ruleset != BASE and delta > 0:
            score += self._door_bonus(card.door)
        return score

    def _door_bonus(self, colour: str) -> float:
        """A blue door shuts the green team out, and a green door the blue team."""
        if self.role == BLUE:
            return 3.0 if colour == "blue" else -6.0
        if self.role == GREEN:
            return 3.0 if colour == "green" else -6.0
        if self.role in (BOSS, PROFITEER):
            return -1.0  # doors against both teams: only the boss wins, and the boss alone
        return 0.0

    def _progress_after(self, at, new_cells, reach: int) -> float:
        """``_progress`` of the front after a placement at ``at`` that opens ``new_cells``
        (computed from the current front's distances: placements are the most moves)."""
        if reach:
            return self._progress((), reach)
        distance = self.front_distance
        removed = distance.get(at)
        added = [self._distance(c) for c in new_cells if c not in distance]
        if removed is None:
            nearest = self.nearest
        elif removed == self.nearest and not self.nearest_shared:
            nearest = self.second
        else:
            nearest = self.nearest
        if added:
            nearest = min(nearest, min(added))
        if nearest == 99 and not added and len(distance) <= (1 if removed is not None else 0):
            return NO_FRONT
        weight = self.front_weight - (0.5**removed if removed is not None else 0.0)
        weight += sum(0.5**d for d in added)
        return -nearest + 0.3 * weight

    def _opened(self, card_id: str, at, turned: bool):
        """The empty cells a placement opens toward, and whether it reaches a hidden target."""
        board, joined = self.board, self.joined
        ladder = CATALOGUE[card_id].ladder
        new_cells = set()
        reach = 0
        for tunnel in tunnels_of(card_id, turned):
            if not ladder and not any(maze.faces_joined(board, at, e, joined) for e in tunnel):
                continue
            for edge in tunnel:
                cell = maze.neighbour(at, edge)
                placed = board.get(cell)
                if placed is None:
                    new_cells.add(cell)
                elif cell in self.hidden_targets:
                    reach = 1
        return new_cells, reach

    def _score_action(self, move: ActionMove) -> float:
        effect = CATALOGUE[move["card"]].effect
        if effect == "map":
            return self._score_map(move["goal"])
        if effect in HOSTILE_EFFECTS:
            return self._score_hostile(move, CATALOGUE[move["card"]])
        if effect in FRIENDLY_EFFECTS:
            return self._score_friendly(move, effect)
        if effect == "rockfall":
            return self._score_rockfall(tuple(move["at"]))
        if effect == "theft":
            return 6.0
        return self._score_on_player(effect, move.get("target", ""))  # "": nobody

    def _score_map(self, goal: str) -> float:
        if self.certain or goal not in self.unknown_goals:
            return -2.0
        if self.role == GEOLOGIST:
            return -1.0  # crystals pay wherever the treasure lies
        early = self.min_distance >= 4
        return (12.0 if early else 6.0) * (1 if self.stance != 0 else 0.3)

    def _score_friendly(self, move: ActionMove, effect: str) -> float:
        """A repair or a Free card, on oneself or on another player."""
        lying = "trapped" if effect == "free" else f"break-{move.get('tool') or ''}"
        target = move.get("target", "")
        if target == self.me:
            return 9.0 + (2.0 if "rivalry" in self.variants else 0.0)
        friend = self.ally(target)
        if self.quiet and friend < 0.5:
            friend = 0.3  # a quiet saboteur mends tools like anybody else
        value = 5.0 * friend
        if lying.startswith("break-") and "rivalry" in self.variants:
            value -= 1.0
        return value

    def _score_on_player(self, effect: str | None, target: str) -> float:
        """Hands-off, an inspection and the two swaps (Saboteur 2's other actions)."""
        if effect == "hands-off":
            if self.role == GEOLOGIST:
                return 2.0  # guards the crystal money from a thief
            return 1.0 - 2.0 * self.ally(target)
        if effect == "inspection":
            if target in self.inspections:
                return -2.0
            return 2.0 + abs(self.suspicion.get(target, 0.0)) * 0.5
        if effect == "swap-hats":
            if target == self.me:
                return 3.0 if self.stance == 0 and self.role == GEOLOGIST else -3.0
            return -1.0 - 3.0 * self.ally(target)
        if effect == "swap-hand":
            return -0.5
        return 0.0

    def _score_hostile(self, move: ActionMove, card) -> float:
        target = move["target"]
        player = self.players.get(target)
        lying = player.get("in_front", []) if player is not None else []
        crippled = any(c.startswith("break-") or c == "trapped" for c in lying)
        friend = self.ally(target)
        if self.role == GEOLOGIST:
            return -2.0 - friend  # a broken or trapped player lays no crystals
        if self.stance < 0:
            if self.quiet:
                return -1.0 - friend
            urgency = 4.0 if self.min_distance <= 3 else 2.0
            return urgency * (1 - friend) + (1.0 if not crippled else -1.0)
        if self.stance > 0:
            return 4.0 * -friend + (1.0 if not crippled else -0.5) - 1.0
        return -1.0 - friend

    def _score_rockfall(self, at) -> float:
        placed = self.board.get(at)
        if placed is None:
            return -5.0
        card = CATALOGUE[placed.card]
        if self.role == GEOLOGIST:
            return -6.0 if card.crystals else -3.0  # a gap is not a crystal
        if self._distance(at) > self.min_distance + 2:
            return -1.5  # far from the front: wasted whoever plays it
        board = dict(self.board)
        del board[at]
        joined = maze.joined_nodes(board)
        front = _front(board, joined)
        delta = self._progress(front, 0) - self.progress_now
        score = self.stance * 10 * delta - 0.5
        if card.door and self.ruleset != BASE:
            score -= self._door_bonus(card.door)
        if self.quiet:
            score = min(score, -1.0)
        return score

    def _score_clear(self, move: ClearMove) -> float:
        remove = move["remove"]
        cost = 0.5 * sum(self.card_value(c) for c in move["discard"])
        if remove == "theft":
            return -5.0
        if remove == "trapped" and "free" in self.hand:
            return -1.0
        if remove.startswith("break-") and any(
            CATALOGUE[c].effect == "repair" and remove[6:] in CATALOGUE[c].tools for c in self.hand
        ):
            return -1.0
        return 7.0 - cost

    def card_value(self, card_id: str) -> float:
        """What keeping this card is worth to the bot (low: discard it first)."""
        card = CATALOGUE[card_id]
        if card.kind == PATH:
            dead = _dead(card)
            value = (-1.5 if dead else 0.8) * self.stance
            if card.crystals and self.role == GEOLOGIST:
                value += 3
            return value
        effect = card.effect
        if effect == "map":
            return 1.5 if not self.certain and self.role != GEOLOGIST else -1.0
        if effect in ("repair", "free"):
            return 1.5
        if effect in HOSTILE_EFFECTS:
            return 1.5 if self.stance < 0 else 0.3
        if effect == "rockfall":
            return 1.0 if self.stance < 0 else 0.2
        if effect == "theft":
            return 2.0
        return 0.0


def _front(board, joined) -> set:
    """The empty cells that a tunnel joined to the start opens toward."""
    cells = set()
    for pos, index in joined:
        for edge in maze.card_tunnels(board[pos])[index]:
            cell = maze.neighbour(pos, edge)
            if cell not in board:
                cells.add(cell)
    return cells


def _dead(card) -> bool:
    """A card with a stub (a dead end) that is not a ladder."""
    return not card.ladder and any(len(t) == 1 for t in card.tunnels)


def _hostile(event: Event) -> bool:
    if event["kind"] != "action":
        return False
    return CATALOGUE[event["card"]].effect in HOSTILE_EFFECTS + ("rockfall",)


def _this_round(history: Iterable[Event]) -> list[Event]:
    """The public events since the current round began."""
    events: list[Event] = []
    for event in history:
        if event.get("to") is not None:
            continue  # never another seat's private event (nor the bot's own: the view has them)
        if event.get("kind") in ("round-ended", "round-started"):
            events = []
            continue
        events.append(event)
    return events


def _attitude(mine: str, theirs: str) -> float:
    """How much a role wants another known role to do well."""
    if mine == SABOTEUR:
        return 1.0 if theirs in (SABOTEUR, PROFITEER) else -1.0
    if theirs == SABOTEUR:
        return -1.0
    if mine in (BLUE, GREEN) and theirs in (BLUE, GREEN):
        return 1.0 if mine == theirs else -0.3
    return 0.5
