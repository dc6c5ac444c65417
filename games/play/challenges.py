"""Challenges between friends (issue 52): a player challenges friends to a game with their own
settings; each gets one email (and push) with a page to accept in one click or refuse; a
refusal or an expiry is told to the challenger; once every challenged friend has answered, the
game starts by itself with those who accepted (when they are enough for its rule set).

Only friends (players who follow each other: ``accounts.relations.friend_ids``) may be
challenged, never a player kept apart by a block, never an inactive (banned) one.

Lock contract: the challenger's user row first (their challenges count against the hourly
limit), then the game's row (``lobby.game_create``; answering locks the game row only).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.relations import apart_ids, friend_ids
from games.engine.cards import PLAYERS
from games.models import Challenge, Game, Notice, Seat
from games.models.challenges import CHALLENGE_LIFETIME
from games.models.matchmaking import DAILY_AT, PACE_NAMES, PACES
from games.outbox import sending

from .errors import ServiceError
from .lobby import _deal, game_create, in_language_of
from .locking import lock_game, touch

MAX_CHALLENGED = 11  # friends in one challenge (the largest table, less the challenger)
MAX_CHALLENGES_PER_HOUR = 20  # challenged friends, over all of a player's challenges


def challenge_send(
    *,
    challenger,
    friends: Sequence[int],
    ruleset: str,
    pace: str,
    rounds: int = 3,
    variants: Sequence[str] = (),
    now: datetime | None = None,
) -> Game:
    """A game by invitation with ``challenger`` seated and a challenge to each of ``friends``
    (user ids), each told once."""
    now = now or timezone.now()
    friends = list(dict.fromkeys(friends))
    if not friends:
        raise ServiceError(_("Choose at least one friend to challenge."), code="bad-challenge")
    if len(friends) > MAX_CHALLENGED:
        raise ServiceError(_("Too many friends for one table."), code="bad-challenge")
    if ruleset not in PLAYERS:
        raise ServiceError(_("Unknown rule set."), code="bad-challenge")
    low, high = PLAYERS[ruleset]
    if not low <= len(friends) + 1 <= high:
        raise ServiceError(
            _("%(ruleset)s is for %(low)d to %(high)d players: challenge %(fewest)d to %(most)d "
              "friends.")
            % {"ruleset": Game.Ruleset(ruleset).label, "low": low, "high": high,
               "fewest": low - 1, "most": high - 1},
            code="bad-challenge",
        )  # fmt: skip
    if pace not in PACES:
        raise ServiceError(_("Please choose a pace from the list."), code="bad-challenge")
    with transaction.atomic():
        me = get_user_model().objects.select_for_update().get(pk=challenger.pk)
        allowed = friend_ids(me) - apart_ids(me)
        users = list(get_user_model().objects.filter(pk__in=friends, is_active=True))
        if len(users) != len(friends) or any(user.pk not in allowed for user in users):
            raise ServiceError(_("You can only challenge your friends."), code="not-friends")
        _check_rate(me, len(users), now)
        with in_language_of(me):
            name = _("%(name)s's challenge") % {"name": me.display_name}
        turn_limit = PACES[pace]
        game = game_create(
            creator=me,
            name=name[:80],
            ruleset=ruleset,
            max_seats=len(users) + 1,
            variants=variants,
            visibility=Game.Visibility.INVITE,
            rounds=rounds,
            turn_limit=turn_limit,
            daily_at=DAILY_AT if turn_limit is None else None,
            clock_zone="UTC",  # "every day at 20:00 UTC", as the pace says
        )
        notices = []
        for user in users:
            challenge = Challenge.objects.create(
                game=game,
                challenger=me,
                challenged=user,
                pace=pace,
                expires_at=now + CHALLENGE_LIFETIME,
            )
            notices.append(
                Notice(
                    key=f"challenge:{challenge.pk}",
                    kind=Notice.Kind.CHALLENGE,
                    user=user,
                    game=game,
                    due_at=now,
                    data={"challenge": challenge.pk},
                )
            )
        Notice.objects.bulk_create(notices)
        sending.enqueue_after_commit(notices)
        return game


def _check_rate(user, count: int, now: datetime) -> None:
    sent = Challenge.objects.filter(challenger=user, created_at__gte=now - timedelta(hours=1))
    if sent.count() + count > MAX_CHALLENGES_PER_HOUR:
        raise ServiceError(
            ngettext(
                "You may challenge %(count)d friend an hour; please wait a while.",
                "You may challenge %(count)d friends an hour; please wait a while.",
                MAX_CHALLENGES_PER_HOUR,
            )
            % {"count": MAX_CHALLENGES_PER_HOUR},
            code="rate-limited",
        )


def challenge_for(user, token: str) -> Challenge | None:
    """The challenge this link names, if it was sent to ``user`` (anyone else: None)."""
    return (
        Challenge.objects.filter(token=token, challenged=user)
        .select_related("game", "challenger")
        .first()
    )


def challenge_answer(*, user, token: str, accept: bool, now: datetime | None = None) -> Challenge:
    """``user`` accepts (takes their seat) or refuses (the challenger is told) a challenge; a
    second click with the same answer is the first one's."""
    now = now or timezone.now()
    with transaction.atomic():
        found = challenge_for(user, token)
        if found is None:
            raise ServiceError(_("This challenge is not for you."), code="not-found")
        game = lock_game(found.game_id)
        challenge = Challenge.objects.get(pk=found.pk)
        state = Challenge.State.ACCEPTED if accept else Challenge.State.REFUSED
        if challenge.state == state:
            return challenge  # a double click
        if challenge.state != Challenge.State.PENDING:
            raise ServiceError(_("This challenge was already answered."), code="answered")
        if challenge.expires_at <= now:
            _expire(challenge, game, now)
            raise ServiceError(_("This challenge has expired."), code="expired")
        if game.status != Game.Status.LOBBY:
            raise ServiceError(_("This game has already started."), code="started")
        if accept:
            seated = set(game.seats.values_list("user_id", flat=True))
            if seated & apart_ids(user):
                raise ServiceError(
                    _("You cannot sit at this table (a block keeps you apart)."), code="apart"
                )
            if user.pk not in seated:
                Seat.objects.create(game=game, user=user)
        challenge.state = state
        challenge.answered_at = now
        challenge.save(update_fields=["state", "answered_at"])
        if not accept:
            _tell_challenger(challenge, game, now, "refused")
        touch(game)
        _start_when_all_answered(game)
        return challenge


def _tell_challenger(challenge: Challenge, game: Game, now: datetime, answer: str) -> None:
    notice = Notice.objects.create(
        key=f"challenge-answer:{challenge.pk}",
        kind=Notice.Kind.CHALLENGE_ANSWER,
        user_id=challenge.challenger_id,
        game=game,
        due_at=now,
        data={"challenge": challenge.pk, "answer": answer},
    )
    sending.enqueue_after_commit([notice])


def _expire(challenge: Challenge, game: Game, now: datetime) -> None:
    challenge.state = Challenge.State.EXPIRED
    challenge.answered_at = now
    challenge.save(update_fields=["state", "answered_at"])
    _tell_challenger(challenge, game, now, "expired")


def _start_when_all_answered(game: Game) -> None:
    """Once no challenge of the game waits, it starts with those seated, if enough (the caller
    holds its row lock); else its creator may still start it, or invite more, from its page."""
    if game.status != Game.Status.LOBBY:
        return
    if Challenge.objects.filter(game=game, state=Challenge.State.PENDING).exists():
        return
    seats = list(game.seats.all())
    if len(seats) >= PLAYERS[game.ruleset][0]:
        _deal(game, seats)


def challenges_expire(now: datetime) -> int:
    """The sweep's part: pending challenges past their time expire (the challenger is told)."""
    done = 0
    due = Challenge.objects.filter(state=Challenge.State.PENDING, expires_at__lte=now)
    for challenge_id, game_id in due.values_list("pk", "game_id"):
        with transaction.atomic():
            game = lock_game(game_id)
            challenge = Challenge.objects.get(pk=challenge_id)
            if challenge.state != Challenge.State.PENDING:
                continue
            _expire(challenge, game, now)
            touch(game)
            _start_when_all_answered(game)
            done += 1
    return done


def pace_name(pace: str) -> str:
    return str(PACE_NAMES.get(pace, pace))
