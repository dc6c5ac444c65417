"""The pages of one game as one viewer may see them: the game page, a round's recap, a replay
step, the viewer's hand and an invitation.

Templates get a ``GamePage`` built from the engine's ``view_for`` for the viewer's own seat; they
never see a ``Game`` row, its snapshot or the engine state.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language

from accounts.models import Block
from games import engine
from games.engine.cards import PLAYERS
from games.models import ChatMessage, FormingTable, Game, Seat
from saboteur_site.cache import get_or_build

from . import (
    bar_part,
    deals,
    found,
    game_parts,
    history,
    kept,
    ledger_words,
    maze_part,
    suspicions,
    table_events,
)
from .clock import Clock, clock_of, rules_lines
from .log import Entry, LoggedMove, Renames, entries_for
from .seats import display_name, live_seat, seat_label, seat_names

LOG_LENGTH = 80

CHAT_LENGTH = 50
CHAT_SECONDS = 600


@dataclass(frozen=True)
class GamePage:
    """The game page as one viewer may see it: what every page of the game shows from the lobby
    on (its name, rules, status, seats, chat), then, once it runs, its parts
    (``games.read.game_parts``, ``bar_part``, ``maze_part``), each built on its own."""

    id: int
    name: str
    ruleset: str
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
    lobby_names: tuple[str, ...]
    max_seats: int
    min_seats: int = 2
    min_reliability: int | None = None  # the creator's minimum to join, in percent
    # Why the moderators stopped the game, once aborted ("" when they gave no reason).
    stopped_reason: str | None = None
    clock_rules: tuple[str, ...] = ()  # the game's clock in words
    chat: tuple[dict, ...] = ()
    forming: dict | None = None  # play now's forming table: its pk, start time, fewest players
    # Once the game runs: the engine's view for the viewer's seat, and the parts.
    view: engine.View | None = None
    me: str | None = None
    my_turn: bool = False
    # The running decision's clock (games.read.clock): "time left" as every view says it.
    clock: Clock | None = None
    players: game_parts.Players = game_parts.Players()
    hand: game_parts.Hand = game_parts.Hand()
    bar: bar_part.Bar = bar_part.Bar()
    board: maze_part.Board = maze_part.Board()
    log: game_parts.Log = game_parts.Log()
    recap: game_parts.Recap = game_parts.Recap()
    ledger: game_parts.Ledger = game_parts.Ledger()
    note: str = ""  # the viewer's private note (theirs alone, for ever)
    # For a player who took over a seat, on their first visit: whose seat and what it held.
    briefing: dict | None = None
    # Deals anyone can check: the commitments, the players' seeds, the viewer's own.
    fairness: deals.Panel | None = None
    # The digest of everything the page was made from (``made_of``, ``games.read.kept``): the
    # same for two pages only when they are the same page. Set by ``game_page`` (and
    # ``without_blocked``, for the same page with lines left out) alone: a copy
    # made with ``dataclasses.replace`` (other data) has none, and its markup is never kept.
    digest: str = field(default="", init=False, compare=False)

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
        finished = self.view.get("finished") if self.view else None
        return bool(self.clock) and not finished and self.stopped_reason is None

    @property
    def clock_line(self) -> str | None:
        """The clock in words as of now ("Time left: ..."), when it is shown (beside whoever
        decides): part of the data of the parts that show it, so they are kept per minute said.
        Said anew at every ask: a page is kept across requests (``game_page``)."""
        return self.clock.text() if self.clock and self.clock_shown else None


# Pages kept per process, by the digest of what they are made of (``made_of``): a viewer who asks
# again for a page of which nothing changed (a reload, another tab) gets it without its being
# built again. Kept as they are (frozen, read only), not pickled: a page is a few hundred objects.
_PAGES: OrderedDict[str, GamePage] = OrderedDict()
_PAGES_LOCK = threading.Lock()
KEPT_PAGES = 64

GAME_FIELDS = tuple(f.attname for f in Game._meta.concrete_fields)
SEAT_FIELDS = tuple(f.attname for f in Seat._meta.concrete_fields)
# What a seat's player shows of themselves (their name, their settings the page reads), never
# their password's hash.
USER_FIELDS = tuple(
    f.attname
    for f in Seat._meta.get_field("user").related_model._meta.concrete_fields
    if f.name != "password"
)


def made_of(game: Game, user) -> tuple:
    """Everything a game page is made of besides the viewer's choice of move: the game's row
    (its state among it), its seats' rows and their players', and who looks. What a page also
    reads from elsewhere (the chat, the table events, the move log, the vacations behind the
    clock) changes the game's revision or version when it changes, and both are in the row."""
    seats = tuple(
        (
            tuple(getattr(seat, name) for name in SEAT_FIELDS),
            tuple(getattr(seat.user, name) for name in USER_FIELDS) if seat.user_id else None,
        )
        for seat in game.seats.all()
    )
    viewer = user.pk if user.is_authenticated else None
    return tuple(getattr(game, name) for name in GAME_FIELDS), seats, viewer


def game_page(game: Game, user, **selection: Any) -> GamePage:
    """The game as ``user`` may see it (``built_page``), kept per process under the digest of
    what it is made of (``made_of``) and the move being chosen (``selection``)."""
    key = kept.digest(made_of(game, user), sorted(selection.items()))
    with _PAGES_LOCK:
        page = _PAGES.get(key)
        if page is not None:
            _PAGES.move_to_end(key)
            return page
    page = built_page(game, user, **selection)
    object.__setattr__(page, "digest", key)  # frozen: set once, before anyone else sees it
    with _PAGES_LOCK:
        _PAGES[key] = page
        while len(_PAGES) > KEPT_PAGES:
            _PAGES.popitem(last=False)
    return page


def built_page(
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
    ``at`` ("x,y") or a player or goal (``target``, ``tool``) picked for it when the player is
    choosing a move.

    Its parts are built one by one, each from the viewer's view and the parts before it: the
    players, the hand, the bar (the decision), the maze, the recaps, the log."""
    seats = list(game.seats.all())
    me_seat = live_seat(game, user)
    header = _header(game, user, seats, me_seat)
    if game.snapshot is None:
        return GamePage(**header, fairness=deals.panel(game, seats, me_seat, None))
    table = _Table.of(game, seats, me_seat)
    view, me, names = table.view, table.me, table.names
    my_turn = me is not None and view["to_move"] == me
    playing = game.status == Game.Status.RUNNING  # no move buttons while paused or aborted
    deciding = _decision(table, my_turn and playing, selected, turned, at, target, tool)
    moves = history.move_log(game)
    renames = table_events.renames(game)
    round_names = history.round_names(moves, names, renames)
    since = history.since_version(me_seat, moves) if me_seat is not None else None
    changed = (
        history.changes_since(moves, since, names, me, lines=False)
        if me_seat is not None and since is not None
        else None
    )
    players = _players(game, table, me_seat)
    cards_turn = playing and view["decision"] == engine.TURN
    hand = game_parts.hand(
        view,
        playable=deciding.playable if my_turn else _waiting(table, cards_turn),
        selected=deciding.selected,
        cards_turn=cards_turn,
        moves=moves,
        names=names,
    )
    bar = bar_part.bar(view, deciding, hand, players, moves, me=me, title=my_turn and playing)
    seen = ledger_words.public(game.pk, moves, [p["seat"] for p in view["players"]])
    result_shown = me_seat is not None and not _moved_since_round_end(moves, me_seat)
    return GamePage(
        **header,
        view=view,
        me=me,
        my_turn=my_turn,
        clock=clock_of(game, seat=table.live.get(view["to_move"]) if view["to_move"] else None),
        players=players,
        hand=hand,
        bar=bar,
        board=maze_part.board(view, bar, moves, changed),
        log=game_parts.log(_log(game, moves, names, me, renames), view, moves, names, me, since),
        recap=game_parts.recap(
            view,
            players,
            round_names,
            names,
            result_shown=result_shown,
            ended_since=changed.rounds_ended if changed is not None else (),
            seen=seen,
            guessed=suspicions.revealed(seats, view),
        ),
        ledger=game_parts.ledger_part(seen, view, players),
        note=suspicions.my_note(me_seat),
        fairness=deals.panel(game, seats, me_seat, view),
        briefing=_briefing(hand, me_seat, seats)
        if me_seat is not None and me_seat.last_seen_at is None
        else None,
    )


def _header(game: Game, user, seats: list[Seat], me_seat: Seat | None) -> dict[str, Any]:
    """What every page of the game shows, from the lobby on: its name, rules, status, players
    and chat."""
    return {
        "id": game.pk,
        "name": game.name,
        "ruleset": game.ruleset,
        "ruleset_label": game.get_ruleset_display(),
        "status": game.status,
        "status_label": game.get_status_display(),
        "revision": game.revision,
        "version": game.version,
        "deadline": game.deadline,
        "turn_limit": game.turn_limit,
        "invite_path": game.invite_token if me_seat is not None else None,
        "seated": me_seat is not None,
        "is_creator": user.is_authenticated and game.creator_id == user.pk,
        "lobby_names": tuple(display_name(s) for s in seats),
        "max_seats": game.max_seats,
        "min_seats": PLAYERS[game.ruleset][0],
        "min_reliability": game.min_reliability,
        "stopped_reason": table_events.stop_reason(game)
        if game.status == Game.Status.ABORTED
        else None,
        "clock_rules": tuple(rules_lines(game)),
        "chat": tuple(_chat(game, me_seat)),
        # Play now's forming table (issue 52): seated and left by the site, with its start time.
        "forming": FormingTable.objects.filter(game=game, state=FormingTable.State.FORMING)
        .values("pk", "start_at", "min_players")
        .first()
        if game.status == Game.Status.LOBBY
        else None,
    }


@dataclass(frozen=True)
class _Table:
    """The running game as the viewer's seat sees it: the engine's state and view, and the seats
    by engine name (their names and labels)."""

    state: engine.State
    view: engine.View
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


def _decision(
    table: _Table,
    deciding: bool,
    selected: str | None,
    turned: bool,
    at: str | None,
    target: str | None,
    tool: str | None,
) -> bar_part.Deciding:
    """The viewer's legal moves (only what the page shows: the cards that can be played, the
    selected card's moves, passes and clears, or the gold pick / steal choices), playable cards
    and selected card; nothing when it is not the viewer's decision."""
    state, me = table.state, table.me
    if me is None or not deciding:
        return bar_part.Deciding()
    playable = frozenset(engine.playable_cards(state, me))
    if selected not in playable:
        selected = None
    legal: list[engine.Move]
    if state.decision != engine.TURN:
        legal = engine.legal_moves(state, me)
    else:
        legal = list(engine.discard_moves(state, me))
        if selected:
            mine = engine.legal_moves(state, me, card=selected)
            places = {m["turned"] for m in mine if m["move"] == "place"}
            if places and turned not in places:
                turned = not turned  # the card fits only the other way round: turn it
            legal += mine
    return bar_part.Deciding(
        legal=legal,
        selected=selected,
        turned=turned,
        at=at,
        target=target,
        tool=tool,
        playable=playable,
    )


def _players(game: Game, table: _Table, me_seat: Seat | None) -> game_parts.Players:
    """The players strip, with the viewer's own marks of the round under way."""
    view = table.view
    marking = me_seat is not None and view["decision"] == engine.TURN and not view["finished"]
    return game_parts.players(
        view,
        table.names,
        table.labels,
        table.me,
        table.live,
        marks=suspicions.my_marks(me_seat, view["round"]) if marking else None,
        mark_choices=suspicions.mark_choices(game.ruleset) if marking else (),
    )


def _waiting(table: _Table, cards_turn: bool) -> frozenset[str]:
    """While another player decides, what the viewer could play on the maze as it is: their hand
    looks the same as on their turn (inert until then: js/learn.js)."""
    if table.me is None or not cards_turn:
        return frozenset()
    return frozenset(engine.playable_on_turn(table.state, table.me))


def _moved_since_round_end(moves: Sequence[LoggedMove], seat: Seat) -> bool:
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


def _log(
    game: Game,
    moves: Sequence[LoggedMove],
    names: dict[str, str],
    me: str | None,
    renames: Renames,
) -> list[Entry]:
    """The newest ``LOG_LENGTH`` lines for the viewer, newest first.

    Kept per process under everything they are made of: the game's revision (its moves and
    table events), the viewer's seat, the language and the players' names. A player choosing
    a move asks for the page several times at one revision (a card, its side, a position).
    """
    zone = timezone.get_current_timezone_name()  # a vacation's dates are said in it
    key = f"log:{game.pk}:{game.revision}:{me}:{get_language()}:{zone}:{sorted(names.items())}"
    key = f"log:{hashlib.sha256(key.encode()).hexdigest()}"

    def build() -> list[Entry]:
        log = entries_for(moves, names, me, renames) + table_events.table_entries(game)
        log.sort(key=lambda entry: entry.sequence)  # stable: a table event follows its move
        return log[-LOG_LENGTH:][::-1]

    return get_or_build(caches["local"], key, build, history.MOVE_LOG_SECONDS)


def _briefing(hand: game_parts.Hand, me_seat: Seat, seats: list[Seat]) -> dict | None:
    """What a newcomer to a taken-over seat needs at once: whose seat, its role, hand and what
    it has seen (the seat's own knowledge, from its hand part)."""
    before = [s for s in seats if s.position == me_seat.position and s.state == Seat.State.REPLACED]
    if not before:
        return None
    return {
        "old": display_name(max(before, key=lambda s: s.joined_at)),
        "role": hand.role,
        "hand": [card.name for card in hand.cards],
        "knowledge": list(hand.knowledge),
    }


def _chat(game: Game, me_seat: Seat | None) -> list[dict]:
    if me_seat is None:
        return []

    def load():
        # Only the columns: the authors are the game's seats, already loaded with their players.
        return list(
            ChatMessage.objects.filter(game=game)
            .order_by("-created_at", "-pk")
            .values_list("pk", "seat_id", "text", "created_at")[:CHAT_LENGTH]
        )

    # Kept per process under the game's revision: a line posted or deleted (by a player leaving
    # a lobby, an account deleted, a moderator) bumps it in the same transaction.
    key = f"chat:{game.pk}:{game.revision}"
    messages = get_or_build(caches["local"], key, load, CHAT_SECONDS)
    seats = {seat.pk: seat for seat in game.seats.all()}
    since = me_seat.since_at
    return [
        {
            "id": pk,
            "author": display_name(seats[seat_id]),
            # The author's account: a person's line may be reported, and hidden by a block.
            "author_id": seats[seat_id].user_id if seats[seat_id].bot is None else None,
            "mine": seats[seat_id].user_id == me_seat.user_id,
            "text": text,
            "at": at,
            # Unread: written by someone else after the viewer's previous visit.
            "unread": seat_id != me_seat.pk and (since is None or at > since),
        }
        for pk, seat_id, text, at in reversed(messages)
    ]


def without_blocked(page: GamePage, user) -> GamePage:
    """The page without the chat lines of the players ``user`` has blocked: the page itself is
    shared by every request made of the same rows, and a block is the viewer's own (a query
    only when someone else wrote in the chat). A page with lines left out gets a digest of its
    own, so that what is kept of it (``{% kept %}``) is never another's."""
    others = {m["author_id"] for m in page.chat if m["author_id"] and not m["mine"]}
    if not others:
        return page
    hidden = set(
        Block.objects.filter(blocker_id=user.pk, blocked_id__in=others).values_list(
            "blocked_id", flat=True
        )
    )
    if not hidden:
        return page
    chat = tuple(m for m in page.chat if m["author_id"] not in hidden)
    shown = dataclasses.replace(page, chat=chat)
    object.__setattr__(shown, "digest", kept.digest(page.digest, sorted(hidden)))
    return shown


def _named(round_names: list[dict[str, str]], number: int, names: dict[str, str]):
    """The seat names as they were at the end of round ``number`` (``names``: as they are now)."""
    return round_names[number - 1] if number <= len(round_names) else names


def round_recap_page(game: Game, user, number: int) -> dict | None:
    """The recap of finished round ``number`` as ``user`` may see it, or None."""
    if game.snapshot is None:
        return None
    me_seat = live_seat(game, user)
    me = me_seat.engine_name if me_seat else None
    key = found.recap_key(game.pk, game.revision, me, number)
    recap = kept.recalled(key)
    if recap is None:
        view = engine.view_for(game.engine_state(), me)
        if not 1 <= number <= len(view["rounds_done"]):
            return None
        names = seat_names(game)
        moves = history.move_log(game)
        round_names = history.round_names(moves, names, table_events.renames(game))
        seen = ledger_words.public(game.pk, moves, [p["seat"] for p in view["players"]])
        named = _named(round_names, number, names)
        guessed = suspicions.revealed(game.seats.all(), view)
        recap = history.round_recap(
            view["rounds_done"][number - 1],
            number,
            named,
            ruleset=view["ruleset"],
            maze=True,
            did=seen.rounds.get(number),
            guesses=guessed.of_round(number, named),
            guessed=guessed.by_author(number, named),
        )
        recap["rounds"] = len(view["rounds_done"])
        recap["maze"] = history.maze_html(recap.pop("rows"), "recap-maze")  # drawn once, cached
        recap["rows"] = []
        kept.keep(key, recap, history.CACHE_SECONDS)
    return found.shown_recap(recap, game.pk, game.name, key)


def replay_page(game: Game, user, step: int | None) -> history.ReplayPage | None:
    if game.snapshot is None:
        return None
    me_seat = live_seat(game, user)
    me = me_seat.engine_name if me_seat else None
    names, renames = seat_names(game), table_events.renames(game)
    # Built once per process for every viewer in the same seat (``found.replay_made_of``).
    made_of = found.replay_made_of(game.pk, game.name, game.revision, step, me)
    page = kept.built(
        "replay-page", made_of, lambda: history.replay_page(game, step, names, me, renames)
    )
    return found.keyed_replay(page, made_of)


def my_hand(game: Game, user) -> list[str]:
    """The viewer's own hand (for reading posted discards), or nothing."""
    seat = live_seat(game, user)
    if seat is None or game.snapshot is None:
        return []
    state = game.engine_state()
    return engine.own_view(state, seat.engine_name)["hand"]


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
