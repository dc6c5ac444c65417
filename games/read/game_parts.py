"""The game page's parts, each built on its own and frozen once built: the players around the
table, the viewer's hand, the bar (their decision), the maze, the log, the chat and the recaps.

``games.read.pages.game_page`` builds them in that order (each from the engine's view for the
viewer and the parts before it) and assembles the page from them; ``templates/games/game.html``
draws each between ``<!--p:...-->`` markers, and an open page is sent after a move only the parts
whose markup changed (``games/web/live_parts.py``). ``tests/web/test_game_parts.py`` tests each
part on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import CATALOGUE, GOAL_POSITIONS, PATH
from games.models import Seat
from saboteur_site.text import ascii_int

from . import history, kept, learn, ledger_words, suspicions
from .card_names import card_name, hand_order, role_name
from .drawing import card_picture, card_use, goal_back_use, in_front_svg
from .log import Entry, goal_label, knowledge_lines, tool_label
from .seats import seat_number

Move = Mapping[str, Any]
Position = tuple[int, int]


# -- The players around the table --------------------------------------------------------------


@dataclass(frozen=True)
class Players:
    """The players strip, in turn order: whose turn, cards in hand, what lies in front of them,
    badges; which seat is the viewer's, in words ("seat 2 of 4")."""

    rows: tuple[dict, ...] = ()
    my_seat: str = ""
    to_move_name: str | None = None
    # The viewer's private marks (issue 38): what they can mark each other seat this round.
    mark_choices: tuple[tuple[str, str], ...] = ()

    def name(self, seat: str) -> str:
        return next((p["name"] for p in self.rows if p["seat"] == seat), "?")


def players(
    view: dict,
    names: dict[str, str],
    labels: dict[str, str],
    me: str | None,
    live: dict[str, Seat],
    *,
    marks: Mapping[str, str] | None = None,
    mark_choices: Sequence[tuple[str, str]] = (),
) -> Players:
    """``label`` (with "played by a bot for") for the strip, ``name`` for what the page says about
    a player (choices, standings); the cards in front of them as icons; whether a bot plays the
    seat, for an absent player or on its own; the viewer's own mark on them (``marks``, theirs
    alone) and the marks they can give (``mark_choices``: none when they cannot mark now)."""
    marks = marks or {}
    labelled = dict(mark_choices)
    deleted = _("deleted player")  # translated once, not three times a player
    count = len(view["players"])
    rows = []
    for player in view["players"]:
        seat = player["seat"]
        holder = live.get(seat)
        bot = holder is not None and holder.bot is not None
        rows.append(
            {
                "seat": seat,
                "number": int(seat) + 1,  # "seat 1 of 4", as the emails and the admin say
                "seat_label": seat_number(int(seat), count),
                "name": names.get(seat, deleted),
                "label": labels.get(seat, deleted),
                # A bot's seat is named short, its badge says "bot".
                "short": _("Bot %(number)d") % {"number": holder.bot}
                if bot and holder is not None
                else names.get(seat, deleted),
                "hand_size": player["hand_size"],
                "in_front": [card_name(c) for c in player["in_front"]],
                "icons": [
                    {"svg": in_front_svg(c), "name": card_name(c)} for c in player["in_front"]
                ],
                "to_move": view["to_move"] == seat,
                "is_me": seat == me,
                "has_gold": player.get("has_gold"),
                "gold": player.get("gold"),
                "bot": bot,
                "stand_in": holder is not None and holder.stand_in and holder.bot is None,
                "absent": holder is not None and holder.state == Seat.State.ABSENT,
                "mark": marks.get(seat, ""),
                "mark_label": labelled.get(marks.get(seat, ""), ""),
            }
        )
    return Players(
        rows=tuple(rows),
        my_seat=seat_number(int(me), count) if me is not None else "",
        to_move_name=names.get(view["to_move"]) if view["to_move"] else None,
        mark_choices=tuple(mark_choices),
    )


# -- The viewer's hand ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HandCard:
    id: str
    name: str
    svg: str
    playable: bool = False
    selected: bool = False
    help: str = ""  # what the card does (games/read/learn.py)
    reason: str = ""  # why it cannot be played now, on a turn to play cards
    new: bool = False  # drawn on the viewer's latest turn


@dataclass(frozen=True)
class Hand:
    """The viewer's own: their role, what they know that others may not, their cards (in the
    order every page and email shows them)."""

    cards: tuple[HandCard, ...] = ()
    role: str | None = None
    role_help: str = ""
    knowledge: tuple[str, ...] = ()


def hand(
    view: dict, *, playable: Set[str], selected: str | None, cards_turn: bool, moves, names
) -> Hand:
    """``cards_turn``: the viewer's turn to play cards (reasons for the greyed ones are given
    then, not while picking gold or stealing)."""
    mine = view["me"]
    if mine is None:
        return Hand()
    in_front = next(p["in_front"] for p in view["players"] if p["seat"] == mine["seat"])
    ordered = hand_order(mine["hand"])
    # Of two alike cards, the first is the one chosen: one card lights up, not both.
    chosen = ordered.index(selected) if selected in ordered else None
    new = _newly_drawn(ordered, moves, mine["seat"])
    return Hand(
        cards=tuple(
            HandCard(
                id=card,
                name=card_name(card),
                svg=card_picture(card),
                playable=card in playable,
                selected=index == chosen,
                help=learn.card_help(card),
                reason=learn.unplayable_reason(card, in_front, cards_turn, playable),
                new=index in new,
            )
            for index, card in enumerate(ordered)
        ),
        role=role_name(mine["role"]),
        role_help=learn.role_help(mine["role"]),
        knowledge=tuple(knowledge_lines(mine, names)),
    )


def _newly_drawn(ordered: list[str], moves, me: str) -> set[int]:
    """The positions in the hand of the cards the viewer drew on their latest turn."""
    for _sequence, events, _automatic, _seat in reversed(moves):
        if any(e["kind"] == "round-started" for e in events):
            return set()  # a new deal since: nothing is "newly drawn"
        drawn = [
            card
            for event in events
            if event["kind"] == "drew" and event["to"] == me
            for card in event["cards"]
        ]
        if drawn:
            marked = set()
            for index, card in enumerate(ordered):
                if card in drawn:
                    drawn.remove(card)
                    marked.add(index)
            return marked
    return set()


# -- The bar: the viewer's decision --------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One button: a complete move as form fields."""

    label: str
    fields: dict
    confirm: bool = False  # a first step: the page then asks to confirm (games/read/learn.py)

    @property
    def pick(self) -> str:
        """What the first step chooses: the player (and tool) an action is played on, or the
        goal a map looks at (the page's ``target`` parameter either way)."""
        return str(self.fields.get("target") or self.fields.get("goal") or "")


@dataclass(frozen=True)
class Bar:
    """The viewer's decision: the card chosen and how, the maze's spots for it, the players or
    goals it can go to, the move waiting for Confirm, passing and clearing, gold and steals."""

    title: str = ""  # the decision in words, for the turn line ("Pick a gold card.")
    selected: str | None = None
    selected_name: str = ""
    turned: bool = False
    place_kind: str | None = None  # "place" or "rockfall" when the maze's cells are buttons
    spots: frozenset[Position] = frozenset()  # where the chosen card can go
    chosen_at: Position | None = None  # the legal position picked, awaiting "Confirm"
    looks: tuple[tuple[Position, str], ...] = ()  # the goals a chosen map can look at, by cell
    choices: tuple[Choice, ...] = ()
    confirm: Choice | None = None
    confirm_warning: str = ""
    discard_options: tuple[dict, ...] = ()
    pass_range: tuple[int, int] = (1, 1)
    clear_removable: tuple[dict, ...] = ()
    gold_choices: tuple[Choice, ...] = ()
    steal_choices: tuple[Choice, ...] = ()
    gold_pick: dict | None = None  # who chooses gold, how many picks are left, who is next

    @property
    def pass_one(self) -> bool:
        """A pass discards exactly one card (a radio button), not one to three."""
        return self.pass_range[1] == 1

    @property
    def looked(self) -> str:
        """The goal of the map waiting for Confirm ("" for none)."""
        return str(self.confirm.fields.get("goal", "")) if self.confirm else ""


@dataclass(frozen=True)
class Deciding:
    """What the bar is built from: the viewer's legal moves (only what the page shows), their
    playable cards, the card chosen and its side, and the page's address (a spot, a target)."""

    legal: Sequence[Move] = ()
    selected: str | None = None
    turned: bool = False
    at: str | None = None
    target: str | None = None
    tool: str | None = None
    playable: frozenset[str] = frozenset()


def bar(
    view: dict,
    deciding: Deciding,
    hand: Hand,
    players: Players,
    moves,
    *,
    me: str | None,
    title: bool,
) -> Bar:
    """``title``: the decision is put in words (the viewer's turn in a running game)."""
    picking = gold_pick(view, players, me, moves)
    if view["me"] is None:
        return Bar(gold_pick=picking)
    selected = deciding.selected
    turned = deciding.turned and selected is not None
    kind = _place_kind(selected)
    choices = _action_choices(deciding, kind, players, me)
    confirm = next(
        (c for c in choices if c.confirm and _chosen(c, deciding.target, deciding.tool)), None
    )
    spots = _spots(deciding.legal, kind, selected, turned)
    at = _position(deciding.at)
    built = Bar(
        selected=selected,
        selected_name=card_name(selected) if selected else "",
        turned=turned,
        place_kind=kind,
        spots=frozenset(spots),
        chosen_at=at if at in spots else None,
        looks=_looks(deciding),
        choices=choices,
        confirm=confirm,
        confirm_warning=_warning(confirm, me),
        gold_pick=picking,
        **_discards(deciding.legal, hand),
        **_picks(deciding.legal, players),
    )
    return replace(built, title=decision_title(built)) if title else built


def _place_kind(selected: str | None) -> str | None:
    """ "place" for a path card, "rockfall" for a rockfall: the maze's cells are its buttons."""
    if selected and CATALOGUE[selected].kind == PATH:
        return "place"
    if selected and CATALOGUE[selected].effect == "rockfall":
        return "rockfall"
    return None


def _action_choices(
    deciding: Deciding, kind: str | None, players: Players, me: str | None
) -> tuple[Choice, ...]:
    """The chosen action card's buttons: the players (and tools) or goals it can go to."""
    if not deciding.selected or kind == "place":
        return ()
    return tuple(
        _choice(m, players, me)
        for m in deciding.legal
        if m.get("card") == deciding.selected and m["move"] == "action" and "at" not in m
    )


def _looks(deciding: Deciding) -> tuple[tuple[Position, str], ...]:
    """The goals a chosen map can look at, by their cell."""
    goals = (
        m["goal"] for m in deciding.legal if m.get("card") == deciding.selected and "goal" in m
    )
    return tuple((GOAL_POSITIONS[goal], goal) for goal in goals if goal in GOAL_POSITIONS)


def _discards(legal: Sequence[Move], hand: Hand) -> dict[str, Any]:
    """Passing (its cards: the hand; how many) and clearing (what can be removed)."""
    counts = [len(m["discard"]) for m in legal if m["move"] == "pass"]
    options = (
        {"id": c.id, "name": c.name, "index": i, "svg": c.svg} for i, c in enumerate(hand.cards)
    )
    removable = sorted({m["remove"] for m in legal if m["move"] == "clear"})
    return {
        "discard_options": tuple(options) if counts else (),
        "pass_range": (min(counts), max(counts)) if counts else (1, 1),
        "clear_removable": tuple({"id": card, "name": card_name(card)} for card in removable),
    }


def _picks(legal: Sequence[Move], players: Players) -> dict[str, Any]:
    """The gold pick's and a Theft's buttons."""

    def steal(victim: str | None) -> str:
        if victim:
            return _("Steal from %(name)s") % {"name": players.name(victim)}
        return _("Steal nothing")

    return {
        "gold_choices": tuple(
            Choice(_("Keep %(value)d gold") % {"value": m["value"]}, _fields(m))
            for m in legal
            if m["move"] == "pick-gold"
        ),
        "steal_choices": tuple(
            Choice(steal(m["victim"]), _fields(m)) for m in legal if m["move"] == "steal"
        ),
    }


def decision_title(bar: Bar) -> str:
    """The viewer's decision in words, for the turn line ("Pick a gold card")."""
    if bar.gold_choices:
        return _("Pick a gold card.")
    if bar.steal_choices:
        return _("Choose whom to steal from.")
    if not bar.selected:
        if bar.discard_options:
            return _("Choose a card to play, or pass.")
        return _("Choose a card to play.")
    card = {"card": bar.selected_name}
    if bar.confirm:
        return _("Confirm your move, or choose again.")
    if bar.place_kind == "place":
        if bar.chosen_at:
            return _("Confirm %(card)s on the chosen spot, or choose another.") % card
        return _("Choose a highlighted spot for %(card)s.") % card
    if bar.place_kind == "rockfall":
        if bar.chosen_at:
            return _("Confirm the rockfall, or choose another card.")
        return _("Choose a path card to remove.")
    if any("goal" in choice.fields for choice in bar.choices):
        return _("Choose a goal to look at.")
    return _("Choose whom to play %(card)s on.") % card


def _choice(move: Move, players: Players, me: str | None) -> Choice:
    """An action's button; one played on a player or a goal takes two steps, like placing:
    choose, then confirm (the chosen target comes from the page's address)."""
    confirm = "goal" in move or "target" in move
    return Choice(_choice_label(move, players, me), _fields(move), confirm=confirm)


def _chosen(choice: Choice, target: str | None, tool: str | None) -> bool:
    """The choice the page's address picked: only a choice the engine offers is ever shown for
    confirmation."""
    fields = choice.fields
    if "goal" in fields:
        return fields["goal"] == target and tool is None
    return fields.get("target") == target and fields.get("tool") == tool


def _warning(confirm: Choice | None, me: str | None) -> str:
    if confirm is None or confirm.fields.get("target") != me:
        return ""
    effect = CATALOGUE[confirm.fields["card"]].effect
    return str(learn.SELF_HARM[effect]) if effect in learn.SELF_HARM else ""


def _choice_label(move: Move, players: Players, me: str | None) -> str:
    if "goal" in move:
        return _("Look at the %(goal)s goal") % {"goal": goal_label(move["goal"])}
    if move["target"] == me:
        if "tool" in move:
            return _("Repair your %(tool)s") % {"tool": tool_label(move["tool"])}
        return _("Play on yourself")
    target = players.name(move["target"])
    if "tool" in move:
        return _("Repair %(name)s's %(tool)s") % {"name": target, "tool": tool_label(move["tool"])}
    return _("Play on %(name)s") % {"name": target}


def _fields(move: Move) -> dict:
    """A move as the flat form fields the move view reads."""
    fields = {"kind": move["move"]}
    for key in ("card", "target", "tool", "goal", "value", "victim"):
        if key in move and move[key] is not None:
            fields[key] = move[key]
    return fields


def _spots(legal: Sequence[Move], kind: str | None, selected, turned: bool) -> set[Position]:
    """Where the selected card can go (a path card the way round it is shown, a rockfall)."""
    if kind == "place":
        return {
            (m["at"][0], m["at"][1])
            for m in legal
            if m["move"] == "place" and m["card"] == selected and m["turned"] == turned
        }
    if kind == "rockfall":
        return {(m["at"][0], m["at"][1]) for m in legal if m.get("card") == selected and "at" in m}
    return set()


def _position(text: str | None) -> Position | None:
    x_text, _comma, y_text = (text or "").partition(",")
    x, y = ascii_int(x_text), ascii_int(y_text)
    return None if x is None or y is None else (x, y)


def gold_pick(view: dict, players: Players, me: str | None, moves) -> dict | None:
    """The gold pick in words: "Bob is choosing gold (2 of 4 picks left)", and for the picker
    who picks after them and what the others get."""
    if view["decision"] != engine.PICK_GOLD or view["finished"]:
        return None
    taken = 0  # picks already made since the round ended (this round's "gold-taken" events)
    for _sequence, events, _automatic, _position in reversed(moves):
        kinds = [event["kind"] for event in events]
        if "round-started" in kinds:
            break
        taken += kinds.count("gold-taken")
    left = view["offer_count"]
    pickers = view["pickers"]
    # The rotation goes round again when there are more cards than pickers.
    after = [players.name(pickers[k % len(pickers)]) for k in range(1, left)] if pickers else []
    return {
        "picker": players.name(pickers[0]) if pickers else "",
        "mine": bool(pickers) and pickers[0] == me,
        "left": left,
        "total": left + taken,
        "after": after,
        "rest": left - 1,
    }


# -- The maze ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell(history.MazeCell):
    """A cell of the maze as the viewer sees it: a ``MazeCell`` (its card or a goal, new or
    removed since their visit) with the chosen card's spot, where the maze last changed, a goal
    they saw, the help on its card and for screen readers its name (the card, the position, the
    neighbours)."""

    legal: bool = False
    chosen: bool = False
    last: bool = False  # where the maze last changed
    peeked: str = ""  # what the viewer saw on this face-down goal with a map (its face shows)
    look: str = ""  # the goal (north, middle, south) the chosen map may look at here
    looked: bool = False  # ... and the one chosen, waiting for Confirm
    card: str = ""  # the face-up card lying here
    help: str = ""  # what that card does (games/read/learn.py)
    name: str = ""  # for screen readers

    MARKS: ClassVar[tuple[str, ...]] = ("legal", "last", "new", "removed", "seen")

    @property
    def seen(self) -> bool:
        return bool(self.peeked)

    @property
    def blank(self) -> bool:
        return super().blank and not (self.name or self.help)


@dataclass(frozen=True)
class Board:
    """The maze's rows of cells, and the latest act of the round (outlined, animated once)."""

    rows: tuple[tuple[Cell, ...], ...] = ()
    last_act: LastAct | None = None

    @property
    def last_move(self) -> int:
        """The sequence of the round's latest act (0 before its first)."""
        return self.last_act.sequence if self.last_act else 0


@dataclass(frozen=True)
class LastAct:
    """The latest move of this round that everyone saw, whatever its kind: the page outlines its
    target and js/game.js sends a card from the mover's seat to it."""

    sequence: int
    mover: str  # the engine seat that moved
    card: str = ""  # the card played, when everyone sees it (not a pass's discards)
    seat: str = ""  # the player it was played on: a tool, a theft, a cleared card (their own)
    at: Position | None = None  # the maze's cell: a path, a rockfall, a map's goal
    passed: bool = False  # a pass: the mover's own chip shows it (nothing else moved)


ACTS = ("placed", "action", "passed", "cleared", "stole", "gold-taken")


def last_act(moves) -> LastAct | None:
    """This round's latest act from the public events (None before the round's first)."""
    for sequence, events, _automatic, _seat in reversed(moves):
        for event in reversed(events):
            if event["kind"] == "round-started":
                return None  # a new maze: nothing of the last round's is "the last move"
            if event["to"] is not None or event["kind"] not in ACTS:
                continue
            at = event.get("at")
            if "goal" in event:
                at = GOAL_POSITIONS.get(event["goal"])
            seat = event.get("target") or event.get("victim") or ""
            if event["kind"] == "cleared":
                seat = event["seat"]
            return LastAct(
                sequence=sequence,
                mover=event["seat"],
                card=event.get("card", ""),
                seat=seat,
                at=(at[0], at[1]) if at else None,
                passed=event["kind"] == "passed",
            )
    return None


def board(view: dict, decision: Bar, moves, since: history.Since | None) -> Board:
    """The maze the viewer looks at (``_lying``), the chosen card's legal spots with a preview of
    it there, the marks; one ring of empty cells around."""
    act = last_act(moves)
    lying = _lying(view)
    if lying.over:
        decision = Bar()  # nothing to choose on a maze that is over
    taken = set(lying.cards) | lying.backs | set(decision.spots)
    if not taken:
        return Board(last_act=act)
    xs, ys = [x for x, _y in taken], [y for _x, y in taken]
    columns, lines = range(min(xs) - 1, max(xs) + 2), range(min(ys) - 1, max(ys) + 2)
    marks = _Marks(decision, act.at if act else None, since)
    drawn = {
        (x, y): lying.drawing((x, y), decision) | marks.of((x, y)) for y in lines for x in columns
    }
    names = learn.cell_names({at: (d.get("label", ""), d["legal"]) for at, d in drawn.items()})
    rows = tuple(
        tuple(Cell(x, y, **drawn[(x, y)], name=names.get((x, y), "")) for x in columns)
        for y in lines
    )
    return Board(rows=rows, last_act=act)


@dataclass(frozen=True)
class _Lying:
    """What lies on the maze: face-up cards, face-down goals, the goals the viewer saw."""

    cards: dict[Position, tuple[str, bool]]
    backs: set[Position] = field(default_factory=set)
    peeked: dict[Position, str] = field(default_factory=dict)
    over: bool = False  # a round's maze as it ended

    def drawing(self, at: Position, decision: Bar) -> dict[str, Any]:
        return _drawing(at, self.cards, self.peeked, self.backs, decision)


def _lying(view: dict) -> _Lying:
    """The running round's maze (its goals face down, or seen by the viewer); while a round's
    gold is shared, that round's as it ended; once the game is over, the last round's with
    every goal face up."""
    ended = None
    if view["finished"] and view["rounds_done"]:
        ended = view["rounds_done"][-1]
    elif view.get("round_ending"):
        ended = view["round_ending"]
    if ended:
        return _Lying({(x, y): (c, t) for x, y, c, t in ended["board"]}, over=True)
    mine = view["me"]["peeks"] if view["me"] else {}
    # A face-down goal I looked at with a map shows its face, marked as seen, to me alone.
    return _Lying(
        cards={(c["x"], c["y"]): (c["card"], c["turned"]) for c in view["board"]},
        backs={(g["x"], g["y"]) for g in view["goals"] if g["face_down"]},
        peeked={(g["x"], g["y"]): mine[g["name"]] for g in view["goals"] if g["name"] in mine},
    )


@dataclass(frozen=True)
class _Marks:
    """A cell's marks: a spot of the chosen card (the one picked), a goal a map can look at
    (the one picked), where the maze last changed, what changed since the viewer's visit."""

    decision: Bar
    last: Position | None
    since: history.Since | None

    def of(self, at: Position) -> dict[str, Any]:
        decision, since = self.decision, self.since
        look = dict(decision.looks).get(at, "")
        return {
            "legal": at in decision.spots,
            "chosen": at == decision.chosen_at,
            "look": look,
            "looked": bool(look) and look == decision.looked,
            "last": at == self.last,
            "new": since is not None and at in since.placed,
            "removed": since is not None and at in since.removed,
        }


def _drawing(at: Position, cards: dict, peeked: dict, backs: set, decision: Bar) -> dict:
    """What a cell shows: its card, a goal the viewer saw, a goal's back, or the preview of the
    chosen card on a legal spot; and the help on it."""
    if at in cards:
        card, turned = cards[at]
        return {
            "svg": card_use(card, turned),
            "label": card_name(card),
            "card": card,
            "help": learn.card_help(card),
        }
    if at in peeked:
        seen = card_name(peeked[at])
        return {
            "svg": card_use(peeked[at]),
            "label": _("Face-down goal you saw: %(card)s") % {"card": seen},
            "peeked": seen,
            "face_down": True,
            "help": _(
                "You saw this goal with a map: %(card)s. It is still face down for the others."
            )
            % {"card": seen},
        }
    if at in backs:
        return {
            "svg": goal_back_use(),
            "label": _("Face-down goal"),
            "face_down": True,
            "help": _("A goal card, face down: the treasure or a stone."),
        }
    if at in decision.spots and decision.selected:  # a preview of the card there
        return {"svg": card_use(decision.selected, decision.turned)}
    return {}


# -- The log -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Log:
    """The newest lines of the log for the viewer, newest first, grouped by round (only the
    running one open); the lines the viewer has not seen marked."""

    entries: tuple[Entry, ...] = ()
    rounds: tuple[dict, ...] = ()


def log(
    entries: Sequence[Entry], view: dict, moves, names, me: str | None, since: int | None
) -> Log:
    """``since``: the version after which lines are new to the viewer (None: a watcher)."""
    groups = history.log_by_round(list(entries), moves, view["round"], names, me)
    ids: dict[int, str] = {}
    count: Counter[int] = Counter()
    for entry in reversed(entries):  # in the order of play
        # An id that stays with the line (its move's sequence, then its rank among that move's
        # lines): an open page is sent only the lines it has not got (games/web/live_parts.py).
        ids[id(entry)] = f"l{entry.sequence}-{count[entry.sequence]}"
        count[entry.sequence] += 1
    rounds = tuple({**group, "lines": _lines(group["entries"], ids, since)} for group in groups)
    return Log(tuple(entries), rounds)


def _lines(entries: Iterable[Entry], ids: dict[int, str], since: int | None) -> list[dict]:
    """The lines as the page shows them: private ones set apart, the unseen ones marked (decided
    here, once per line, rather than in the template's loop)."""
    lines = []
    for entry in entries:
        new = since is not None and entry.sequence > since
        classes = ["log__private"] if entry.private else []
        classes += ["log__new"] if new else []
        lines.append(
            {"id": ids[id(entry)], "text": entry.text, "new": new, "css": " ".join(classes)}
        )
    return lines


# -- The recaps ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recap:
    """The rounds' results: each finished round's recap, the round being settled (its gold
    shared), the last round's result for a player who has not decided since, the recaps of the
    rounds ended since the viewer's visit; at the game's end its scores and standings."""

    rounds: tuple[dict, ...] = ()
    round_end: dict | None = None
    round_result: dict | None = None
    new_recaps: tuple[dict, ...] = ()
    end: dict | None = None  # the end of the game: winners, gold per round, seeds
    standings: tuple[dict, ...] = ()
    guesses: str = ""  # the good guesses per player (so far; at the end, of the whole game)


def recap(
    view: dict,
    players: Players,
    round_names: list[dict[str, str]],
    names: dict[str, str],
    *,
    result_shown: bool,
    ended_since: Iterable[int] = (),
    seen: ledger_words.Ledger | None = None,
    guessed: suspicions.Revealed | None = None,
) -> Recap:
    """``result_shown``: the last round's result is shown (a seated player who has not decided
    since it ended); ``ended_since``: the rounds ended since the viewer's visit; ``seen``: the
    public ledger (what each player did, per round)."""
    done, ruleset = view["rounds_done"], view["ruleset"]
    did = seen.rounds if seen is not None else {}

    def named(number: int) -> dict[str, str]:
        return round_names[number - 1] if number <= len(round_names) else names

    def guesses(number: int) -> tuple[list[str], dict[str, str]]:
        """The round's marks as sentences, and per author (beside their role)."""
        if guessed is None:
            return [], {}
        return guessed.of_round(number, named(number)), guessed.by_author(number, named(number))

    def of(number: int, *, maze: bool = False) -> dict:
        return round_recap(
            done[number - 1], number, named(number), ruleset, maze, did.get(number), guesses(number)
        )

    round_end = round_result = None
    if view.get("round_ending") and not view["finished"]:
        # The round is over and its gold is being shared: everyone sees how it ended first.
        number = view["round"]
        sentences, by_author = guesses(number)
        round_end = history.round_recap(
            view["round_ending"],
            number,
            named(number),
            ruleset=ruleset,
            did=did.get(number),
            guesses=sentences,
            guessed=by_author,
        )
    elif done and not view["finished"] and result_shown:
        round_result = of(len(done))
    return Recap(
        rounds=tuple(of(n) for n in range(1, len(done) + 1)),
        round_end=round_end,
        round_result=round_result,
        new_recaps=tuple(of(n, maze=True) for n in ended_since if n <= len(done)),
        end=history.game_end(view, names),
        standings=standings(players) if view["finished"] else (),
        guesses=guessed.tally(names, final=view["finished"]) if guessed is not None else "",
    )


def round_recap(
    done: dict,
    number: int,
    names: dict[str, str],
    ruleset: str,
    maze: bool,
    did: Mapping[str, ledger_words.SeatRecord] | None,
    guesses: tuple[list[str], dict[str, str]],
) -> dict:
    """A finished round's recap (``history.round_recap``), its final maze drawn (the largest part
    of it), kept under the digest of what it is made from (``games.read.kept``): every page that
    shows it (each player's, the watchers') makes it once, not at every view."""

    def build() -> dict:
        sentences, by_author = guesses
        recap = history.round_recap(
            done,
            number,
            names,
            ruleset=ruleset,
            maze=maze,
            did=did,
            guesses=sentences,
            guessed=by_author,
        )
        if recap["rows"]:
            recap["maze"] = history.maze_html(recap.pop("rows"), "recap-maze")
            recap["rows"] = []
        return recap

    return kept.built("round-recap", (done, number, names, ruleset, maze, did, guesses), build)


def standings(players: Players) -> tuple[dict, ...]:
    """The final standings, most gold first; players with the same gold share a rank."""
    rows = [{"name": p["name"], "gold": p["gold"]} for p in players.rows]
    rows.sort(key=lambda row: -row["gold"])
    return tuple(
        {**row, "rank": 1 + sum(1 for other in rows if other["gold"] > row["gold"])} for row in rows
    )


# -- The ledger: what each player was seen doing ---------------------------------------------------


@dataclass(frozen=True)
class LedgerRow:
    """One player's public record this round (and this game, in words):
    games/read/ledger_words.py."""

    seat: str
    name: str
    record: ledger_words.SeatRecord
    this_round: str = ""  # in words ("" when nothing yet)
    this_game: str = ""
    other: str = ""  # Saboteur 2's acts besides the table's columns, in words


@dataclass(frozen=True)
class Ledger:
    """What each player did this round as everyone saw it: the table beside the log and each
    player's card in the players strip."""

    round: int = 0
    rows: tuple[LedgerRow, ...] = ()

    def of(self, seat: str) -> LedgerRow | None:
        return next((row for row in self.rows if row.seat == seat), None)


def ledger_part(seen: ledger_words.Ledger, view: dict, players: Players) -> Ledger:
    """``seen``: the public ledger of the game's moves (pure, from the public log). Kept under
    the digest of what it is made from (``games.read.kept``): the same for every viewer."""
    number = view["round"]
    names = {p["seat"]: p["name"] for p in players.rows}
    return kept.built("ledger", (seen, number, names), lambda: _ledger_part(seen, number, names))


def _ledger_part(seen: ledger_words.Ledger, number: int, names: dict[str, str]) -> Ledger:
    this_round = seen.rounds.get(number, {})
    rows = []
    for seat, name in names.items():
        record = this_round.get(seat, ledger_words.SeatRecord(seat))
        rows.append(
            LedgerRow(
                seat=seat,
                name=name,
                record=record,
                this_round=", ".join(ledger_words.record_phrases(record, names)),
                this_game=", ".join(ledger_words.record_phrases(seen.total(seat), names)),
                other=", ".join(ledger_words.other_phrases(record, names)),
            )
        )
    return Ledger(round=number, rows=tuple(rows))
