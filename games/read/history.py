"""Coming back after a day: round recaps, the end of the game, replays and "since you were here".

Everything here is built from the engine's ``view_for`` for one viewer (a replay step: the view at
that step, rebuilt from the stored moves with the engine), never from the raw state. Replay steps
are cached per game, version, viewer, language and step.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NotRequired, TypedDict

from django.core.cache import caches
from django.db.models import Case, CharField, Value, When
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import engine
from games.models import Game, Seat
from saboteur_site.cache import get_or_build

from . import kept, ledger_words
from .card_names import card_name, hand_order, role_name
from .drawing import card_use, goal_back_use
from .log import (
    Entry,
    LoggedMove,
    Renames,
    entries_for,
    goal_label,
    knowledge_lines,
    names_at,
    position_label,
)

CACHE_SECONDS = 6 * 3600


def team_label(team: str) -> str:
    return {"blue-digger": _("the blue team"), "green-digger": _("the green team")}.get(team, team)


# -- The maze of a recap or a replay step ----------------------------------------------------


@dataclass(frozen=True)
class MazeCell:
    x: int
    y: int
    svg: str = ""
    label: str = ""
    face_down: bool = False
    new: bool = False  # placed since the viewer's previous visit
    removed: bool = False  # a card was removed here since the viewer's previous visit

    # The marks that show as ``maze__cell--<mark>`` classes.
    MARKS: ClassVar[tuple[str, ...]] = ("new", "removed")

    @property
    def css(self) -> str:
        """The cell's classes (built here: the maze is the page's largest loop)."""
        return " ".join(
            ["maze__cell", *(f"maze__cell--{m}" for m in self.MARKS if getattr(self, m))]
        )

    @property
    def blank(self) -> bool:
        """Nothing to show: most of the grid, drawn by the templates' short path."""
        return not (self.svg or any(getattr(self, m) for m in self.MARKS))


def maze_html(rows: list[list[MazeCell]], testid: str = "maze") -> str:
    html = render_to_string("games/_maze.html", {"rows": rows, "testid": testid})
    return mark_safe(html)  # noqa: S308 - our own template's output, already escaped


def round_maze(done: engine.ViewRound) -> dict[tuple[int, int], tuple[str, bool]]:
    """A finished round's maze as ``maze_rows`` takes it, from its [x, y, card, turned] lists."""
    return {(int(x), int(y)): (str(card), bool(turned)) for x, y, card, turned in done["board"]}


def maze_rows(
    cards: Mapping[tuple[int, int], tuple[str, bool]], backs=(), *, new=(), removed=()
) -> list[list[MazeCell]]:
    """Rows of cells for ``cards`` ({(x, y): (card, turned)}) and face-down goals at ``backs``,
    with one empty ring around them."""
    taken = set(cards) | set(backs)
    if not taken:
        return []
    xs = [x for x, _y in taken]
    ys = [y for _x, y in taken]
    rows = []
    for y in range(min(ys) - 1, max(ys) + 2):
        row = []
        for x in range(min(xs) - 1, max(xs) + 2):
            drawn: dict = {}
            if (x, y) in cards:
                card, turned = cards[(x, y)]
                drawn = {"svg": card_use(card, turned), "label": card_name(card)}
            elif (x, y) in backs:
                drawn = {"svg": goal_back_use(), "label": _("Face-down goal"), "face_down": True}
            row.append(MazeCell(x, y, new=(x, y) in new, removed=(x, y) in removed, **drawn))
        rows.append(row)
    return rows


# -- Round recaps and the end of the game -----------------------------------------------------


def round_recap(
    done: engine.ViewRound,
    number: int,
    names: dict[str, str],
    *,
    ruleset: str,
    maze: bool = False,
    did: Mapping[str, ledger_words.SeatRecord] | None = None,
    guesses: list[str] | None = None,
    guessed: Mapping[str, str] | None = None,
) -> dict:
    """One finished round from the viewer's ``view["rounds_done"]`` entry: what the recap shows.
    Gold gained is only what the view holds (the viewer's own until the game ends); ``did``: the
    round's public ledger (games/read/ledger_words.py), what each player was seen doing;
    ``guesses``: each player's last marks of the round, right or wrong (games/read/suspicions.py),
    as sentences; ``guessed``: the same per author seat, shown beside the author's true role."""

    def name(seat):
        return names.get(seat, "?")

    roles = done["roles"]
    recap = {
        "number": number,
        "treasure_found": done["treasure_found"],
        "finisher": name(done["finisher"]) if done["finisher"] else None,
        "winners": [name(s) for s in done["winners"]],
        "roles": [
            {"name": name(s), "role": role_name(r), "guessed": (guessed or {}).get(s, "")}
            for s, r in roles.items()
        ],
        "goals": [
            {"goal": goal_label(goal), "card": card_name(c)} for goal, c in done["goals"].items()
        ],
        "gained": [{"name": name(s), "gold": v} for s, v in done["gained"].items()],
        "thefts": [
            _("%(thief)s stole one gold from %(victim)s.")
            % {"thief": name(t["thief"]), "victim": name(t["victim"])}
            if t["victim"]
            else _("%(thief)s stole nothing.") % {"thief": name(t["thief"])}
            for t in done["thefts"]
        ],
        "decided": _decided(done, name, ruleset),
        "seed": done["seed"],
        "seed_hash": done["seed_hash"],
        "rows": [],
        "did": ledger_words.did_lines(did, names) if did else [],
        "guesses": guesses or [],
    }
    if maze:
        # Every goal face up: the round is over and its goals are public.
        recap["rows"] = maze_rows(round_maze(done))
    return recap


def recap_lines(
    done: engine.ViewRound, number: int, names: dict[str, str], *, ruleset: str
) -> list[str]:
    """A round's recap as sentences (emails)."""
    recap = round_recap(done, number, names, ruleset=ruleset)
    found = (
        _("Round %(round)d is over: the treasure was found.")
        if recap["treasure_found"]
        else _("Round %(round)d is over: the treasure was not found.")
    ) % {"round": number}
    lines = [found, *recap["decided"]]
    lines.append(_("Winners: %(names)s") % {"names": ", ".join(recap["winners"]) or "–"})
    lines.append(
        _("Roles: %(roles)s")
        % {"roles": ", ".join(f"{r['name']}: {r['role']}" for r in recap["roles"])}
    )
    if recap["gained"]:
        lines.append(
            _("Gold: %(gold)s")
            % {"gold": ", ".join(f"{g['name']} +{g['gold']}" for g in recap["gained"])}
        )
    lines.extend(recap["thefts"])
    return lines


def _decided(done: engine.ViewRound, name, ruleset: str) -> list[str]:
    """What decided the round, in sentences."""
    lines = []
    finisher = done["finisher"]
    if done["treasure_found"] and finisher:
        lines.append(
            _("%(name)s (%(role)s) completed the path to the treasure.")
            % {"name": name(finisher), "role": role_name(done["roles"][finisher])}
        )
    if ruleset == "base":
        if not done["treasure_found"]:
            lines.append(_("Nobody reached the treasure: the saboteurs win."))
        return lines
    if not done["treasure_found"]:
        lines.append(_("Nobody reached the treasure: the saboteurs and the profiteer win."))
    else:
        for team, open_route in done["reach"].items():
            if open_route:
                text = _("%(team)s has a route to the treasure: no door of another colour.")
            else:
                text = _("%(team)s has no route to the treasure: another colour blocks it.")
            lines.append(text % {"team": team_label(team).capitalize()})
        if done["teams"]:
            lines.append(
                _("Winning team: %(teams)s.")
                % {"teams": ", ".join(team_label(t) for t in done["teams"])}
            )
        elif done["reach"]:
            lines.append(_("No team has a route to the treasure: the boss wins alone."))
    if done["trapped"]:
        lines.append(
            _("Trapped, so winning nothing: %(names)s.")
            % {"names": ", ".join(name(s) for s in done["trapped"])}
        )
    return lines


def game_end(view: engine.View, names: dict[str, str]) -> dict | None:
    """The end of the game: winners with their gold, gold per player per round, the seeds."""
    if not view["finished"]:
        return None
    players = [p for p in view["players"]]
    best = max((p["gold"] for p in players), default=0)
    table: list[dict[str, Any]] = []
    for p in players:
        per_round = [done["gained"].get(p["seat"], 0) for done in view["rounds_done"]]
        table.append({"name": names.get(p["seat"], "?"), "rounds": per_round, "total": p["gold"]})
    table.sort(key=lambda row: -row["total"])
    return {
        "winners": [names.get(p["seat"], "?") for p in players if p["gold"] == best],
        "gold": best,
        "table": table,
        "round_numbers": list(range(1, len(view["rounds_done"]) + 1)),
        "gold_seed": view["gold_seed"],
    }


# -- Since you were here ---------------------------------------------------------------------


@dataclass
class Since:
    """What changed after ``version`` (the viewer's previous visit or own move)."""

    version: int
    placed: set[tuple[int, int]] = field(default_factory=set)  # (x, y) in the current round
    removed: set[tuple[int, int]] = field(default_factory=set)
    rounds_ended: list[int] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)


def since_version(seat: Seat | None, moves: Iterable[LoggedMove], *, visit: bool = True) -> int:
    """The version after which changes are new to ``seat``: its previous visit (``visit``: the
    start of the current visit; else the last page it looked at) or its own last move."""
    if seat is None:
        return 0
    seen = seat.since_version if visit else seat.seen_version
    own = [s for s, _e, automatic, pos in moves if pos == seat.position and not automatic]
    return max([seen, *own])


def changes_since(
    moves: Iterable[LoggedMove],
    version: int,
    names: dict[str, str],
    me: str | None,
    *,
    lines: bool = True,
    renames: Renames = (),
) -> Since:
    """The maze's changes and the log lines after ``version``. ``moves`` are (sequence, events,
    automatic, seat position) tuples; only public events mark the maze."""
    since = Since(version)
    later = [m for m in moves if m[0] > version]
    for _sequence, events, _automatic, _position in later:
        for event in events:
            if event.get("to") is not None:
                continue
            if event["kind"] == "placed":
                x, y = event["at"]
                since.placed.add((x, y))
                since.removed.discard((x, y))
            elif event["kind"] == "action" and "at" in event:
                x, y = event["at"]
                since.removed.add((x, y))
                since.placed.discard((x, y))
            elif event["kind"] == "round-ended":
                since.rounds_ended.append(event["round"])
            elif event["kind"] == "round-started":
                since.placed, since.removed = set(), set()
    if lines:  # the game page marks its own log lines instead
        since.entries = entries_for(later, names, me, renames)
    return since


MOVE_LOG_SECONDS = 600
# A move log's third column: "" for a player's own move; the site's moves are "timeout" (a
# deadline passed) or "stand-in" (a bot played for an absent player). Empty is false, so code
# that only asks "was it the site's?" reads it as a flag.
BY_SITE = Case(
    When(stand_in=True, then=Value("stand-in")),
    When(automatic=True, then=Value("timeout")),
    default=Value(""),
    output_field=CharField(),
)


def move_log(game: Game) -> list[LoggedMove]:
    """The moves up to the game's version as (sequence, events, automatic, seat position),
    oldest first.

    The log is append-only: its moves up to a version never change, so it is kept per process
    under the game's id and version (the game page reads it on every view, and polling pages
    of a game that moved all ask for the same new version).
    """

    def load() -> list[LoggedMove]:
        moves = game.moves.filter(sequence__lte=game.version).order_by("sequence")
        return list(moves.values_list("sequence", "events", BY_SITE, "seat__position"))

    key = f"move-log:{game.pk}:{game.version}"
    return get_or_build(caches["local"], key, load, MOVE_LOG_SECONDS)


def round_names(
    moves: Iterable[LoggedMove], names: dict[str, str], renames: Renames
) -> list[dict[str, str]]:
    """For each finished round, the seat names as they were when it ended: a seat taken over
    later still shows, in that round's recap, the player who played it."""
    ends = [seq for seq, events, *_rest in moves if any(e["kind"] == "round-ended" for e in events)]
    return [names_at(names, renames, seq) if renames else names for seq in ends]


def since_for_email(game: Game, seat: Seat, names: dict[str, str], renames: Renames = ()) -> Since:
    """For the "your turn" email: what changed since the player last looked or moved."""
    moves = move_log(game)
    version = since_version(seat, moves, visit=False)
    return changes_since(moves, version, names, seat.engine_name, renames=renames)


def since_basis(game: Game, seat: Seat, version: int) -> str:
    """What ``version`` (from ``since_for_email``) stands for, so that an email says it rightly:
    "move" (the player's own last move), "visit" (the game as they last looked at it), "seat"
    (the last move of the player they took the seat over from) or "start" (nothing yet)."""
    if version == 0:
        return "start"
    own = game.moves.filter(seat=seat, automatic=False, sequence__gte=version)
    if own.exists():
        return "move"
    if seat.seen_version >= version:
        return "visit"
    return "seat"


def change_lines(since: Since) -> list[str]:
    """The maze's changes as sentences (emails)."""
    lines = []
    if since.placed:
        lines.append(
            _("New cards in the maze: %(where)s.")
            % {"where": "; ".join(position_label(x, y) for x, y in sorted(since.placed))}
        )
    if since.removed:
        lines.append(
            _("Cards removed from the maze: %(where)s.")
            % {"where": "; ".join(position_label(x, y) for x, y in sorted(since.removed))}
        )
    return lines


def log_by_round(
    log: list[Entry],
    moves: Iterable[LoggedMove],
    current_round: int,
    names: dict[str, str],
    me: str | None,
) -> list[dict]:
    """The log (newest first) grouped by round, newest round first; only the current one open.
    A move that ends a round and deals the next one splits: "Round 2 begins" opens round 2."""
    round_of, split, number = {}, {}, 1
    for sequence, events, automatic, position in moves:
        start = next((i for i, e in enumerate(events) if e["kind"] == "round-started"), None)
        if start is not None:
            before = entries_for([(sequence, events[:start], automatic, position)], names, me)
            split[sequence] = (number, len(before))
            number += 1
        round_of[sequence] = number
    groups: dict[int, list[Entry]] = {}
    seen: dict[int, int] = {}
    number = 1
    for entry in reversed(log):  # oldest first, to count each move's lines in order
        # A moderators' line with no move of its own stays in the round of the line before it.
        number = round_of.get(entry.sequence, number)
        if entry.sequence in split:
            earlier, count = split[entry.sequence]
            seen[entry.sequence] = seen.get(entry.sequence, 0) + 1
            if seen[entry.sequence] <= count:
                number = earlier
        groups.setdefault(number, []).insert(0, entry)
    return [
        {"round": n, "entries": groups[n], "open": n == current_round}
        for n in sorted(groups, reverse=True)
    ]


# -- The replay ------------------------------------------------------------------------------


@dataclass
class ReplayPage:
    id: int
    name: str
    step: int
    last: int
    revealed: bool  # the game is over: every hand and role is shown
    round: int
    rounds: int
    to_move_name: str | None
    maze: str  # the maze's HTML (games/_maze.html), cached with the step
    players: list[dict]
    hand: list[dict]
    role: str | None
    knowledge: list[str]
    log: list[Entry]
    step_lines: list[str]  # what this step's move did
    view: engine.View
    key: str = ""  # a digest of what the page is made of: the template keeps its markup under it


def _moves(game: Game) -> list[tuple[int, Sequence[engine.Event], str, int, engine.Move]]:
    return list(
        game.moves.order_by("sequence").values_list(
            "sequence", "events", BY_SITE, "seat__position", "payload"
        )
    )


LOG_LENGTH = 80


def step_cache_key(game: Game, me: str | None, revealed: bool, step: int, names) -> str:
    """Per game, version, viewer, step, language and the players' names as they are now."""
    who = zlib.crc32(json.dumps(sorted(names.items())).encode())
    return f"replay:{game.pk}:{game.version}:{me}:{int(revealed)}:{step}:{get_language()}:{who}"


class _Step(TypedDict):
    """One replay step's plain data, as cached (``_step_data``)."""

    view: engine.View
    hands: dict[str, list[str]]  # seat name -> hand, once the game is over
    roles: dict[str, str]  # seat name -> role, once the game is over
    goals: dict[str, str]  # goal name -> goal card this round, once the game is over
    placed: list[tuple[int, int]]  # what the step's move placed on the maze
    removed: list[tuple[int, int]]
    step_lines: list[str]
    log: list[tuple[int, str, bool]]  # the log until then, newest first: ``Entry`` fields
    maze: NotRequired[str]  # the maze's HTML, once drawn


def _step_data(
    game: Game,
    me: str | None,
    revealed: bool,
    step: int,
    names: dict[str, str],
    renames: Renames = (),
) -> _Step:
    """The plain data of one replay step (cached): the viewer's view at that step, the revealed
    hands, roles and goals after the game, the log until then and what the step changed."""
    key = step_cache_key(game, me, revealed, step, names)
    recalled: _Step | None = kept.recalled(key)
    if recalled is not None:
        return recalled
    all_moves = _moves(game)
    config = game.engine_state().config
    state = engine.replay(config, [(str(m[3]), m[4]) for m in all_moves[:step]])
    moves: list[LoggedMove] = [(m[0], m[1], m[2], m[3]) for m in all_moves[:step]]
    # What this step changed (marked on the maze) and the log until then, newest first.
    # Log lines keep the name of the player who made them, before any seat takeover.
    changes = changes_since(moves, step - 1, names, me, renames=renames) if step else Since(0)
    log = entries_for(moves, names, me, renames)[-LOG_LENGTH:][::-1]
    data: _Step = {
        "view": engine.view_for(state, me),
        "hands": {},
        "roles": {},
        "goals": {},
        "placed": sorted(changes.placed),
        "removed": sorted(changes.removed),
        "step_lines": [e.text for e in changes.entries] if step else [],
        "log": [(e.sequence, e.text, e.private) for e in log],
    }
    if revealed:
        for seat in state.seats:
            mine = engine.own_view(state, seat)
            data["hands"][seat], data["roles"][seat] = mine["hand"], mine["role"]
        final = engine.view_for(game.engine_state(), None)
        if state.round <= len(final["rounds_done"]):
            data["goals"] = final["rounds_done"][state.round - 1]["goals"]
    kept.keep(key, data, CACHE_SECONDS)
    return data


def _seen_doing(game: Game, view: engine.View, step: int, names: dict[str, str]) -> dict[str, str]:
    """What each player was seen doing this round until ``step`` (the public ledger), in words.
    The ledger until a step is the game's at that version: kept per game and version and read
    on from the nearest one kept (``ledger_words.kept``), so stepping through a replay reads each
    move once; its words are kept under what they are made of (``kept.built``)."""
    seats = [p["seat"] for p in view["players"]]
    seen = ledger_words.kept(game.pk, [m for m in move_log(game) if m[0] <= step], seats)

    def said() -> dict[str, str]:
        lines = ledger_words.did_lines(seen.ledger.rounds.get(view["round"], {}), names)
        return {line["seat"]: line["did"] for line in lines}

    return kept.built("replay-did", (seen.ledger, view["round"], names), said)


def replay_page(game: Game, step: int | None, names: dict[str, str], me: str | None, renames=()):
    """One step of the replay as the viewer in seat ``me`` may see it (None for spectators):
    during the game their own view at that step; after the game, everything. Made of the
    game's moves up to ``step`` and these arguments alone (``pages.replay_page`` keeps it)."""
    last = game.version
    step = last if step is None else max(0, min(step, last))
    revealed = game.status == Game.Status.FINISHED
    viewer = None if revealed else me
    data = _step_data(game, viewer, revealed, step, names, renames)
    # The players' table names each seat as it was at this step (before a later takeover).
    names = names_at(names, renames, step) if renames else names
    view = data["view"]
    cards = {(c["x"], c["y"]): (c["card"], c["turned"]) for c in view["board"]}
    backs = set()
    for goal in view["goals"]:
        if goal["face_down"]:
            if goal["name"] in data["goals"]:
                cards[(goal["x"], goal["y"])] = (data["goals"][goal["name"]], False)
            else:
                backs.add((goal["x"], goal["y"]))
    if "maze" not in data:
        # The maze is the page's largest part: drawn once per cached step.
        rows = maze_rows(
            cards,
            backs,
            new=set(data["placed"]),
            removed=set(data["removed"]),
        )
        data["maze"] = maze_html(rows, "board")
        kept.keep(step_cache_key(game, viewer, revealed, step, names), data, CACHE_SECONDS)
    did = _seen_doing(game, view, step, names)
    players = []
    for p in view["players"]:
        seat = p["seat"]
        row = {
            "name": names.get(seat, "?"),
            "did": did.get(seat, ""),
            "hand_size": p["hand_size"],
            "in_front": [card_name(c) for c in p["in_front"]],
            "to_move": view["to_move"] == seat,
            "is_me": seat == me,
            "role": role_name(data["roles"][seat]) if seat in data["roles"] else None,
            "hand": [card_name(c) for c in sorted(data["hands"].get(seat, []))],
        }
        players.append(row)
    mine = view["me"]
    hand, role, knowledge = [], None, []
    if mine is not None:
        role = role_name(mine["role"])
        hand = [{"name": card_name(c), "svg": card_use(c)} for c in hand_order(mine["hand"])]
        knowledge = knowledge_lines(mine, names)
    return ReplayPage(
        id=game.pk,
        name=game.name,
        step=step,
        last=last,
        revealed=revealed,
        round=view["round"],
        rounds=view["rounds"],
        to_move_name=names.get(view["to_move"]) if view["to_move"] else None,
        maze=mark_safe(data["maze"]),  # noqa: S308 - rendered by our own template
        players=players,
        hand=hand,
        role=role,
        knowledge=knowledge,
        log=[Entry(*entry) for entry in data["log"]],
        step_lines=data["step_lines"],
        view=view,
    )
