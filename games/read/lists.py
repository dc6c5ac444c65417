"""Lists of games: the player's dashboard, the lobby's open games, games to watch, and the
header's count of games awaiting the player's decision (cached; ``invalidation`` drops it)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache, caches
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.utils.translation import get_language

from games.models import Game, Move, Seat
from games.models.matchmaking import PACES
from saboteur_site.cache import get_or_build

from . import ratings, stats
from .clock import Clock, clock_annotations, clocks_of
from .seats import LIVE_SEAT, user_name


def _awaiting(user):
    # One filter() call, so the three seat conditions apply to the same seat.
    return Game.objects.filter(
        status=Game.Status.RUNNING,
        seats__user=user,
        seats__state__in=LIVE_SEAT,
        seats__position=F("to_move"),
    )


AWAITING_SECONDS = 120  # a safety net: ``invalidation`` drops a count as soon as it changes


def awaiting_count(user) -> int:
    """How many running games wait for this user's decision (on every page: kept in the shared
    cache, dropped whenever one of the user's games or seats changes: ``invalidation``)."""
    return len(_awaiting_games(user))


# Inside ``awaiting_read_once()``: the lists read so far, by user (a page's render asks twice).
_READ_ONCE: ContextVar[dict[int, list[tuple[int, str]]] | None] = ContextVar(
    "awaiting_read_once", default=None
)


@contextmanager
def awaiting_read_once() -> Iterator[None]:
    """While a page is rendered (nothing written meanwhile), the awaiting list is read from the
    cache once: the header's count and the page's next game both ask for it."""
    token = _READ_ONCE.set({})
    try:
        yield
    finally:
        _READ_ONCE.reset(token)


def _awaiting_games(user) -> list[tuple[int, str]]:
    """(pk, name) of the games waiting for the user's decision, the longest waiting first: one
    cached list for the count and the next game, so the next game costs no query of its own."""
    read = _READ_ONCE.get()
    if read is not None and user.pk in read:
        return read[user.pk]

    def query():
        ordered = _awaiting(user).order_by("decision_since", "pk")
        return [tuple(row) for row in ordered.values_list("pk", "name")]

    found = get_or_build(cache, _awaiting_key(user.pk), query, AWAITING_SECONDS)
    if read is not None:
        read[user.pk] = found
    return found


def awaiting_changed(user_ids) -> None:
    cache.delete_many([_awaiting_key(pk) for pk in user_ids])


def _awaiting_key(user_id: int) -> str:
    return f"awaiting-games:{user_id}"


@dataclass(frozen=True)
class NextGame:
    pk: int
    name: str


def next_awaiting(user, *, besides: int | None = None) -> NextGame | None:
    """The game that has waited longest for this user's decision, other than ``besides`` (the
    one on screen)."""
    for pk, name in _awaiting_games(user):
        if pk != besides:
            return NextGame(pk, name)
    return None


@dataclass
class GameRow:
    """One game in a list: only what every viewer of the list may know."""

    pk: int
    name: str
    ruleset_label: str
    status: str
    status_label: str
    seats_taken: int
    max_seats: int
    decision_since: datetime | None
    # Running games (My games, games to watch): whose decision, the round, the clock.
    to_move_name: str | None = None
    round: int | None = None
    rounds: int | None = None
    deadline: datetime | None = None
    last_move_at: datetime | None = None
    clock: Clock | None = None  # the running decision's clock (games.read.clock)
    # Open games: who sits there (rating and reliability), and the creator's minimum.
    players: list[LobbyPlayer] | None = None
    min_reliability: int | None = None
    created_at: datetime | None = None  # open games: how long it has waited


@dataclass(frozen=True)
class LobbyPlayer:
    name: str
    url: str
    rating: ratings.Figure | None  # in the game's rule set
    reliability: int | None  # percent; None: no record yet
    is_bot: bool = False  # a bot account (the public API's): shown with a bot mark


# Not get_FOO_display(): it hashes every (lazily translated) choice on each call, which made a
# list of 50 games cost more than the rest of the lobby page (docs/web-performance.md).
_RULESET_LABELS = dict(Game.Ruleset.choices)

_STATUS_LABELS = dict(Game.Status.choices)


def _row(game: Game, seats_taken: int | None = None, clocks: dict | None = None) -> GameRow:
    round_ = getattr(game, "current_round", None)
    return GameRow(
        pk=game.pk,
        name=game.name,
        ruleset_label=str(_RULESET_LABELS.get(game.ruleset, game.ruleset)),
        status=game.status,
        status_label=str(_STATUS_LABELS.get(game.status, game.status)),
        seats_taken=seats_taken if seats_taken is not None else 0,
        max_seats=game.max_seats,
        decision_since=game.decision_since,
        to_move_name=getattr(game, "to_move_name", None),
        round=int(round_) if round_ is not None else None,
        rounds=game.rounds,
        deadline=game.deadline,
        last_move_at=getattr(game, "last_move_at", None),
        clock=(clocks or {}).get(game.pk),
    )


def _with_progress(games):
    """Whose decision (display name), the round and the last move's time, and what the clock
    needs (``clocks_of``: the deciding seat's bank, whether its player has a vacation ahead), in
    the same query."""
    deciding = Seat.objects.filter(game=OuterRef("pk"), position=OuterRef("to_move")).exclude(
        state=Seat.State.REPLACED
    )
    return games.annotate(
        to_move_name=Subquery(deciding.values("user__display_name")[:1]),
        **clock_annotations(deciding),
        current_round=KT("snapshot__round"),
        last_move_at=Subquery(
            Move.objects.filter(game=OuterRef("pk")).order_by("-sequence").values("created_at")[:1]
        ),
    )


@dataclass
class Dashboard:
    awaiting: list[GameRow]
    running: list[GameRow]
    lobby: list[GameRow]
    finished: list[GameRow]
    # Play now's forming tables the player sits at (their rows: games/read/forming.py shows them).
    forming: list = field(default_factory=list)


def _awaits(game: Game) -> bool:
    # my_position: annotated by dashboard_for's query.
    position = game.my_position  # type: ignore[attr-defined]
    return game.status == Game.Status.RUNNING and game.to_move == position


def dashboard_for(user) -> Dashboard:
    """My games: awaiting my decision (longest waiting first), other running, lobbies, finished."""
    mine = Game.objects.filter(seats__user=user, seats__state__in=LIVE_SEAT).annotate(
        my_position=F("seats__position")
    )
    underway = [Game.Status.RUNNING, Game.Status.PAUSED]
    running = list(_with_progress(mine.filter(status__in=underway)).order_by("decision_since"))
    over = [Game.Status.FINISHED, Game.Status.ABORTED]
    finished = mine.filter(status__in=over).order_by("-finished_at")[:30]
    clocks = clocks_of(running)
    # One query for both kinds of table in their lobby: play now's forming tables have their
    # own list (games/read/forming.py), from these rows.
    lobbies = list(mine.filter(status=Game.Status.LOBBY).select_related("forming"))
    forming = [table for game in lobbies if (table := _forming(game)) is not None]
    return Dashboard(
        awaiting=[_row(g, clocks=clocks) for g in running if _awaits(g)],
        running=[_row(g, clocks=clocks) for g in running if not _awaits(g)],
        lobby=[_row(g) for g in lobbies if _forming(g) is None],
        finished=[_row(g) for g in finished],
        forming=forming,
    )


def _forming(game: Game):
    """The game's forming table (play now), or None."""
    try:
        return game.forming  # FormingTable's reverse one-to-one
    except ObjectDoesNotExist:
        return None


WATCH_LENGTH = 30

WATCH_SECONDS = 15  # the list may be this old: it is a list to browse, not a game's state


def games_to_watch(user) -> list[GameRow]:
    """Running open games the user does not play in (spectators see the public view).

    The same list serves everyone for a few seconds, per process (the lobby is a hot page and
    the query with its progress columns costs more than the rest of the page); each viewer's own
    games are taken out of it here.
    """
    watchable = get_or_build(caches["local"], watch_key(get_language()), _watchable, WATCH_SECONDS)
    mine = user.pk if user.is_authenticated else None
    return [row for row, players in watchable if mine not in players][:WATCH_LENGTH]


def watch_key(language: str) -> str:
    """The per-process cache's key of the list (per language: its rows hold translated labels,
    the rule set's and the status's)."""
    return f"games-to-watch:{language}"


def _watchable() -> list[tuple[GameRow, frozenset[int]]]:
    games = list(
        _with_progress(
            Game.objects.filter(status=Game.Status.RUNNING, visibility=Game.Visibility.OPEN)
            .defer("snapshot")
            .annotate(seats_taken=Count("seats"))
        ).order_by("-decision_since")[: WATCH_LENGTH * 2]
    )
    players: dict[int, set[int]] = {game.pk: set() for game in games}
    for game_id, user_id in Seat.objects.filter(game__in=games).values_list("game", "user"):
        players[game_id].add(user_id)
    clocks = clocks_of(games)
    return [(_row(game, game.seats_taken, clocks), frozenset(players[game.pk])) for game in games]


OPEN_LOBBIES_VERSION = "open-lobbies-version"


def open_lobbies_version(user=None) -> str:
    """A token that changes whenever the open lobbies may have changed (``invalidation``):
    the lobby page keeps its rendered list per version. Kept in the shared cache, so every
    process sees a change at once; a missing token (a cleared cache) is simply a new version.

    Inside ``awaiting_read_once()``, ``user``'s awaiting list (the header's count) is read in
    the same round trip to the cache, and kept for the rest of the page."""
    read = _READ_ONCE.get()
    awaiting = None
    if read is not None and user is not None and user.is_authenticated and user.pk not in read:
        awaiting = _awaiting_key(user.pk)
    found = cache.get_many([OPEN_LOBBIES_VERSION] + ([awaiting] if awaiting else []))
    if read is not None and awaiting and found.get(awaiting) is not None:
        read[user.pk] = found[awaiting]
    version = found.get(OPEN_LOBBIES_VERSION)
    if version is None:
        cache.add(OPEN_LOBBIES_VERSION, uuid.uuid4().hex, timeout=None)  # the first one wins
        # Still none: the shared cache is away (saboteur_site/cache.py), and a version of this
        # request's own keeps each process from showing a list it rendered earlier.
        version = cache.get(OPEN_LOBBIES_VERSION) or uuid.uuid4().hex
    return version


def open_lobbies_changed() -> None:
    cache.set(OPEN_LOBBIES_VERSION, uuid.uuid4().hex, timeout=None)


@dataclass(frozen=True)
class LobbyFilter:
    """What the lobby's list is narrowed to (issue 52): a rule set, a pace (``PACES``' keys),
    a number of seats, the creator's language, at least this many free seats; None: any."""

    ruleset: str | None = None
    pace: str | None = None
    seats: int | None = None
    language: str | None = None
    free: int | None = None

    def __bool__(self) -> bool:
        return any(value is not None for value in vars(self).values())

    def narrow(self, games):
        if self.ruleset:
            games = games.filter(ruleset=self.ruleset)
        if self.pace == "daily":
            games = games.filter(daily_at__isnull=False)
        elif self.pace in PACES:
            games = games.filter(daily_at__isnull=True, turn_limit=PACES[self.pace])
        if self.seats is not None:
            games = games.filter(max_seats=self.seats)
        if self.language:
            games = games.filter(creator__language=self.language)
        if self.free is not None:
            games = games.filter(max_seats__gte=F("seats_taken") + self.free)
        return games


def open_lobbies(narrowed: LobbyFilter | None = None) -> list[GameRow]:
    """The open games waiting for players, newest first, with their players' ratings and
    reliability: the same list for everyone (``narrowed``: only those that fit). A fixed number
    of queries whatever the number of games (the page keeps the unfiltered list's markup per
    version: ``invalidation``)."""
    # Only the columns a row shows: no model instances (the lobby is a hot page).
    games = (
        Game.objects.filter(status=Game.Status.LOBBY, visibility=Game.Visibility.OPEN)
        .order_by("-created_at")
        .annotate(seats_taken=Count("seats"))
    )
    rows = list(
        (narrowed or LobbyFilter())
        .narrow(games)
        .values_list(
            "pk", "name", "ruleset", "status", "max_seats", "decision_since", "min_reliability",
            "created_at", "seats_taken",
        )[:50]
    )  # fmt: skip
    seated = _lobby_players([game[0] for game in rows], {game[0]: game[2] for game in rows})
    return [
        GameRow(
            pk=pk,
            name=name,
            ruleset_label=str(_RULESET_LABELS.get(ruleset, ruleset)),
            status=status,
            status_label=str(_STATUS_LABELS.get(status, status)),
            seats_taken=seats_taken,
            max_seats=max_seats,
            decision_since=since,
            players=seated.get(pk, []),
            min_reliability=minimum,
            created_at=created_at,
        )
        for pk, name, ruleset, status, max_seats, since, minimum, created_at, seats_taken in rows
    ]


def _lobby_players(game_ids: list[int], rulesets: dict[int, str]) -> dict[int, list[LobbyPlayer]]:
    """Each game's players with their rating in its rule set and their reliability."""
    if not game_ids:
        return {}
    seats = list(
        Seat.objects.filter(game_id__in=game_ids)
        .select_related("user")
        .only("game_id", "bot", "user__display_name", "user__is_active", "user__id", "user__is_bot")
        .order_by("joined_at", "pk")
    )
    users = {seat.user_id for seat in seats if seat.user_id is not None}
    figures = ratings.overall_figures(users)
    reliable = stats.reliability_percents(users)
    players: dict[int, list[LobbyPlayer]] = {}
    for seat in seats:
        if seat.user_id is None:
            continue
        players.setdefault(seat.game_id, []).append(
            LobbyPlayer(
                name=user_name(seat.user),
                url=stats.player_url(seat.user),
                rating=figures.get((seat.user_id, rulesets[seat.game_id])),
                reliability=reliable.get(seat.user_id),
                is_bot=seat.user is not None and seat.user.is_bot,
            )
        )
    return players
