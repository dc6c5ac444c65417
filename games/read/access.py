"""Finding a game a viewer may see, and the cheap questions open pages ask while they wait."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection
from django.db.models import Prefetch
from django.utils.dateparse import parse_datetime

from accounts.models import User
from games.models import Game, Seat


def may_see(visibility: str, player_ids, user_id: int | None) -> bool:
    """The one visibility rule: open games for every logged-in viewer, private ones for their
    players (replaced players included, since they sat at the table)."""
    if user_id is None:
        return False
    return visibility == Game.Visibility.OPEN or user_id in player_ids


def game_for(game_id: int, user) -> Game | None:
    """The game if ``user`` may see it (``may_see``). None means "no such game"."""
    # The seats and their users in one query (a join), not two: this runs on every game request.
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    # get(), not first(): no ORDER BY for the one row of a primary key.
    try:
        game = Game.objects.prefetch_related(seats).get(pk=game_id)
    except Game.DoesNotExist:
        return None
    if game.visibility == Game.Visibility.OPEN:
        return game
    user_id = user.pk if user.is_authenticated else None
    if may_see(game.visibility, {s.user_id for s in game.seats.all()}, user_id):
        return game
    return None


def game_by_invite(token: str) -> Game | None:
    return Game.objects.filter(invite_token=token).prefetch_related("seats__user").first()


@dataclass(frozen=True)
class PollView:
    """What a waiting page needs to know before anything is drawn."""

    revision: int
    watcher: bool  # no seat in play and not the creator: the view every watcher shares
    seen_at: datetime | None = None  # when the viewer's seat in play last saw the game


def poll_view(game_id: int, user) -> PollView | None:
    """One indexed query, without the game's state: its revision, and whether ``user`` only
    watches it. None when ``user`` may not see the game (as ``game_for``).

    Every open page of a game asks this at once after each move (200 pages of a watched game:
    200 asks within the second), so it is written once as SQL (``POLL_SQL``): the ORM would
    compile the same join again for each of them, more than the database takes to answer it."""
    rows = _viewer_rows(game_id, user)
    return None if rows is None else _poll_view_of(rows, user.pk)


def _poll_view_of(rows: list[tuple], user_id: int) -> PollView:
    revision, _, creator_id = rows[0][:3]
    live = _in_play(rows)
    return PollView(
        revision,
        watcher=not live and creator_id != user_id,
        seen_at=_moment(live[0][4]) if live else None,
    )


def poll_with_user(game_id: int, user_id: int) -> tuple[User, PollView] | None:
    """The user ``user_id``, whole, and ``poll_view`` for them, in one query
    (``POLL_WITH_USER_SQL``): for a poll that arrives with a session not yet verified
    (games/web/polls.py), which verifies it with this user. None when there is no such game or
    user, or when the user may not see the game."""
    if not 0 < game_id <= MAX_ID:
        return None
    # One instance per row (a row per seat of theirs, or one), the poll's columns on each.
    found = list(User.objects.raw(POLL_WITH_USER_SQL, [user_id, game_id]))
    if not found:
        return None
    rows = [tuple(vars(user).pop(f"poll_{name}") for name in POLL_COLUMNS) for user in found]
    if not _may_see_rows(rows, user_id):
        return None
    return found[0], _poll_view_of(rows, user_id)


@dataclass(frozen=True)
class GameHead:
    """What a page kept under the game's revision and the viewer's seat needs to find itself
    (``found.kept_recap``), read without the game's state, seats or players."""

    id: int
    name: str
    revision: int
    me: str | None  # the viewer's seat in play, as the engine names it (``seats.live_seat``)


def game_head(game_id: int, user) -> GameHead | None:
    """The poll's one query (``POLL_SQL``); None when ``user`` may not see the game."""
    rows = _viewer_rows(game_id, user)
    if rows is None:
        return None
    revision, name = rows[0][0], rows[0][5]
    live = _in_play(rows)
    return GameHead(game_id, name, revision, me=Seat.engine_name_at(live[0][6]) if live else None)


def _viewer_rows(game_id: int, user) -> list[tuple] | None:
    """``POLL_SQL``'s rows (the game, with each seat ``user`` has there, or one row without a
    seat), or None when ``user`` may not see the game (``may_see``, as ``game_for``)."""
    if not user.is_authenticated or not 0 < game_id <= MAX_ID:
        return None
    with connection.cursor() as cursor:
        cursor.execute(POLL_SQL, [user.pk, game_id])
        # A row per seat of theirs (a replaced seat and a new one), or one with no seat.
        rows = cursor.fetchall()
    return rows if rows and _may_see_rows(rows, user.pk) else None


def _may_see_rows(rows: list[tuple], user_id: int) -> bool:
    states = {row[3] for row in rows} - {None}
    return may_see(rows[0][1], {user_id} if states else (), user_id)


def _in_play(rows: list[tuple]) -> list[tuple]:
    """The rows of the viewer's seat in play (one at most: a constraint), not a replaced one."""
    return [row for row in rows if row[3] not in (None, Seat.State.REPLACED)]


def _moment(value) -> datetime | None:
    """A timestamp column read by raw SQL: a datetime on PostgreSQL, text on SQLite."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


MAX_ID = 2**63 - 1  # the ids' column (BigAutoField); a larger number in a URL is no game


# The game's revision, visibility, creator and name, and the state, last visit and position of
# each seat the viewer has (the tables and columns of Game and Seat;
# tests/web/test_game_page_speed.py runs it on both).
POLL_SQL = """
    SELECT g.revision, g.visibility, g.creator_id, s.state, s.last_seen_at, g.name, s.position
    FROM games_game g LEFT JOIN games_seat s ON s.game_id = g.id AND s.user_id = %s
    WHERE g.id = %s
"""
# The same, each row with the whole user (its columns, as the User model names them: a raw
# query of User), the poll's columns named ``poll_<name>``; no row when the user does not exist.
POLL_COLUMNS = ("revision", "visibility", "creator_id", "state", "last_seen_at", "name", "position")
POLL_WITH_USER_SQL = """
    SELECT u.*, g.revision AS poll_revision, g.visibility AS poll_visibility,
        g.creator_id AS poll_creator_id, s.state AS poll_state, s.last_seen_at AS poll_last_seen_at,
        g.name AS poll_name, s.position AS poll_position
    FROM games_game g JOIN accounts_user u ON u.id = %s
    LEFT JOIN games_seat s ON s.game_id = g.id AND s.user_id = u.id
    WHERE g.id = %s
"""


def revision_of(game_id: int) -> int | None:
    return Game.objects.filter(pk=game_id).values_list("revision", flat=True).first()


@dataclass(frozen=True)
class Audience:
    """Who may see one game now (``may_see``), for the live streams open on it."""

    visibility: str
    player_ids: frozenset[int]

    def admits(self, user_id: int | None) -> bool:
        return may_see(self.visibility, self.player_ids, user_id)


def audience(game_id: int) -> Audience | None:
    """Two indexed queries; None when the game is gone."""
    visibility = Game.objects.filter(pk=game_id).values_list("visibility", flat=True).first()
    if visibility is None:
        return None
    seats = Seat.objects.filter(game_id=game_id, user__isnull=False)
    return Audience(visibility, frozenset(seats.values_list("user_id", flat=True)))
