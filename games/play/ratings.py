"""Writing the ratings (docs/ratings.md): live, in the transaction of the move that completes a
round, and as a rebuild of every rating from the stored moves. The maths is ``rating_maths``.

Order: updates do not commute, so every round-completing move of a rated game takes one
transaction-level lock (``serialise``) *before* the move row gets its id, and holds it to the
commit. The completing moves' ids are then in the order their updates were made, and the rebuild
replays the rounds in that order: the same figures.

Only games that are not practice are rated; a round with a bot, a stand-in's seat and an aborted
game are not (``rating_maths``). Bot accounts have a pool of their own (``seat_rows``): a round
of bot accounts alone is rated among them, one with people too is not rated. Aborting a game
that has rated rounds asks for a rebuild (a Celery task; the minute sweep asks again while such
rounds remain, should the broker have lost it).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction

from games import dispatch, engine
from games.models import Game, Move, RatedRound, Rating, Seat
from games.read import invalidation

from . import rating_maths as maths

log = logging.getLogger(__name__)

# The key of PostgreSQL's advisory lock that rating writers share (any constant of our own).
LOCK_KEY = 0x5AB07EA7

# The games whose rounds count, whatever their state now (a running game's finished rounds too).
RATED_STATUSES = (Game.Status.RUNNING, Game.Status.PAUSED, Game.Status.FINISHED)


def serialise() -> None:
    """Wait for, then hold until the transaction ends, the lock of every rating writer.

    PostgreSQL only: SQLite (the zero-setup default) runs one writing transaction at a time.
    Taken after the game row's lock (the house's lock order: the game row first).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


def rated(game: Game) -> bool:
    return not game.practice


# -- Live ----------------------------------------------------------------------------------


def completed_rounds(game: Game, seat: Seat, move: Mapping[str, Any], *, stand_in: bool = False):
    """The rated rounds ``move`` (about to be stored for ``seat``) completes, found by replaying
    the game's stored moves and this one: before the writers' lock, which is held only for the
    writing. Their ``key`` is filled in by ``round_completed`` once the move has its id."""
    if not rated(game):
        return []
    seats, moves = _rows_of(game)
    moves.append(maths.MoveRow(PENDING, seat.pk, stand_in, move))
    config = _config_of(game)
    return [m for m in _replayed(game.pk, config, seats, moves) if m.key == PENDING]


PENDING = 0  # the id of the move not stored yet


def before_round_end(game: Game) -> None:
    """The move about to be stored completes a round: take the writers' lock first."""
    if rated(game):
        serialise()


def round_completed(*, game: Game, move: Move, matches) -> None:
    """Rate the rounds ``move`` completed (``completed_rounds``; the game row is locked and
    ``before_round_end`` ran). The roles of a completed round are public (docs/rules.md 8), so the
    new figures may show at once."""
    for match in matches:
        _write(dataclasses.replace(match, key=move.pk, at=move.created_at))


SEAT_COLUMNS = ("pk", "position", "user_id", "bot", "user__is_bot")


def seat_rows(rows: Iterable[tuple], *, with_people: bool = False) -> dict[int, maths.SeatRow]:
    """A game's seats (``SEAT_COLUMNS``) as the rounds need them. Bot accounts (the public
    API's) are rated in a pool of their own: a game of bot accounts alone is rated among them;
    one where they sit with people counts them as bots (its rounds are not rated), so that
    neither pool moves the other, unless the game says otherwise (``with_people``: its
    ``bots_rated_with_people``)."""
    rows = [row for row in rows if row[1] is not None]  # a started game's seats all have one
    people = not with_people and any(
        user is not None and not is_bot for _pk, _p, user, _bot, is_bot in rows
    )
    return {
        pk: maths.SeatRow(pk, position, user, bot is not None or bool(is_bot and people))
        for pk, position, user, bot, is_bot in rows
    }


def _rows_of(game: Game) -> tuple[dict[int, maths.SeatRow], list[maths.MoveRow]]:
    seats = seat_rows(
        Seat.objects.filter(game=game).values_list(*SEAT_COLUMNS),
        with_people=game.bots_rated_with_people,
    )
    moves = [
        maths.MoveRow(*row)
        for row in game.moves.order_by("sequence").values_list(
            "pk", "seat_id", "stand_in", "payload", "created_at"
        )
    ]
    return seats, moves


def _matches_of(game: Game) -> list[maths.Match]:
    seats, moves = _rows_of(game)
    return _replayed(game.pk, _config_of(game), seats, moves)


def _config_of(game: Game) -> engine.Config:
    """The configuration in a started game's snapshot (its seeds included)."""
    if game.snapshot is None:
        raise ValueError(f"Game {game.pk} has not started.")
    return engine.Config(**game.snapshot["config"])


def _replayed(
    game_id: int,
    config: engine.Config,
    seats: Mapping[int, maths.SeatRow],
    moves: Sequence[maths.MoveRow],
) -> list[maths.Match]:
    """The game's rated rounds; none when its moves do not replay (a snapshot put in place by
    hand, as some tests do): the live update and the rebuild skip such a game alike."""
    try:
        return maths.game_matches(game=game_id, config=config, seats=seats, moves=moves)
    except Exception:
        log.exception("game %s does not replay from its moves: its rounds are not rated", game_id)
        return []


def _write(match: maths.Match) -> None:
    users = {p.user for p in match.players if p.user is not None}
    rows = {
        (row.user_id, row.kind): row
        for row in Rating.objects.filter(ruleset=match.ruleset, user_id__in=users)
    }
    current = {key: (row.mu, row.sigma) for key, row in rows.items()}
    fresh, changed = [], []
    for (user, kind), (mu, sigma) in maths.updated(match, current).items():
        row = rows.get((user, kind))
        if row is None:
            row = Rating(user_id=user, ruleset=match.ruleset, kind=kind, rounds=0)
            fresh.append(row)
        else:
            changed.append(row)
        _set(row, mu, sigma, match.at)
    Rating.objects.bulk_create(fresh)
    Rating.objects.bulk_update(changed, ["mu", "sigma", "score", "rounds", "last_round_at"])
    RatedRound.objects.create(game_id=match.game, number=match.number, move_id=match.key)
    invalidation.ratings_changed(match.rated_users)


def _set(row: Rating, mu: float, sigma: float, at) -> None:
    row.mu, row.sigma = mu, sigma
    row.score = maths.conservative(mu, sigma)
    row.rounds += 1
    row.last_round_at = at


# -- Aborted games -------------------------------------------------------------------------

REBUILD_ASKED = "ratings-rebuild-asked"
REBUILD_ASKED_SECONDS = 600  # the sweep asks again after this, should a rebuild have died


def game_aborted(game: Game) -> None:
    """The game's rated rounds must go: ask for a rebuild once the abort is committed."""
    if game.rated_rounds.exists():
        transaction.on_commit(lambda: _ask_for_rebuild(force=True), robust=True)


def withdraw_aborted() -> bool:
    """The minute sweep: ask for a rebuild while an aborted game's rounds still count."""
    if RatedRound.objects.filter(game__status=Game.Status.ABORTED).exists():
        return _ask_for_rebuild(force=False)
    return False


def _ask_for_rebuild(*, force: bool) -> bool:
    if not cache.add(REBUILD_ASKED, 1, REBUILD_ASKED_SECONDS) and not force:
        return False
    try:
        dispatch.start(dispatch.RATINGS_REBUILD)
    except Exception:  # the broker is away: the sweep asks again
        cache.delete(REBUILD_ASKED)
        log.warning("could not ask for a ratings rebuild", exc_info=True)
        return False
    return True


# -- Rebuild -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rebuilt:
    rounds: int  # rated rounds
    ratings: int  # rating rows written
    games: int  # games read


MAX_ATTEMPTS = 3


def ratings_rebuild() -> Rebuilt:
    """Every rating again from the stored moves of every rated game, in the order of the live
    updates; rounds completed meanwhile are added under the writers' lock before writing.

    First a consistent snapshot of the database is read without the lock (the long part); the
    round-completing moves it sees are a prefix, by id, of all of them (they are made one at a
    time under the lock). Then, under the lock, games that moved on since are read again and
    their new rounds added, and everything is written in one transaction. A game aborted in
    between starts it over (its rounds were in the snapshot).
    """
    for _attempt in range(MAX_ATTEMPTS):
        versions, matches = _snapshot()
        with transaction.atomic():
            serialise()
            current = dict(
                Game.objects.filter(practice=False, status__in=RATED_STATUSES).values_list(
                    "pk", "version"
                )
            )
            counted = {m.game for m in matches}
            if counted - current.keys():
                continue  # a game aborted since the snapshot
            horizon = max((m.key for m in matches), default=0)
            moved_on = [pk for pk, version in current.items() if versions.get(pk) != version]
            for game in Game.objects.filter(pk__in=moved_on):
                matches += [m for m in _matches_of(game) if m.key > horizon]
            return _replace_all(matches, games=len(current))
    raise RuntimeError("games kept being aborted during the ratings rebuild; try again")


def _snapshot() -> tuple[dict[int, int], list[maths.Match]]:
    """Each rated game's version and its rated rounds, from one consistent read."""
    outermost = not connection.in_atomic_block  # else (tests) the snapshot is the caller's
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        games = Game.objects.filter(practice=False, status__in=RATED_STATUSES)
        versions, configs, with_people = {}, {}, set()
        rows_of_games = games.values_list(
            "pk", "version", "snapshot__config", "bots_rated_with_people"
        )
        for pk, version, config, bots_with_people in rows_of_games:
            versions[pk] = version
            configs[pk] = engine.Config(**config) if config else None
            if bots_with_people:
                with_people.add(pk)
        by_game: dict[int, list[tuple]] = {}
        rows = Seat.objects.filter(game__in=games).values_list("game_id", *SEAT_COLUMNS)
        for game, *row in rows.iterator(chunk_size=2000):
            by_game.setdefault(game, []).append(tuple(row))
        seats = {
            game: seat_rows(game_rows, with_people=game in with_people)
            for game, game_rows in by_game.items()
        }
        matches: list[maths.Match] = []
        moves = (
            Move.objects.filter(game__in=games)
            .order_by("game_id", "sequence")
            .values_list("game_id", "pk", "seat_id", "stand_in", "payload", "created_at")
        )
        for game, game_moves in _by_game(moves.iterator(chunk_size=2000)):
            game_config = configs.get(game)
            if game_config is None:
                continue
            matches += _replayed(game, game_config, seats[game], game_moves)
    return versions, matches


def _by_game(rows: Iterable[tuple]) -> Iterable[tuple[int, list[maths.MoveRow]]]:
    for game_id, group in itertools.groupby(rows, key=lambda row: row[0]):
        yield game_id, [maths.MoveRow(*move) for _game_id, *move in group]


def _replace_all(matches: list[maths.Match], *, games: int) -> Rebuilt:
    """Replay the matches in key order in memory, then write every rating (the lock is held)."""
    matches.sort(key=lambda m: m.key)
    rows: dict[tuple[str, int, str], Rating] = {}
    for match in matches:
        current: dict[tuple[int, str], maths.Pair] = {}
        for player in match.players:
            if player.user is None:
                continue  # a default rating: no row
            for kind in maths.KINDS:
                row = rows.get((match.ruleset, player.user, kind))
                if row is not None:
                    current[(player.user, kind)] = (row.mu, row.sigma)
        for (user, kind), (mu, sigma) in maths.updated(match, current).items():
            row = rows.setdefault(
                (match.ruleset, user, kind),
                Rating(user_id=user, ruleset=match.ruleset, kind=kind, rounds=0),
            )
            _set(row, mu, sigma, match.at)
    Rating.objects.all().delete()
    RatedRound.objects.all().delete()
    Rating.objects.bulk_create(rows.values(), batch_size=1000)
    RatedRound.objects.bulk_create(
        (RatedRound(game_id=m.game, number=m.number, move_id=m.key) for m in matches),
        batch_size=1000,
    )
    invalidation.ratings_changed(None)
    cache.delete(REBUILD_ASKED)
    return Rebuilt(rounds=len(matches), ratings=len(rows), games=games)
