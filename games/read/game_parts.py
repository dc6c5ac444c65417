"""The game page's parts, each built on its own and frozen once built: the players around the
table, the viewer's hand, the log, the recaps and the ledger; the bar (the viewer's decision) is
``bar_part`` and the maze ``maze_part``, in modules of their own.

``games.read.pages.game_page`` builds them in that order (each from the engine's view for the
viewer and the parts before it) and assembles the page from them; ``templates/games/game.html``
draws each between ``<!--p:...-->`` markers, and an open page is sent after a move only the parts
whose markup changed (``games/web/live_parts.py``). ``tests/web/test_game_parts.py`` tests each
part on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from django.utils.translation import gettext as _

from games import engine
from games.models import Seat

from . import history, kept, learn, ledger_words, suspicions
from .card_names import card_name, hand_order, role_name
from .drawing import card_picture, in_front_svg
from .log import Entry, LoggedMove, knowledge_lines
from .seats import seat_number

Move = engine.Move  # what the bar offers: one of the viewer's legal moves
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
    view: engine.View,
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
        # A bot account (the public API's) is a bot at the table too: its badge says so.
        bot_account = holder is not None and holder.user is not None and holder.user.is_bot
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
                "bot": bot or bot_account,
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
    view: engine.View,
    *,
    playable: Set[str],
    selected: str | None,
    cards_turn: bool,
    moves: Sequence[LoggedMove],
    names: dict[str, str],
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


def _newly_drawn(ordered: list[str], moves: Sequence[LoggedMove], me: str) -> set[int]:
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


# -- The log -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Log:
    """The newest lines of the log for the viewer, newest first, grouped by round (only the
    running one open); the lines the viewer has not seen marked."""

    entries: tuple[Entry, ...] = ()
    rounds: tuple[dict, ...] = ()


def log(
    entries: Sequence[Entry],
    view: engine.View,
    moves: Sequence[LoggedMove],
    names: dict[str, str],
    me: str | None,
    since: int | None,
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
    view: engine.View,
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
    ending = view["round_ending"]
    if ending and not view["finished"]:
        # The round is over and its gold is being shared: everyone sees how it ended first.
        number = view["round"]
        sentences, by_author = guesses(number)
        round_end = history.round_recap(
            ending,
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
    done: engine.ViewRound,
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


def ledger_part(seen: ledger_words.Ledger, view: engine.View, players: Players) -> Ledger:
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
