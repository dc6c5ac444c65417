"""Creating, joining, leaving and starting games, and invitations (with their flood limits)."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence
from datetime import time as dt_time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.zones import zone_names
from games import engine
from games.engine import fairness
from games.engine.cards import PLAYERS, VARIANTS
from games.models import (
    MAX_BANK,
    MAX_TURN_LIMIT,
    MIN_TURN_LIMIT,
    FormingTable,
    Game,
    Invitation,
    Notice,
    Seat,
)
from games.outbox import schedule, sending
from games.read import stats
from saboteur_site.text import has_line_breaks

from .errors import ServiceError
from .locking import lock_game, player_seat, touch
from .moves import store

# Flood limits (README, "Rate limits"): counted in the database, so every process agrees.
HOUR, DAY = timedelta(hours=1), timedelta(days=1)

MAX_GAMES_PER_HOUR = 10  # games one player creates

MAX_INVITATIONS_PER_SENDER_PER_HOUR = 20  # across all their games

MAX_INVITATIONS_PER_ADDRESS_PER_DAY = 3  # to one address, from anyone, across all games

GAME_NAME_ONE_LINE = gettext_lazy(
    "A game's name must be one line, without control characters; it is used in email subjects."
)

# A table formed by "Play now" (games/play/matchmaking.py) seats, lets leave and starts through
# it alone: its invariants (who is kept apart, one seat per kind) hold there.
_PLAY_NOW_ONLY = gettext_lazy(
    "The site seats the players of this table (Play now): join or leave it from the Play now page."
)

GAME_ROUNDS = (1, 2, 3)  # 3 is the rulebook's game; docs/rules.md D25: shorter ones too

# A player's own seed for the deals (docs/fairness.md): their browser makes 32 hex digits; a
# player may type their own. No "|": the algorithm joins the seeds with it.
SEED = re.compile(r"[A-Za-z0-9_-]{1,64}")


def server_seeds(rounds: int) -> list[str]:
    """A new game's committed seeds (docs/fairness.md): round 0's, then one per round."""
    return [secrets.token_hex(32) for _ in range(rounds + 1)]


def game_create(
    *,
    creator,
    name: str,
    ruleset: str,
    max_seats: int,
    variants: Sequence[str] = (),
    visibility: str = Game.Visibility.OPEN,
    turn_limit=None,
    rounds: int = 3,
    bot_stand_ins: bool = False,
    min_reliability: int | None = None,
    clock_zone: str = "",
    weekends_off: bool = False,
    daily_at=None,
    bank=None,
    vacations_pause: bool = True,
    allows_bots: bool = False,
    bots_rated_with_people: bool = False,
) -> Game:
    """Create a game in its lobby with the creator seated (``bot_stand_ins``: a bot plays for
    absent players instead of the safe default move; ``min_reliability``: the reliability, in
    percent, a player needs to join, None for anyone).

    The clock (``games.clock``): ``clock_zone`` (the creator's time zone when empty) is where
    ``weekends_off`` stops the clocks on Saturdays and Sundays and where ``daily_at``, a time of
    day, ends every decision instead of the time per turn; ``bank`` is each seat's time bank;
    ``vacations_pause``: a player's vacation stops their clock (else a stand-in bot plays for
    them when ``bot_stand_ins``, or their clock runs)."""
    variants = list(variants)
    _check_table(name=name, ruleset=ruleset, max_seats=max_seats, variants=variants)
    _check_creation_rate(creator)
    _check_pace(turn_limit=turn_limit, rounds=rounds, min_reliability=min_reliability)
    clock_zone = clock_zone or creator.time_zone or "UTC"
    bank = bank if bank is not None else timedelta(0)
    _check_clock(clock_zone=clock_zone, bank=bank, daily_at=daily_at)
    if not name.strip():
        with in_language_of(creator):
            name = _("Saboteur game")
    with transaction.atomic():
        game = Game.objects.create(
            name=name.strip(),
            ruleset=ruleset,
            variants=variants,
            max_seats=max_seats,
            visibility=visibility,
            rounds=rounds,
            creator=creator,
            bot_stand_ins=bot_stand_ins,
            min_reliability=min_reliability,
            clock_zone=clock_zone,
            weekends_off=bool(weekends_off),
            daily_at=daily_at.replace(second=0, microsecond=0) if daily_at else None,
            bank=bank,
            vacations_pause=bool(vacations_pause),
            # A bot account's own table is one for bots.
            allows_bots=bool(allows_bots) or bool(creator.is_bot),
            bots_rated_with_people=bool(bots_rated_with_people),
            # Drawn now, before anyone (the creator included) gives a seed of their own: the
            # site cannot choose its seeds knowing the players'. Only their commitments show.
            server_seeds=server_seeds(rounds),
            **({"turn_limit": turn_limit} if turn_limit is not None else {}),
        )
        Seat.objects.create(game=game, user=creator)
    return game


def _check_table(*, name: str, ruleset: str, max_seats: int, variants: list[str]) -> None:
    """Refuse an unknown rule set, a number of seats it does not allow, variants outside the
    base game, and a name of more than one line."""
    if ruleset not in PLAYERS:
        raise ServiceError(_("Unknown rule set."))
    low, high = PLAYERS[ruleset]
    if not low <= max_seats <= high:
        raise ServiceError(
            _("This rule set is for %(low)d to %(high)d players.") % {"low": low, "high": high}
        )
    if any(v not in VARIANTS for v in variants) or (variants and ruleset != Game.Ruleset.BASE):
        raise ServiceError(_("Variants belong to the base game."))
    if has_line_breaks(name):
        raise ServiceError(str(GAME_NAME_ONE_LINE))


def _check_creation_rate(creator) -> None:
    """Refuse a creator's game beyond ``MAX_GAMES_PER_HOUR``."""
    recent = Game.objects.filter(creator=creator, created_at__gte=timezone.now() - HOUR)
    if recent.count() >= MAX_GAMES_PER_HOUR:
        raise ServiceError(
            ngettext(
                "You have created %(count)d game in the last hour; please wait a while.",
                "You have created %(count)d games in the last hour; please wait a while.",
                MAX_GAMES_PER_HOUR,
            )
            % {"count": MAX_GAMES_PER_HOUR},
            code="rate-limited",
        )


def _check_pace(*, turn_limit, rounds, min_reliability) -> None:
    """Refuse a time per turn outside its bounds, a number of rounds other than 1, 2 or 3, and
    a minimum reliability that is not a percentage."""
    if turn_limit is not None and not MIN_TURN_LIMIT <= turn_limit <= MAX_TURN_LIMIT:
        raise ServiceError(_("The time per turn must be between one hour and seven days."))
    if type(rounds) is not int or rounds not in GAME_ROUNDS:
        raise ServiceError(_("A game is 1, 2 or 3 rounds."))
    if min_reliability is not None and (
        type(min_reliability) is not int or not 1 <= min_reliability <= 100
    ):
        raise ServiceError(_("The minimum reliability is a percentage from 1 to 100."))


def _check_clock(*, clock_zone: str, bank, daily_at) -> None:
    """Refuse a time zone not in the list, a time bank outside none to seven days, and a daily
    deadline that is not a time of day."""
    if clock_zone not in zone_names():
        raise ServiceError(_("Please choose a time zone from the list."))
    if not isinstance(bank, timedelta) or not timedelta(0) <= bank <= MAX_BANK:
        raise ServiceError(_("A time bank is between none and seven days."))
    if daily_at is not None and not isinstance(daily_at, dt_time):
        raise ServiceError(_("A daily deadline is a time of day."))


def in_language_of(user):
    """A name the site makes for a player's game is stored, so it is said in that player's
    language (their profile's; else the request's), whatever language is active where the game
    is made (a script, a task, another player's request) (issue 50)."""
    return translation.override(user.language or translation.get_language())


PRACTICE_BOTS = (2, 11)


def practice_bots_range(ruleset: str) -> tuple[int, int]:
    """How many bots a practice game of this rule set may have (2 to 11, within its seats)."""
    low, high = PLAYERS[ruleset]
    return max(PRACTICE_BOTS[0], low - 1), min(PRACTICE_BOTS[1], high - 1)


def practice_create(
    *, creator, ruleset: str, bots: int, variants: Sequence[str] = (), rounds: int = 3
) -> Game:
    """A game against ``bots`` bots that starts at once (by invite only, out of the statistics)."""
    if ruleset not in PLAYERS:
        raise ServiceError(_("Unknown rule set."))
    low, high = practice_bots_range(ruleset)
    if not low <= bots <= high:
        raise ServiceError(_("Practice with %(low)d to %(high)d bots.") % locals())
    with transaction.atomic():
        # Each practice game its own name ("Practice 3 against bots"), to tell them apart in
        # the lists and emails.
        number = Game.objects.filter(creator=creator, practice=True).count() + 1
        with in_language_of(creator):
            name = _("Practice %(number)d against bots") % {"number": number}
        game = game_create(
            creator=creator,
            name=name,
            ruleset=ruleset,
            max_seats=bots + 1,
            variants=variants,
            visibility=Game.Visibility.INVITE,
            rounds=rounds,
        )
        game.practice = True
        game.save(update_fields=["practice"])
        Seat.objects.bulk_create(
            Seat(game=game, bot=number, seed=secrets.token_hex(16)) for number in range(1, bots + 1)
        )
        return game_start(game_id=game.pk, user=creator)


def game_rematch(*, game_id: int, user) -> Game:
    """ "Play again with this table": one new game per finished game (issue 50). The first of
    its players to ask makes a game like it, by invitation, with themselves seated and every
    other person of the table invited (an email with a link to join in one click); every open
    page of the finished game is then offered it at once (its revision grows: the live update).
    Whoever asks after joins that game, or gets it again when already in it (a double click), or
    is told why not: it has started without them, or is full. A practice game is played again
    against as many bots, at once.

    Lock contract: the finished game's row first, then (joining) the new game's, in that order
    only; the row lock makes presses at once wait for each other, and the unique ``rematch_of``
    (``Game.Meta.constraints``) holds it in the database whatever a writer forgets."""
    with transaction.atomic():
        game = lock_game(game_id)
        player_seat(game, user)
        if game.status != Game.Status.FINISHED:
            raise ServiceError(_("This game is not over yet."))
        again = game.rematches.first()
        if again is None:
            again = _rematch_create(game, user)
            touch(game)  # the finished game's open pages are offered it (games/read/rematch.py)
            return again
        if again.seats.filter(user=user).live().exists():
            return again
        if again.status != Game.Status.LOBBY:
            raise ServiceError(
                _("The new game with this table has started without you."), code="rematch-closed"
            )
        if again.seats.count() >= again.max_seats:
            raise ServiceError(_("The new game with this table is full."), code="rematch-closed")
        seat_join(game_id=again.pk, user=user)
        again.refresh_from_db()
        return again


def _rematch_create(game: Game, user) -> Game:
    """The new game like ``game`` (the caller holds its row lock), its players invited."""
    if game.practice:
        bots = game.seats.filter(bot__isnull=False).count()
        again = practice_create(
            creator=user,
            ruleset=game.ruleset,
            bots=bots,
            variants=game.variants,
            rounds=game.rounds,
        )
    else:
        again = game_create(
            creator=user,
            name=game.name,
            ruleset=game.ruleset,
            max_seats=game.seats.live().count(),
            variants=game.variants,
            visibility=Game.Visibility.INVITE,
            turn_limit=game.turn_limit,
            rounds=game.rounds,
            bot_stand_ins=game.bot_stand_ins,
            clock_zone=game.clock_zone,
            weekends_off=game.weekends_off,
            daily_at=game.daily_at,
            bank=game.bank,
            vacations_pause=game.vacations_pause,
            allows_bots=game.allows_bots,
            bots_rated_with_people=game.bots_rated_with_people,
        )
    again.rematch_of = game
    again.save(update_fields=["rematch_of"])
    for other in _table(game).exclude(pk=user.pk):
        if not other.email:
            continue
        try:
            with transaction.atomic():
                invitation_send(game_id=again.pk, user=user, email=other.email)
        except ServiceError as refused:
            if refused.code != "rate-limited":
                raise
            # Too many invitations by this player this hour: the offer on the finished
            # game's page still reaches them.
    return again


def _table(game: Game):
    """The people who played ``game`` to its end (not the seats they handed over)."""
    return (
        get_user_model()
        .objects.filter(seats__game=game, seats__state__in=[Seat.State.ACTIVE, Seat.State.ABSENT])
        .distinct()
    )


def _start_when_the_table_is_back(game: Game) -> None:
    """A new game made with "Play again" starts by itself once every person of the finished
    table has joined it (the caller holds its row lock, in the lobby); its creator may still
    start it before, as any game."""
    if game.rematch_of_id is None:
        return
    table = set(
        Seat.objects.filter(game_id=game.rematch_of_id, user__isnull=False)
        .live()
        .values_list("user_id", flat=True)
    )
    seats = list(game.seats.all())
    if table <= {seat.user_id for seat in seats} and len(seats) >= PLAYERS[game.ruleset][0]:
        _deal(game, seats)


def seat_join(*, game_id: int, user) -> Seat:
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."))
        if FormingTable.objects.filter(game=game).exists():
            raise ServiceError(str(_PLAY_NOW_ONLY), code="play-now")
        existing = game.seats.filter(user=user).live().first()
        if existing:
            return existing
        if game.seats.count() >= game.max_seats:
            raise ServiceError(_("This game is full."))
        if user.is_bot and not game.allows_bots:
            raise ServiceError(
                _("This game's creator does not allow bot accounts."), code="no-bots"
            )
        if game.min_reliability is not None:
            mine = stats.reliability(user).percent
            # Nothing known yet (no game in the last 90 days) is no reason to keep a player out.
            if mine is not None and mine < game.min_reliability:
                raise ServiceError(
                    _(
                        "This game's creator asks for a reliability of at least %(minimum)d %%; "
                        "yours is %(yours)d %% (your player page shows how it is counted)."
                    )
                    % {"minimum": game.min_reliability, "yours": mine},
                    code="unreliable",
                )
        touch(game)
        seat = Seat.objects.create(game=game, user=user)
        _start_when_the_table_is_back(game)
        return seat


def seat_leave(*, game_id: int, user) -> None:
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("You can only leave a game before it starts."))
        if FormingTable.objects.filter(game=game).exists():
            raise ServiceError(str(_PLAY_NOW_ONLY), code="play-now")
        if game.creator_id == user.pk:
            raise ServiceError(_("The creator cannot leave; delete the game instead."))
        game.seats.filter(user=user).delete()
        touch(game)


def seat_seed(*, game_id: int, user, seed: str) -> Seat:
    """``user``'s own seed for the game's deals, until the game starts (docs/fairness.md)."""
    seed = seed.strip()
    if not SEED.fullmatch(seed):
        raise ServiceError(
            _("A seed is 1 to 64 letters, digits, hyphens or underscores."), code="bad-seed"
        )
    with transaction.atomic():
        game = lock_game(game_id)
        seat = player_seat(game, user)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("The seeds are fixed: the game has started."), code="started")
        seat.seed = seed
        seat.save(update_fields=["seed"])
        touch(game)  # every open lobby shows the seats' seeds
        return seat


def game_start(*, game_id: int, user) -> Game:
    """Fix the players' seeds, seat the players and deal round 1, all from the seeds
    (``fairness.game_seeds``: the game's committed seeds and the players' own)."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game.creator_id != user.pk:
            raise ServiceError(_("Only the game's creator can start it."))
        if FormingTable.objects.filter(game=game).exists():
            raise ServiceError(str(_PLAY_NOW_ONLY), code="play-now")
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."))
        seats = list(game.seats.all())
        low, _high = PLAYERS[game.ruleset]
        if len(seats) < low:
            raise ServiceError(
                ngettext(
                    "At least %(low)d player is needed.",
                    "At least %(low)d players are needed.",
                    low,
                )
                % {"low": low}
            )
        _deal(game, seats)
    return game


def _deal(game: Game, seats: list[Seat]) -> None:
    """Start ``game`` with these ``seats``, all of it (the caller holds its row lock; in the
    lobby, enough players)."""
    seats.sort(key=lambda seat: (seat.joined_at, seat.pk))  # the order they joined
    for seat in seats:
        seat.seed = seat.seed or secrets.token_hex(16)  # no browser gave one: the site's
    if len(game.server_seeds) < game.rounds + 1:  # a game created before deals were checkable
        game.server_seeds = server_seeds(game.rounds)
    seating, seeds = fairness.game_seeds(
        [bytes.fromhex(seed) for seed in game.server_seeds],
        game.pk,
        [seat.seed for seat in seats],
    )
    game.joined_seeds = [[seat.pk, seat.seed] for seat in seats]
    seats = [seats[index] for index in seating]
    for position, seat in enumerate(seats):
        seat.position = position
        seat.bank_left = game.bank  # each seat's time bank, spent past the turn's limit
        seat.save(update_fields=["position", "bank_left", "seed"])
    state = engine.new_game(
        ruleset=game.ruleset,
        seats=[seat.engine_name for seat in seats],
        variants=game.variants,
        rounds=game.rounds,
        round_seeds=[seed.hex() for seed in seeds[1 : game.rounds + 1]],
        gold_seed=seeds[fairness.GAME_ROUND].hex(),
    )
    game.status = Game.Status.RUNNING
    game.started_at = timezone.now()
    store(game, state, game.started_at)
    sending.enqueue_after_commit(schedule.notices_for_start(game=game, now=game.started_at))


MAX_INVITATIONS = 30  # per game: enough for friends, too few for spam


def invitation_send(*, game_id: int, user, email: str) -> Invitation:
    """Email the game's invite link (once per address); only a seated player may invite."""
    with transaction.atomic():
        game = lock_game(game_id)
        player_seat(game, user)
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."))
        email = email.strip().lower()
        existing = game.invitations.filter(email=email).first()
        if existing:
            return existing
        if game.invitations.count() >= MAX_INVITATIONS:
            raise ServiceError(_("This game has sent enough invitations."))
        # The sender's row serialises their invitations from all games (after the game row:
        # the lock order), so two at once cannot both slip under the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        now = timezone.now()
        sent = Invitation.objects.filter(invited_by=user, created_at__gte=now - HOUR)
        if sent.count() >= MAX_INVITATIONS_PER_SENDER_PER_HOUR:
            raise ServiceError(
                ngettext(
                    "You have sent %(count)d invitation in the last hour; please wait a while.",
                    "You have sent %(count)d invitations in the last hour; please wait a while.",
                    MAX_INVITATIONS_PER_SENDER_PER_HOUR,
                )
                % {"count": MAX_INVITATIONS_PER_SENDER_PER_HOUR},
                code="rate-limited",
            )
        received = Invitation.objects.filter(email=email, created_at__gte=now - DAY)
        if received.count() >= MAX_INVITATIONS_PER_ADDRESS_PER_DAY:
            raise ServiceError(
                _("This address has had enough invitations today; please try again tomorrow."),
                code="rate-limited",
            )
        invitation = Invitation.objects.create(game=game, email=email, invited_by=user)
        notice = Notice.objects.create(
            key=f"invitation:{game.pk}:{hashlib.sha256(email.encode()).hexdigest()}",
            kind=Notice.Kind.INVITATION,
            email=email,
            game=game,
            due_at=timezone.now(),
            data={"inviter": user.display_name},
        )
        sending.enqueue_after_commit([notice])
        return invitation
