"""Play now (issue 52): a player states a wish and the site seats them at a forming table that
fits, or opens one; the table starts by itself when full, or at its start time with enough
players (bots filling the empty seats only if every seated player agreed); players may leave
until then. docs/matchmaking.md.

Lock contract (after ``locking``'s): the asking player's user row first (one player's asks queue:
the limit on waiting seats holds), then, on PostgreSQL, one transaction-level advisory lock per
kind asked for, in order (two seekers of a kind do not both open a half-empty table), then a
table's ``Game`` row (no table goes over its size; leaving, starting and the sweep take this one
lock). The database holds one waiting seat per player and kind whatever a writer forgets
(``TableWish``'s constraint).
"""

from __future__ import annotations

import secrets
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.relations import apart_ids
from games.engine.cards import PLAYERS, VARIANTS
from games.models import FormingTable, Game, Notice, Seat, TableWish
from games.models.matchmaking import DAILY_AT, PACE_NAMES, PACES
from games.outbox import sending
from games.read import stats

from .errors import ServiceError
from .lobby import _deal, in_language_of, server_seeds
from .locking import lock_game, touch

START_AFTER = timedelta(hours=24)  # a table starts this long after its first seat, or when full
MAX_POSTPONED = 6  # a table still short of players a week after its first start time closes
MAX_FORMING_SEATS = 3  # forming tables one player sits at, at most
MAX_ASKS_PER_HOUR = 30  # wishes one player states (each a seat taken), counted in the database
CANDIDATES = 5  # fitting tables tried in turn before opening one (each may fill meanwhile)


def kind_of(ruleset: str, pace: str) -> str:
    return f"{ruleset}|{pace}"


@dataclass(frozen=True)
class Wish:
    """What a player asks for: any of ``rulesets``, a table of ``min_players`` to
    ``max_players`` seats, at ``pace``, in any of ``languages``; the table's ``variants`` (base
    game only); the reliability, in percent, every other player must have; whether bots may fill
    the empty seats at the start time."""

    rulesets: tuple[str, ...]
    min_players: int
    max_players: int
    pace: str
    languages: tuple[str, ...]
    variants: tuple[str, ...] = ()
    min_reliability: int | None = None
    bots_ok: bool = False


def check_wish(wish: Wish) -> None:
    """Refuse an impossible wish with a clear message (nothing is written before)."""
    if not wish.rulesets or any(r not in PLAYERS for r in wish.rulesets):
        raise ServiceError(_("Unknown rule set."), code="bad-wish")
    if len(set(wish.rulesets)) != len(wish.rulesets):
        raise ServiceError(_("Unknown rule set."), code="bad-wish")
    if type(wish.min_players) is not int or type(wish.max_players) is not int:
        raise ServiceError(_("The number of players is a whole number."), code="bad-wish")
    if wish.min_players > wish.max_players:
        raise ServiceError(
            _("The fewest players cannot be more than the most players."), code="bad-wish"
        )
    for ruleset in wish.rulesets:
        low, high = PLAYERS[ruleset]
        if wish.min_players < low or wish.max_players > high:
            raise ServiceError(
                _("%(ruleset)s is for %(low)d to %(high)d players.")
                % {"ruleset": Game.Ruleset(ruleset).label, "low": low, "high": high},
                code="bad-wish",
            )
    if wish.pace not in PACES:
        raise ServiceError(_("Please choose a pace from the list."), code="bad-wish")
    known = {code for code, _name in settings.LANGUAGES}
    if not wish.languages or any(lang not in known for lang in wish.languages):
        raise ServiceError(_("Please choose the table's languages from the list."), code="bad-wish")
    if any(v not in VARIANTS for v in wish.variants) or (
        wish.variants and set(wish.rulesets) != {Game.Ruleset.BASE}
    ):
        raise ServiceError(_("Variants belong to the base game."), code="bad-wish")
    if wish.min_reliability is not None and (
        type(wish.min_reliability) is not int or not 1 <= wish.min_reliability <= 100
    ):
        raise ServiceError(
            _("The minimum reliability is a percentage from 1 to 100."), code="bad-wish"
        )


def seek(*, user, wish: Wish, now: datetime | None = None) -> TableWish:
    """Seat ``user`` at a forming table that fits ``wish``, or open one; returns their wish row
    (its ``table`` says where they sit). A full table starts at once."""
    check_wish(wish)
    now = now or timezone.now()
    with transaction.atomic():
        me = get_user_model().objects.select_for_update().get(pk=user.pk)
        if not me.is_active or me.is_bot:
            raise ServiceError(_("This account cannot be seated."), code="not-allowed")
        _check_asking_rate(me, now)
        # A table the moderators stopped (its players were told) no longer holds its seats.
        TableWish.objects.filter(user=me, waiting=True).exclude(
            table__game__status=Game.Status.LOBBY
        ).update(waiting=False, ended_at=now)
        held = set(TableWish.objects.filter(user=me, waiting=True).values_list("kind", flat=True))
        if len(held) >= MAX_FORMING_SEATS:
            raise ServiceError(
                ngettext(
                    "You already wait at %(count)d table; leave one before asking again.",
                    "You already wait at %(count)d tables; leave one before asking again.",
                    MAX_FORMING_SEATS,
                )
                % {"count": MAX_FORMING_SEATS},
                code="too-many-seats",
            )
        kinds = [kind_of(r, wish.pace) for r in wish.rulesets if kind_of(r, wish.pace) not in held]
        if not kinds:
            raise ServiceError(
                _("You already wait at a table of this kind."), code="already-waiting"
            )
        _lock_kinds(kinds)
        apart = apart_ids(me)
        mine = stats.reliability(me).percent
        for table in _candidates(wish, kinds, apart, mine):
            seated = _sit_if_still_fits(table.pk, me, wish, apart, now)
            if seated is not None:
                return seated
        return _open(me, wish, kinds[0], now)


def _check_asking_rate(user, now: datetime) -> None:
    asked = TableWish.objects.filter(user=user, created_at__gte=now - timedelta(hours=1)).count()
    if asked >= MAX_ASKS_PER_HOUR:
        raise ServiceError(
            _("You have asked for a table too often in the last hour; please wait a while."),
            code="rate-limited",
        )


def _lock_kinds(kinds: Iterable[str]) -> None:
    """One advisory lock per kind, in order, until the transaction ends (PostgreSQL only: other
    databases seat correctly without it, only sometimes open a table where one would do)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for kind in sorted(kinds):
            # One 64-bit key: this module's number above the kind's CRC-32 (unsigned, 32 bits).
            key = (52 << 32) | zlib.crc32(kind.encode())
            cursor.execute("SELECT pg_advisory_xact_lock(%s::bigint)", [key])


def _candidates(wish: Wish, kinds: list[str], apart: set[int], mine: int | None):
    """The forming tables that fit, fullest first, then the oldest (one query)."""
    tables = FormingTable.objects.filter(
        state=FormingTable.State.FORMING,
        kind__in=kinds,
        language__in=wish.languages,
        game__status=Game.Status.LOBBY,
        game__max_seats__gte=wish.min_players,
        game__max_seats__lte=wish.max_players,
        game__variants=list(wish.variants),
    )
    if wish.min_reliability is not None:
        tables = tables.filter(game__min_reliability__gte=wish.min_reliability)
    if mine is not None:
        tables = tables.filter(
            Q(game__min_reliability__isnull=True) | Q(game__min_reliability__lte=mine)
        )
    if apart:
        tables = tables.exclude(game__seats__user_id__in=apart)
    tables = tables.annotate(seated=Count("game__seats")).filter(seated__lt=F("game__max_seats"))
    return list(tables.order_by("-seated", "start_at", "pk")[:CANDIDATES])


def _sit_if_still_fits(
    table_id: int, user, wish: Wish, apart: set[int], now: datetime
) -> TableWish | None:
    """Under the table's game row lock, seat ``user`` if the table still forms, has a free seat
    and seats no one kept apart from them; else None (the next candidate)."""
    table = FormingTable.objects.get(pk=table_id)
    game = lock_game(table.game_id)
    table.refresh_from_db()
    if table.state != FormingTable.State.FORMING or game.status != Game.Status.LOBBY:
        return None
    seats = list(game.seats.all())
    if len(seats) >= game.max_seats or any(seat.user_id in apart for seat in seats):
        return None
    Seat.objects.create(game=game, user=user)
    row = _wish_row(user, table, wish)
    table.min_players = max(table.min_players, wish.min_players)
    table.save(update_fields=["min_players"])
    touch(game)
    if len(seats) + 1 >= game.max_seats:
        _start(table, game, now)
    return row


def _wish_row(user, table: FormingTable, wish: Wish) -> TableWish:
    return TableWish.objects.create(
        user=user,
        table=table,
        kind=table.kind,
        rulesets=list(wish.rulesets),
        min_players=wish.min_players,
        max_players=wish.max_players,
        languages=list(wish.languages),
        variants=list(wish.variants),
        min_reliability=wish.min_reliability,
        bots_ok=wish.bots_ok,
    )


def _open(user, wish: Wish, kind: str, now: datetime) -> TableWish:
    """A new forming table of ``kind`` for ``wish``, ``user`` in its first seat."""
    ruleset, pace = kind.split("|")
    language = user.language if user.language in wish.languages else wish.languages[0]
    with in_language_of(user):
        name = _("Play now: %(ruleset)s, %(pace)s") % {
            "ruleset": Game.Ruleset(ruleset).label,
            "pace": PACE_NAMES[pace],
        }
    turn_limit = PACES[pace]
    game = Game.objects.create(
        name=name[:80],
        ruleset=ruleset,
        variants=list(wish.variants),
        max_seats=wish.max_players,
        visibility=Game.Visibility.INVITE,  # seated by the site, never joined from the lobby
        creator=user,
        min_reliability=wish.min_reliability,
        clock_zone="UTC",
        daily_at=DAILY_AT if turn_limit is None else None,
        server_seeds=server_seeds(3),
        **({"turn_limit": turn_limit} if turn_limit is not None else {}),
    )
    Seat.objects.create(game=game, user=user)
    table = FormingTable.objects.create(
        game=game,
        kind=kind,
        pace=pace,
        language=language,
        min_players=max(PLAYERS[ruleset][0], wish.min_players),
        start_at=now + START_AFTER,
    )
    return _wish_row(user, table, wish)


def leave(*, user, table_id: int, now: datetime | None = None) -> None:
    """``user`` leaves a forming table (until it starts); the last to leave closes it."""
    now = now or timezone.now()
    with transaction.atomic():
        table = FormingTable.objects.filter(pk=table_id).first()
        if table is None:
            raise ServiceError(_("You do not wait at this table."), code="not-seated")
        game = lock_game(table.game_id)
        table.refresh_from_db()
        row = table.wishes.filter(user=user, waiting=True).first()
        if row is None:
            raise ServiceError(_("You do not wait at this table."), code="not-seated")
        if table.state != FormingTable.State.FORMING or game.status != Game.Status.LOBBY:
            raise ServiceError(_("This table has already started."), code="started")
        _unseat(table, game, [row], now)
        touch(game)


def _unseat(table: FormingTable, game: Game, rows: list[TableWish], now: datetime) -> None:
    """Take these waiting players off the table (the caller holds the game's row lock); a table
    left empty closes."""
    users = [row.user_id for row in rows]
    game.seats.filter(user_id__in=users).delete()
    TableWish.objects.filter(pk__in=[row.pk for row in rows]).update(waiting=False, ended_at=now)
    left = list(table.wishes.filter(waiting=True))
    if not left:
        _close(table, game, now)
        return
    table.min_players = max([PLAYERS[game.ruleset][0], *(row.min_players for row in left)])
    table.save(update_fields=["min_players"])
    if game.creator_id in users:
        game.creator_id = left[0].user_id
        game.save(update_fields=["creator"])


def _close(table: FormingTable, game: Game, now: datetime) -> None:
    table.state = FormingTable.State.CLOSED
    table.ended_at = now
    table.save(update_fields=["state", "ended_at"])
    table.wishes.filter(waiting=True).update(waiting=False, ended_at=now)
    if game.status == Game.Status.LOBBY:
        game.status = Game.Status.ABORTED
        game.finished_at = now
        game.save(update_fields=["status", "finished_at"])


def _start(table: FormingTable, game: Game, now: datetime, *, bots: bool = False) -> None:
    """Start the table's game with its seats (and bots in the empty ones when ``bots``): the
    lobby's deal, which tells every seated player (one email and push each, in their
    language)."""
    seats = list(game.seats.all())
    if bots:
        free = game.max_seats - len(seats)
        seats += Seat.objects.bulk_create(
            Seat(game=game, bot=number, seed=secrets.token_hex(16)) for number in range(1, free + 1)
        )
    _deal(game, seats)
    table.state = FormingTable.State.STARTED
    table.ended_at = now
    table.save(update_fields=["state", "ended_at"])
    table.wishes.filter(waiting=True).update(waiting=False, ended_at=now)


def cancel(*, table_id: int, now: datetime | None = None) -> bool:
    """The admins close a forming table (its players are told, as when it closes unfilled);
    False if it had started or closed already."""
    now = now or timezone.now()
    with transaction.atomic():
        table = FormingTable.objects.get(pk=table_id)
        game = lock_game(table.game_id)
        table.refresh_from_db()
        if table.state != FormingTable.State.FORMING:
            return False
        rows = list(table.wishes.filter(waiting=True))
        _close(table, game, now)
        _tell(table, game, rows, now, closed=True)
        touch(game)
        return True


def forming_due(now: datetime) -> int:
    """The sweep's part: every forming table whose start time has come starts, or waits longer
    with a new time, or closes; every player seated there is told which. Returns how many."""
    due = FormingTable.objects.filter(state=FormingTable.State.FORMING, start_at__lte=now)
    done = 0
    for table_id in due.values_list("pk", flat=True):
        with transaction.atomic():
            table = FormingTable.objects.get(pk=table_id)
            game = lock_game(table.game_id)
            table.refresh_from_db()
            if table.state == FormingTable.State.FORMING and table.start_at <= now:
                _at_start_time(table, game, now)
                done += 1
    return done


def _at_start_time(table: FormingTable, game: Game, now: datetime) -> None:
    rows = list(table.wishes.filter(waiting=True).select_related("user"))
    if game.status != Game.Status.LOBBY:  # the moderators stopped it meanwhile
        _close(table, game, now)
        return
    gone = [row for row in rows if not row.user.is_active]  # banned or deactivated since
    if gone:
        _unseat(table, game, gone, now)  # closes the table when no one is left
        rows = [row for row in rows if row.user.is_active]
    if not rows:  # no one waits any more (accounts deleted): never a table of bots alone
        _close(table, game, now)
        return
    if all(row.bots_ok for row in rows):
        _start(table, game, now, bots=True)
    elif len(rows) >= table.min_players:
        _start(table, game, now)
    elif table.postponed >= MAX_POSTPONED:
        _close(table, game, now)
        _tell(table, game, rows, now, closed=True)
    else:
        table.postponed += 1
        table.start_at += START_AFTER
        table.save(update_fields=["postponed", "start_at"])
        _tell(table, game, rows, now, closed=False)
    touch(game)


def _tell(
    table: FormingTable, game: Game, rows: list[TableWish], now: datetime, *, closed: bool
) -> None:
    """One notice per waiting player: the table waits longer (its new start time), or closed."""
    notices = [
        Notice(
            key=f"forming:{table.pk}:{table.postponed}:{'closed' if closed else 'later'}:"
            f"{row.user_id}",
            kind=Notice.Kind.FORMING,
            user_id=row.user_id,
            game=game,
            due_at=now,
            data={
                "closed": closed,
                "start_at": table.start_at.isoformat(),
                "seated": len(rows),
                "needed": table.min_players,
            },
        )
        for row in rows
    ]
    Notice.objects.bulk_create(notices, ignore_conflicts=True)
    sending.enqueue_after_commit(notices)
