"""The pages of one game as one viewer may see them: the game page, a round's recap, a replay
step, the viewer's hand and an invitation.

Templates get a ``GamePage`` built from the engine's ``view_for`` for the viewer's own seat; they
never see a ``Game`` row, its snapshot or the engine state.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

from django.core.cache import cache, caches
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import CATALOGUE, GOAL_POSITIONS, PATH, PLAYERS
from games.models import ChatMessage, Game, Seat
from saboteur_site.cache import get_or_build
from saboteur_site.text import ascii_int

from . import history, learn, table_events
from .clock import Clock, clock_of, rules_lines
from .drawing import (
    card_name,
    card_picture,
    card_use,
    goal_back_use,
    hand_order,
    in_front_svg,
    role_name,
)
from .log import Entry, entries_for, goal_label, tool_label
from .seats import display_name, live_seat, seat_label, seat_names, seat_number

LOG_LENGTH = 80

CHAT_LENGTH = 50
CHAT_SECONDS = 600


@dataclass
class Cell(history.MazeCell):
    """A cell of the game page's maze: a ``MazeCell`` with the viewer's spots, marks and help."""

    legal: bool = False
    chosen: bool = False
    last: bool = False  # where the maze last changed
    peeked: str = ""  # what the viewer saw on this face-down goal with a map (its face shows)
    look: str = ""  # the goal (north, middle, south) the chosen map may look at here
    looked: bool = False  # ... and the one chosen, waiting for Confirm
    card: str = ""  # the face-up card lying here
    help: str = ""  # what that card does (games/read/learn.py)
    name: str = ""  # for screen readers: the card, the position and the neighbours

    MARKS = ("legal", "last", "new", "removed", "seen")

    @property
    def seen(self) -> bool:
        return bool(self.peeked)

    @property
    def blank(self) -> bool:
        return super().blank and not (self.name or self.help)


@dataclass
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


@dataclass
class GamePage:
    id: int
    name: str
    ruleset_label: str
    status: str
    status_label: str
    revision: int
    version: int
    deadline: datetime | None
    turn_limit: timedelta
    invite_path: str | None
    seated: bool
    is_creator: bool
    lobby_names: list[str]
    max_seats: int
    min_seats: int = 2
    min_reliability: int | None = None  # the creator's minimum to join, in percent
    view: dict | None = None
    me: str | None = None
    my_turn: bool = False
    to_move_name: str | None = None
    players: list[dict] = field(default_factory=list)
    my_seat: str = ""  # "seat 2 of 4"
    rows: list[list[Cell]] = field(default_factory=list)
    hand: list[dict] = field(default_factory=list)
    role: str | None = None
    knowledge: list[str] = field(default_factory=list)
    # Why the moderators stopped the game, once aborted ("" when they gave no reason).
    stopped_reason: str | None = None
    # For a player who took over a seat, on their first visit: whose seat and what it held.
    briefing: dict | None = None
    selected: str | None = None
    selected_name: str = ""
    turned: bool = False
    place_kind: str | None = None  # "place" or "rockfall" when board cells are buttons
    chosen_at: tuple[int, int] | None = None  # the legal position picked, awaiting "Confirm"
    choices: list[Choice] = field(default_factory=list)
    discard_options: list[dict] = field(default_factory=list)
    pass_range: tuple[int, int] = (1, 1)
    clear_removable: list[dict] = field(default_factory=list)
    gold_choices: list[Choice] = field(default_factory=list)
    gold_pick: dict | None = None  # who chooses gold, how many picks are left, who is next
    steal_choices: list[Choice] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)
    standings: list[dict] = field(default_factory=list)
    log: list[Entry] = field(default_factory=list)
    chat: list[dict] = field(default_factory=list)
    # Issue 13 (games/read/learn.py): rules link, role help, a move awaiting confirmation.
    ruleset: str = ""
    role_help: str = ""
    confirm: Choice | None = None
    confirm_warning: str = ""
    # Since you were here: changes after this version are marked; recaps of rounds ended since.
    since: int = 0
    new_recaps: list[dict] = field(default_factory=list)
    log_rounds: list[dict] = field(default_factory=list)
    end: dict | None = None  # the end of the game: winners, gold per round, seeds
    replay_step: int = 0
    # Issue 25: the decision in words, the round just ended (shown through the gold pick and
    # the thefts), the sequence of the move that last changed the maze (animated once).
    decision_title: str = ""
    round_end: dict | None = None
    # The round that ended last, shown to a player until their next decision (or until they
    # close it): a round without a gold pick went by unseen, its result a folded log line.
    round_result: dict | None = None
    last_act: LastAct | None = None  # this round's latest move, outlined and animated
    last_move: int = 0
    # The running decision's clock (games.read.clock): "time left" as every view says it.
    clock: Clock | None = None
    clock_rules: list[str] = field(default_factory=list)  # the game's clock in words

    # Reversed once here, not in each of the template's loops (the hand, the choices).
    @cached_property
    def url(self) -> str:
        return reverse("game", args=[self.id])

    @cached_property
    def move_url(self) -> str:
        return reverse("move", args=[self.id])

    @property
    def clock_shown(self) -> bool:
        """The running decision's "time left" is shown: in the turn line and beside whoever
        decides, while the game is not over and its clock not stopped."""
        finished = (self.view or {}).get("finished")
        return bool(self.clock) and not finished and self.stopped_reason is None

    @property
    def pass_one(self) -> bool:
        """A pass discards exactly one card (a radio button), not one to three."""
        return self.pass_range[1] == 1


def game_page(
    game: Game,
    user,
    *,
    selected: str | None = None,
    turned: bool = False,
    at: str | None = None,
    target: str | None = None,
    tool: str | None = None,
) -> GamePage:
    """The game as ``user`` may see it, with a card ``selected`` (``turned``) and a position
    ``at`` ("x,y") picked for it when the player is choosing a move.

    Built in steps, each filling its parts of the page: the header and the lobby, the players,
    the viewer's own decision (hand, choices, maze spots), the rounds' results, the log."""
    seats = list(game.seats.all())
    me_seat = live_seat(game, user)
    page = _header(game, user, seats, me_seat)
    if game.snapshot is None:
        return page
    table = _Table.of(game, seats, me_seat)
    view, me = table.view, table.me
    page.view, page.me = view, me
    page.my_turn = me is not None and view["to_move"] == me
    page.to_move_name = table.names.get(view["to_move"]) if view["to_move"] else None
    page.players = _players(view, table.names, table.labels, me, table.live)
    page.clock = clock_of(game, seat=table.live.get(view["to_move"]) if view["to_move"] else None)
    if me is not None:  # numbered as the emails and the admin number seats
        page.my_seat = seat_number(int(me), len(view["players"]))
    playing = game.status == Game.Status.RUNNING  # no move buttons while paused or aborted
    legal, playable, selected, turned = _decision(table, page.my_turn and playing, selected, turned)
    _mine(page, view, legal, playable, selected, turned, table.names)
    if me_seat is not None and me_seat.last_seen_at is None:
        page.briefing = _briefing(page, me_seat, seats)
    page.rows = _board(view, legal, page, at)
    learn.explain(page, view, legal_cards=playable)
    learn.confirm_step(page, target=target, tool=tool)
    moves = history.move_log(game)
    renames = table_events.renames(game)
    round_names = history.round_names(moves, table.names, renames)
    _results(page, view, moves, me_seat, round_names, table.names)
    page.last_move = _mark_last_change(page.rows, moves)
    page.last_act = last_act(moves)
    learn.mark_drawn(page, moves)
    page.gold_pick = _gold_pick(view, table.names, me, moves)
    page.log = _log(game, moves, table.names, me, renames)
    _since(page, view, moves, me_seat, table.names, round_names)
    page.decision_title = _decision_title(page) if playing else ""
    return page


def _header(game: Game, user, seats: list[Seat], me_seat: Seat | None) -> GamePage:
    """What every page of the game shows, from the lobby on: its name, rules, status, players
    and chat."""
    page = GamePage(
        id=game.pk,
        name=game.name,
        ruleset_label=game.get_ruleset_display(),
        status=game.status,
        status_label=game.get_status_display(),
        revision=game.revision,
        version=game.version,
        deadline=game.deadline,
        turn_limit=game.turn_limit,
        invite_path=game.invite_token if me_seat is not None else None,
        seated=me_seat is not None,
        is_creator=user.is_authenticated and game.creator_id == user.pk,
        lobby_names=[display_name(s) for s in seats],
        max_seats=game.max_seats,
        min_seats=PLAYERS[game.ruleset][0],
        min_reliability=game.min_reliability,
        ruleset=game.ruleset,
    )
    page.chat = _chat(game, me_seat)
    page.clock_rules = rules_lines(game)
    if game.status == Game.Status.ABORTED:
        page.stopped_reason = table_events.stop_reason(game)
    return page


@dataclass(frozen=True)
class _Table:
    """The running game as the viewer's seat sees it: the engine's state and view, and the seats
    by engine name (their names and labels)."""

    state: engine.State
    view: dict
    me: str | None
    names: dict[str, str]
    labels: dict[str, str]
    live: dict[str, Seat]

    @classmethod
    def of(cls, game: Game, seats: list[Seat], me_seat: Seat | None) -> _Table:
        live = {s.engine_name: s for s in seats if s.state != Seat.State.REPLACED}
        state = game.engine_state()
        me = me_seat.engine_name if me_seat else None
        return cls(
            state=state,
            view=engine.view_for(state, me),
            me=me,
            names={name: display_name(seat) for name, seat in live.items()},
            labels={name: seat_label(seat) for name, seat in live.items()},
            live=live,
        )


def _decision(table: _Table, deciding: bool, selected: str | None, turned: bool):
    """(legal moves, playable cards, selected card, turned) for the viewer: only what the page
    shows, the cards that can be played, the selected card's moves, passes and clears, or the
    gold pick / steal choices; nothing when it is not the viewer's decision."""
    state, me = table.state, table.me
    if me is None or not deciding:
        return [], set(), selected, turned
    playable = engine.playable_cards(state, me)
    if selected not in playable:
        selected = None
    if state.decision != engine.TURN:
        return engine.legal_moves(state, me), playable, selected, turned
    legal: list[engine.Move] = list(engine.discard_moves(state, me))
    if selected:
        mine = engine.legal_moves(state, me, card=selected)
        places = {m["turned"] for m in mine if m["move"] == "place"}
        if places and turned not in places:
            turned = not turned  # the card fits only the other way round: turn it
        legal += mine
    return legal, playable, selected, turned


def _results(page: GamePage, view: dict, moves, me_seat: Seat | None, round_names, names) -> None:
    """The rounds' recaps, the game's end and standings, the round being settled or the last
    round's result for a player who has not decided since."""
    page.rounds = _rounds(view, round_names, names)
    page.end = history.game_end(view, names)
    if view["finished"] and view["rounds_done"]:
        # The game is over: the last round's maze with every goal turned face up.
        final = {(x, y): (c, t) for x, y, c, t in view["rounds_done"][-1]["board"]}
        # Plain MazeCells (as the recap's): what follows only marks "last" on them.
        page.rows = history.maze_rows(final) or page.rows  # type: ignore[assignment]
    elif view.get("round_ending"):
        # The round is over and its gold is being shared: everyone sees how it ended first.
        number, done = view["round"], view["round_ending"]
        page.round_end = history.round_recap(
            done, number, _named(round_names, number, names), ruleset=view["ruleset"]
        )
        board = {(x, y): (c, t) for x, y, c, t in done["board"]}
        page.rows = history.maze_rows(board) or page.rows  # type: ignore[assignment]
    elif view["rounds_done"] and me_seat is not None and not _moved_since_round_end(moves, me_seat):
        number = len(view["rounds_done"])
        page.round_result = history.round_recap(
            view["rounds_done"][-1],
            number,
            _named(round_names, number, names),
            ruleset=view["ruleset"],
        )
    if view["finished"]:
        page.standings = _standings(page.players)


def _moved_since_round_end(moves, seat) -> bool:
    """Whether ``seat`` made a decision (a move of its own, not one the site made for it) after
    the move that ended the last round (a gold pick counts)."""
    ended = max(
        (seq for seq, events, *_rest in moves if any(e["kind"] == "round-ended" for e in events)),
        default=None,
    )
    return ended is None or any(
        seq > ended and position == seat.position and not automatic
        for seq, _events, automatic, position in moves
    )


def _standings(players: list[dict]) -> list[dict]:
    """The final standings, most gold first; players with the same gold share a rank."""
    rows = [{"name": p["name"], "gold": p["gold"]} for p in players]
    rows.sort(key=lambda row: -row["gold"])
    for row in rows:
        row["rank"] = 1 + sum(1 for other in rows if other["gold"] > row["gold"])
    return rows


def _decision_title(page: GamePage) -> str:
    """The viewer's decision in words, for the turn line ("Pick a gold card")."""
    if not page.my_turn:
        return ""
    if page.gold_choices:
        return _("Pick a gold card.")
    if page.steal_choices:
        return _("Choose whom to steal from.")
    if not page.selected:
        if page.discard_options:
            return _("Choose a card to play, or pass.")
        return _("Choose a card to play.")
    card = {"card": page.selected_name}
    if page.confirm:
        return _("Confirm your move, or choose again.")
    if page.place_kind == "place":
        if page.chosen_at:
            return _("Confirm %(card)s on the chosen spot, or choose another.") % card
        return _("Choose a highlighted spot for %(card)s.") % card
    if page.place_kind == "rockfall":
        if page.chosen_at:
            return _("Confirm the rockfall, or choose another card.")
        return _("Choose a path card to remove.")
    if any("goal" in choice.fields for choice in page.choices):
        return _("Choose a goal to look at.")
    return _("Choose whom to play %(card)s on.") % card


def _log(game: Game, moves, names: dict[str, str], me: str | None, renames) -> list[Entry]:
    """The newest ``LOG_LENGTH`` lines for the viewer, newest first.

    Kept per process under everything they are made of: the game's revision (its moves and
    table events), the viewer's seat, the language and the players' names. A player choosing
    a move asks for the page several times at one revision (a card, its side, a position).
    """
    zone = timezone.get_current_timezone_name()  # a vacation's dates are said in it
    key = f"log:{game.pk}:{game.revision}:{me}:{get_language()}:{zone}:{sorted(names.items())}"
    key = f"log:{hashlib.sha256(key.encode()).hexdigest()}"

    def build():
        log = entries_for(moves, names, me, renames) + table_events.table_entries(game)
        log.sort(key=lambda entry: entry.sequence)  # stable: a table event follows its move
        return log[-LOG_LENGTH:][::-1]

    return get_or_build(caches["local"], key, build, history.MOVE_LOG_SECONDS)


def _since(page: GamePage, view: dict, moves, me_seat: Seat | None, names, round_names) -> None:
    """Mark what changed since the viewer's previous visit or move; group the log by round."""
    page.replay_step = view["version"]
    page.log_rounds = history.log_by_round(page.log, moves, view["round"], names, page.me)
    if me_seat is None:
        _log_lines(page, since=None)
        return
    page.since = history.since_version(me_seat, moves)
    _log_lines(page, since=page.since)
    since = history.changes_since(moves, page.since, names, me_seat.engine_name, lines=False)
    for row in page.rows:
        for cell in row:
            cell.new = (cell.x, cell.y) in since.placed
            cell.removed = (cell.x, cell.y) in since.removed
    page.new_recaps = [
        history.round_recap(
            view["rounds_done"][n - 1],
            n,
            _named(round_names, n, names),
            ruleset=view["ruleset"],
            maze=True,
        )
        for n in since.rounds_ended
        if n <= len(view["rounds_done"])
    ]


def _log_lines(page: GamePage, since: int | None) -> None:
    """The log's lines as the page shows them: private ones set apart, the ones the viewer has
    not seen marked (decided here, once per line, rather than in the template's loop). Each line
    has an id that stays with it (its move's sequence, then its rank among that move's lines): an
    open page is sent only the lines it has not got (games/web/parts.py)."""
    ids: dict[int, str] = {}
    count: Counter[int] = Counter()
    for entry in reversed(page.log):  # in the order of play
        ids[id(entry)] = f"l{entry.sequence}-{count[entry.sequence]}"
        count[entry.sequence] += 1
    for group in page.log_rounds:
        lines = []
        for entry in group["entries"]:
            new = since is not None and entry.sequence > since
            classes = []
            if entry.private:
                classes.append("log__private")
            if new:
                classes.append("log__new")
            line = {"id": ids[id(entry)], "text": entry.text, "new": new, "css": " ".join(classes)}
            lines.append(line)
        group["lines"] = lines


def _briefing(page: GamePage, me_seat: Seat, seats: list[Seat]) -> dict | None:
    """What a newcomer to a taken-over seat needs at once: whose seat, its role, hand and what
    it has seen (the seat's own knowledge, from the page built from ``view_for``)."""
    before = [s for s in seats if s.position == me_seat.position and s.state == Seat.State.REPLACED]
    if not before:
        return None
    return {
        "old": display_name(max(before, key=lambda s: s.joined_at)),
        "role": page.role,
        "hand": [card["name"] for card in page.hand],
        "knowledge": list(page.knowledge),
    }


def _gold_pick(view: dict, names: dict, me: str | None, moves: list) -> dict | None:
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
    after = [names.get(pickers[k % len(pickers)], "?") for k in range(1, left)] if pickers else []
    return {
        "picker": names.get(pickers[0], "?") if pickers else "",
        "mine": bool(pickers) and pickers[0] == me,
        "left": left,
        "total": left + taken,
        "after": after,
        "rest": left - 1,
    }


def _chat(game: Game, me_seat: Seat | None) -> list[dict]:
    if me_seat is None:
        return []

    def load():
        # Only the columns: the authors are the game's seats, already loaded with their players.
        return list(
            ChatMessage.objects.filter(game=game)
            .order_by("-created_at", "-pk")
            .values_list("seat_id", "text", "created_at")[:CHAT_LENGTH]
        )

    # Kept per process under the game's revision: a line posted or deleted (by a player leaving
    # a lobby, an account deleted, a moderator) bumps it in the same transaction.
    key = f"chat:{game.pk}:{game.revision}"
    messages = get_or_build(caches["local"], key, load, CHAT_SECONDS)
    seats = {seat.pk: seat for seat in game.seats.all()}
    since = me_seat.since_at
    return [
        {
            "author": display_name(seats[seat_id]),
            "text": text,
            "at": at,
            # Unread: written by someone else after the viewer's previous visit.
            "unread": seat_id != me_seat.pk and (since is None or at > since),
        }
        for seat_id, text, at in reversed(messages)
    ]


def _players(
    view: dict, names: dict[str, str], labels: dict[str, str], me, live: dict[str, Seat]
) -> list[dict]:
    """The players around the table, in turn order: ``label`` (with "played by a bot for") for
    the table, ``name`` for what the page says about them (choices, standings); the cards in
    front of them as icons; whether a bot plays the seat, for an absent player or on its own."""
    rows = []
    deleted = _("deleted player")  # translated once, not three times a player
    for player in view["players"]:
        seat = player["seat"]
        holder = live.get(seat)
        rows.append(
            {
                "seat": seat,
                "number": int(seat) + 1,  # "seat 1 of 4", as the emails and the admin say
                "seat_label": seat_number(int(seat), len(view["players"])),
                "name": names.get(seat, deleted),
                "label": labels.get(seat, deleted),
                # A bot's seat is named short, its badge says "bot".
                "short": _("Bot %(number)d") % {"number": holder.bot}
                if holder is not None and holder.bot is not None
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
                "bot": holder is not None and holder.bot is not None,
                "stand_in": holder is not None and holder.stand_in and holder.bot is None,
                "absent": holder is not None and holder.state == Seat.State.ABSENT,
            }
        )
    return rows


def _mine(
    page: GamePage,
    view: dict,
    legal: Sequence[Mapping[str, Any]],
    playable,
    selected,
    turned,
    names,
) -> None:
    """The viewer's own part: role, what they know, hand, and the choices of their decision."""
    mine = view["me"]
    if mine is None:
        return
    page.role = role_name(mine["role"])
    page.knowledge = _knowledge(mine, names)
    if selected not in playable:
        selected = None
    page.selected, page.turned = selected, turned and selected is not None
    if selected:
        page.selected_name = card_name(selected)
    page.hand = _hand(mine["hand"], playable, selected)
    if selected and CATALOGUE[selected].kind == PATH:
        page.place_kind = "place"
    elif selected:
        page.place_kind = "rockfall" if CATALOGUE[selected].effect == "rockfall" else None
        page.choices = [
            Choice(_choice_label(m, page), _fields(m))
            for m in legal
            if m.get("card") == selected and m["move"] == "action" and "at" not in m
        ]
    _passes_and_picks(page, legal)


def _knowledge(mine: dict, names: dict[str, str]) -> list[str]:
    """What the viewer knows that others may not: greed, goals seen, roles inspected."""
    lines = [_("You are the greedy dwarf this round.")] if mine["greedy"] else []
    for goal, card in sorted(mine["peeks"].items()):
        lines.append(
            _("You saw: the %(goal)s goal is %(card)s.")
            % {"goal": goal_label(goal), "card": card_name(card)}
        )
    for target, role in sorted(mine["inspections"].items()):
        lines.append(
            _("You saw: %(target)s is %(role)s.")
            % {"target": names.get(target, "?"), "role": role_name(role)}
        )
    return lines


def _hand(hand: list[str], playable, selected: str | None) -> list[dict]:
    ordered = hand_order(hand)
    # Of two alike cards, the first is the one chosen: one card lights up, not both.
    chosen = ordered.index(selected) if selected in ordered else None
    return [
        {
            "id": card,
            "name": card_name(card),
            "svg": card_picture(card),
            "playable": card in playable,
            "selected": index == chosen,
        }
        for index, card in enumerate(ordered)
    ]


def _passes_and_picks(page: GamePage, legal: Sequence[Mapping[str, Any]]) -> None:
    """The decisions besides playing a card: pass, clear, pick gold, steal."""
    passes = [m for m in legal if m["move"] == "pass"]
    if passes:
        page.discard_options = [
            {"id": c["id"], "name": c["name"], "index": i} for i, c in enumerate(page.hand)
        ]
        counts = [len(m["discard"]) for m in passes]
        page.pass_range = (min(counts), max(counts))
    page.clear_removable = [
        {"id": card, "name": card_name(card)}
        for card in sorted({m["remove"] for m in legal if m["move"] == "clear"})
    ]
    page.gold_choices = [
        Choice(_("Keep %(value)d gold") % {"value": m["value"]}, _fields(m))
        for m in legal
        if m["move"] == "pick-gold"
    ]
    page.steal_choices = [
        Choice(
            _("Steal from %(name)s") % {"name": _player_name(page, m["victim"])}
            if m["victim"]
            else _("Steal nothing"),
            _fields(m),
        )
        for m in legal
        if m["move"] == "steal"
    ]


def _player_name(page: GamePage, seat: str) -> str:
    return next((p["name"] for p in page.players if p["seat"] == seat), "?")


def _choice_label(move: Mapping[str, Any], page: GamePage) -> str:
    if "goal" in move:
        return _("Look at the %(goal)s goal") % {"goal": goal_label(move["goal"])}
    if move["target"] == page.me:
        if "tool" in move:
            return _("Repair your %(tool)s") % {"tool": tool_label(move["tool"])}
        return _("Play on yourself")
    target = _player_name(page, move["target"])
    if "tool" in move:
        return _("Repair %(name)s's %(tool)s") % {"name": target, "tool": tool_label(move["tool"])}
    return _("Play on %(name)s") % {"name": target}


def _fields(move: Mapping[str, Any]) -> dict:
    """A move as the flat form fields the move view reads."""
    fields = {"kind": move["move"]}
    for key in ("card", "target", "tool", "goal", "value", "victim"):
        if key in move and move[key] is not None:
            fields[key] = move[key]
    return fields


@dataclass(frozen=True)
class LastAct:
    """The latest move of this round that everyone saw, whatever its kind: the page outlines its
    target and js/game.js sends a card from the mover's seat to it."""

    sequence: int
    mover: str  # the engine seat that moved
    card: str = ""  # the card played, when everyone sees it (not a pass's discards)
    seat: str = ""  # the player it was played on: a tool, a theft, a cleared card (their own)
    at: tuple[int, int] | None = None  # the maze's cell: a path, a rockfall, a map's goal


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
                at=tuple(at) if at else None,
            )
    return None


def _mark_last_change(rows: list[list[Cell]], moves) -> int:
    """Outline the maze's cell the latest act of this round was on (none when it was on a
    player, whose seat is outlined instead); that act's sequence (0 before the round's first)."""
    act = last_act(moves)
    for row in rows:
        for cell in row:
            cell.last = act is not None and (cell.x, cell.y) == act.at
    return act.sequence if act else 0


def _position(text: str | None) -> tuple[int, int] | None:
    x_text, _comma, y_text = (text or "").partition(",")
    x, y = ascii_int(x_text), ascii_int(y_text)
    return None if x is None or y is None else (x, y)


def _board(
    view: dict, legal: Sequence[Mapping[str, Any]], page: GamePage, at: str | None
) -> list[list[Cell]]:
    """The maze's rows of cells: the cards, the goals (face down, or seen by the viewer), the
    selected card's legal spots with a preview of it there, one ring of empty cells around."""
    cards = {(c["x"], c["y"]): c for c in view["board"]}
    backs = {(g["x"], g["y"]) for g in view["goals"] if g["face_down"]}
    mine = view["me"]["peeks"] if view["me"] else {}
    # A face-down goal I looked at with a map shows its face, marked as seen, to me alone.
    peeked = {(g["x"], g["y"]): mine[g["name"]] for g in view["goals"] if g["name"] in mine}
    spots = _spots(page, legal)
    if _position(at) in spots:
        page.chosen_at = _position(at)
    # A map looks at a goal chosen on the maze too (or by the buttons), then confirmed.
    looks = {m["goal"] for m in legal if m.get("card") == page.selected and "goal" in m}
    goals = {(g["x"], g["y"]): g["name"] for g in view["goals"] if g["name"] in looks}
    taken = set(cards) | backs
    xs = [x for x, _ in taken | spots]
    ys = [y for _, y in taken | spots]
    rows = []
    for y in range(min(ys) - 1, max(ys) + 2):
        row = []
        for x in range(min(xs) - 1, max(xs) + 2):
            cell = Cell(x, y, legal=(x, y) in spots, chosen=(x, y) == page.chosen_at)
            cell.look = goals.get((x, y), "")
            _draw(cell, page, cards.get((x, y)), peeked.get((x, y)), (x, y) in backs)
            row.append(cell)
        rows.append(row)
    return rows


def _spots(page: GamePage, legal: Sequence[Mapping[str, Any]]) -> set[tuple[int, int]]:
    """Where the selected card can go (a path card the way round it is shown, a rockfall)."""
    if page.place_kind == "place":
        return {
            tuple(m["at"])
            for m in legal
            if m["move"] == "place" and m["card"] == page.selected and m["turned"] == page.turned
        }
    if page.place_kind == "rockfall":
        return {tuple(m["at"]) for m in legal if m.get("card") == page.selected and "at" in m}
    return set()


def _draw(cell: Cell, page: GamePage, card: dict | None, seen: str | None, back: bool) -> None:
    """What a cell shows: its card, a goal the viewer saw, a goal's back, or the preview of the
    selected card on a legal spot."""
    if card is not None:
        cell.svg = card_use(card["card"], card["turned"])
        cell.label = card_name(card["card"])
        cell.card = card["card"]
    elif seen is not None:
        cell.peeked = card_name(seen)
        cell.svg = card_use(seen)
        cell.face_down = True
        cell.label = _("Face-down goal you saw: %(card)s") % {"card": cell.peeked}
    elif back:
        cell.svg = goal_back_use()
        cell.face_down = True
        cell.label = _("Face-down goal")
    elif cell.legal and page.selected:  # legal spots are the selected card's
        cell.svg = card_use(page.selected, page.turned)  # a preview of the card there


def _rounds(view: dict, round_names: list[dict[str, str]], names: dict[str, str]) -> list[dict]:
    """The finished rounds' recaps, each naming the players who played that round."""
    return [
        history.round_recap(
            done, number, _named(round_names, number, names), ruleset=view["ruleset"]
        )
        for number, done in enumerate(view["rounds_done"], start=1)
    ]


def _named(round_names: list[dict[str, str]], number: int, names: dict[str, str]):
    """The seat names as they were at the end of round ``number`` (``names``: as they are now)."""
    return round_names[number - 1] if number <= len(round_names) else names


def round_recap_page(game: Game, user, number: int) -> dict | None:
    """The recap of finished round ``number`` as ``user`` may see it, or None."""
    if game.snapshot is None:
        return None
    me_seat = live_seat(game, user)
    me = me_seat.engine_name if me_seat else None
    # The revision, not the version: a seat taken over changes the names, not the version.
    key = f"recap:{game.pk}:{game.revision}:{me}:{number}:{get_language()}"
    recap = cache.get(key)
    if recap is None:
        view = engine.view_for(game.engine_state(), me)
        if not 1 <= number <= len(view["rounds_done"]):
            return None
        names = seat_names(game)
        round_names = history.round_names(history.move_log(game), names, table_events.renames(game))
        recap = history.round_recap(
            view["rounds_done"][number - 1],
            number,
            _named(round_names, number, names),
            ruleset=view["ruleset"],
            maze=True,
        )
        recap["rounds"] = len(view["rounds_done"])
        recap["maze"] = history.maze_html(recap.pop("rows"), "recap-maze")  # drawn once, cached
        recap["rows"] = []
        cache.set(key, recap, history.CACHE_SECONDS)
    return {**recap, "id": game.pk, "name": game.name}


def replay_page(game: Game, user, step: int | None) -> history.ReplayPage | None:
    if game.snapshot is None:
        return None
    me_seat = live_seat(game, user)
    me = me_seat.engine_name if me_seat else None
    return history.replay_page(game, user, step, seat_names(game), me, table_events.renames(game))


def my_hand(game: Game, user) -> list[str]:
    """The viewer's own hand (for reading posted discards), or nothing."""
    seat = live_seat(game, user)
    if seat is None or game.snapshot is None:
        return []
    state = game.engine_state()
    return engine.view_for(state, seat.engine_name)["me"]["hand"]


@dataclass
class InvitePage:
    token: str
    name: str
    ruleset_label: str
    status: str
    players: list[str]
    max_seats: int


def invite_page(game: Game) -> InvitePage:
    """What an invite link shows someone not seated: once the game has started, only that it
    has (its table is no business of an old link's holder)."""
    in_lobby = game.status == Game.Status.LOBBY
    return InvitePage(
        token=game.invite_token,
        name=game.name,
        ruleset_label=game.get_ruleset_display(),
        status=game.status,
        players=[display_name(s) for s in game.seats.all()] if in_lobby else [],
        max_seats=game.max_seats,
    )
