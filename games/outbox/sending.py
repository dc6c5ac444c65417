"""Sending the outbox once (docs/architecture.md, "The outbox").

The database is the source of truth. Celery sends the rows: at once after the commit when it
can, else the sweep that beat runs every minute catches up. Sending locks the notice row,
re-reads the game and sends nothing when the turn has moved on, so a retry, a redelivery or two
sweepers send one email at most. Tasks are started by name (``games.dispatch``).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from time import monotonic, sleep

from allauth.account.models import EmailAddress
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Block
from games import dispatch
from games.models import Challenge, ChatMessage, Game, Notice, Seat
from saboteur_site import logs
from saboteur_site.text import one_line

from . import push
from .emails import build_email
from .quiet import in_quiet_hours, vacation_hold
from .schedule import UNLESS_SEEN, decision_key, seen_since

log = logging.getLogger(__name__)


UNDERWAY = (Game.Status.RUNNING, Game.Status.PAUSED)

# A turn's emails held while the moderators pause the game; resuming places them again.
PAUSE_HOLD = timedelta(days=1)


def enqueue_after_commit(notices: list[Notice]) -> None:
    """Ask Celery to send these once the transaction commits; the sweep covers any failure."""
    due = [n.key for n in notices if n.due_at <= timezone.now()]
    if due:
        transaction.on_commit(lambda: _enqueue(due), robust=True)


def _enqueue(keys: list[str]) -> None:
    enqueue(Notice.objects.filter(key__in=keys).values_list("pk", flat=True))


def enqueue(notice_ids) -> None:
    """Hand these notices to Celery now (call after the commit); the sweep covers any failure."""
    for pk in notice_ids:
        try:
            # No result is read: without ignore_result the Redis result backend subscribes to
            # it and, with Redis down, retries for about 20 s while the player's request waits.
            dispatch.start(dispatch.SEND_NOTICE, pk, ignore_result=True)
        except Exception:  # the broker is down: the sweep sends it later
            log.warning("could not enqueue notice %s; the sweep will send it", pk)
            return  # one failed attempt is enough: do not wait on the broker for every notice


def verified_email(user) -> str | None:
    """The user's address if verified; mail goes only to verified addresses."""
    if user is None or not user.is_active:
        return None
    verified = EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=True)
    return user.email if verified.exists() else None


def _still_relevant(notice: Notice) -> str | None:
    """Why the notice must not be sent any more, or None (a notice about a game)."""
    game = notice.the_game()
    if notice.kind == Notice.Kind.PAUSED and game.status != Game.Status.PAUSED:
        return "the game is not paused any more"
    if notice.kind in (Notice.Kind.RESUMED, Notice.Kind.EXTENDED):
        reason = _clock_news_stale(notice, game)
        if reason:
            return reason
    unless_seen = notice.data.get(UNLESS_SEEN)
    if unless_seen and notice.seat_id is not None:
        if seen_since(notice.the_seat(), datetime.fromisoformat(unless_seen)):
            return "the player has looked at the game since"
    if notice.kind == Notice.Kind.CHALLENGE:
        challenge = Challenge.objects.filter(pk=notice.data.get("challenge")).first()
        if challenge is None or challenge.state != Challenge.State.PENDING:
            return "the challenge was answered, or it went"
    if notice.kind == Notice.Kind.MENTION:
        if not ChatMessage.objects.filter(pk=notice.data.get("message")).exists():
            return "the message was deleted"  # by the moderators, while the notice waited
        author = ChatMessage.objects.filter(pk=notice.data.get("message")).values("seat__user_id")
        if Block.objects.filter(blocker_id=notice.user_id, blocked_id__in=author).exists():
            return "the author is blocked"  # blocked while the notice waited
    if notice.kind in (Notice.Kind.TURN, Notice.Kind.REMINDER):
        if game.status != Game.Status.RUNNING:
            return "game not running"
        seat = notice.the_seat()
        if game.to_move != seat.position or decision_key(game) != notice.data["since"]:
            return "the turn has moved on"
        if seat.state == Seat.State.REPLACED or seat.user_id != notice.user_id:
            return "seat taken over"
        if seat.stand_in:
            return "a bot stands in for the player"
        if seat.state == Seat.State.ABSENT:
            return "the player is absent"
    return None


def _clock_news_stale(notice: Notice, game: Game) -> str | None:
    """Why a "resumed" or "more time" email is not to be sent any more, or None.

    Held by the player's quiet hours or vacation, it still goes when they end, worded with the
    game's clock of that moment (``event_emails._clock``): players told of a pause were never told
    of its end when the deadline had moved meanwhile (issue 47). It is dropped only when nothing
    it says is true any more: the game is over, or paused again (a "resumed"), or the decision it
    gave more time to is over (a "more time")."""
    if game.status not in UNDERWAY:
        return "the game is over"
    if notice.kind == Notice.Kind.RESUMED and game.status != Game.Status.RUNNING:
        return "the game is paused again"
    if notice.kind == Notice.Kind.EXTENDED and (
        game.version != notice.version or game.to_move != notice.data.get("mover")
    ):
        return "the turn it gave more time to is over"
    return None


# ``_send``'s answer when this very call sent the email (the row's status is then "sent"), so
# that the sweep counts only what it sent itself.
SENT_NOW = "sent now"

# Kinds of which several pending rows of one game and player go out as one email (timeouts
# held by quiet hours: one email, not three alike; the mentions of an hour).
TOLD_TOGETHER = (Notice.Kind.TIMEOUT, Notice.Kind.MENTION)


def _told_together(notice: Notice) -> list[Notice]:
    """The other pending rows this email tells too, locked (rows another sender holds are left
    to it, so that two senders never wait on each other)."""
    if notice.kind not in TOLD_TOGETHER or notice.game_id is None or notice.user_id is None:
        return []
    return list(
        Notice.objects.select_for_update(of=("self",), skip_locked=True)
        .select_related("game", "seat")
        .filter(
            kind=notice.kind,
            game_id=notice.game_id,
            user_id=notice.user_id,
            status=Notice.Status.PENDING,
        )
        .exclude(pk=notice.pk)
        .order_by("pk")
    )


def send(notice_id: int, *, now: datetime | None = None) -> str:
    """Send one notice if it is still due and relevant; return its final status.

    The row lock makes concurrent senders queue; the first one marks the row sent, so the others
    find nothing to do. An SMTP error leaves the row pending and re-raises (the task retries).
    Should the database go away once the SMTP server has taken the email (a PostgreSQL restart
    at that moment), the row could not be marked sent and would be sent again: the sender keeps
    telling the database until it answers (``_confirm_sent``).
    """
    status = _deliver(notice_id, now or timezone.now())
    return Notice.Status.SENT if status == SENT_NOW else status


def _deliver(notice_id: int, now: datetime) -> str:
    """``send``, answering ``SENT_NOW`` when this very call sent the email.

    Whatever fails on the way (the SMTP server, the words of an email, the database) is counted
    on the row and recorded, and the row is tried again later, given up after ``MAX_ATTEMPTS``
    (then "failed" in the admin's outbox): no row stays due for ever with 0 attempts.
    """
    attempt = _Attempt()
    try:
        return _send(notice_id, now, attempt)
    except DatabaseError as error:
        if not attempt.delivered:
            _record_failure_if_possible(notice_id, error, now, attempt)
            raise
    except Exception as error:
        _record_failure_if_possible(notice_id, error, now, attempt)
        raise
    _confirm_sent(notice_id, now, attempt.together)
    return SENT_NOW


def _record_failure_if_possible(notice_id: int, error: Exception, now, attempt) -> None:
    if attempt.recorded:
        return
    try:
        _record_failure(notice_id, error, now)
    except DatabaseError:  # the database is away: the row stays as it was, for the next sweep
        log.warning("could not record the failure of notice %s", notice_id)


def hold_or_skip(notice: Notice, now: datetime) -> tuple[datetime | None, str | None]:
    """Whether a notice due now may go out, by email or push: (until when it waits, None), or
    (None, why it is dropped), or (None, None) when it may go. The one rule for both ways, so
    that a push tried again later obeys what the email would (issue #27's retries missed the
    opt-out, vacations and paused games)."""
    if (
        notice.kind in (Notice.Kind.TURN, Notice.Kind.REMINDER)
        and notice.game_id
        and notice.the_game().status == Game.Status.PAUSED
    ):
        return now + PAUSE_HOLD, None  # resuming places them again (turn_rescheduled)
    reason = _still_relevant(notice) if notice.game_id else None
    if reason is None and notice.user is not None and not notice.user.is_active:
        reason = "inactive account"
    if reason is None and notice.user and not _wanted(notice):
        reason = "opted out"
    if reason is None and notice.user:
        back, away = vacation_hold(notice, now)
        if back is not None:  # the player is on vacation: it waits until they are back
            return back, None
        reason = away or None
    if reason is None and notice.user and notice.kind != Notice.Kind.ANSWER:
        # (The answer to an email the player has just sent is never held.)
        return _quiet_hours_hold(notice, now)
    return None, reason


def _quiet_hours_hold(notice: Notice, now: datetime) -> tuple[datetime | None, str | None]:
    """``hold_or_skip``'s answer for a notice to a player in their quiet hours: it waits until
    they end, unless it is a reminder that would then come after its deadline (dropped); and
    (None, None) outside quiet hours."""
    quiet_end = in_quiet_hours(notice.user, now)
    if quiet_end is None:
        return None, None
    deadline = notice.the_game().deadline if notice.game_id else None
    can_wait = notice.kind != Notice.Kind.REMINDER or (
        deadline is not None and quiet_end < deadline
    )
    if can_wait:
        return quiet_end, None
    return None, "quiet hours"


class _Attempt:
    delivered = False
    recorded = False  # its failure is on the row already
    together: tuple[int, ...] = ()  # the rows told in the same email


def _send(notice_id: int, now: datetime, attempt: _Attempt) -> str:
    with transaction.atomic():
        notice = (
            Notice.objects.select_for_update(of=("self",))
            .select_related("user", "game", "seat")
            .filter(pk=notice_id)
            .first()
        )
        if notice is None or notice.status != Notice.Status.PENDING:
            return notice.status if notice else "missing"
        logs.bind_game(notice.game_id)
        if notice.due_at > now:
            return notice.status
        address = notice.email or verified_email(notice.user)
        hold, reason = hold_or_skip(notice, now)
        if hold is not None:
            notice.due_at = hold
            notice.save(update_fields=["due_at"])
            return notice.status
        if reason is None and address is None and not push.reaches(notice):
            reason = "no verified address"
        if reason:
            notice.status, notice.reason = Notice.Status.SKIPPED, reason
            notice.save(update_fields=["status", "reason"])
            return notice.status
        # Push first, to each device once; it may make the email wait or unneeded.
        held = push.before_email(notice, address=address, now=now)
        if held is not None:
            return held
        if address is None:  # before_email() settles every notice without one
            raise RuntimeError(f"notice {notice.pk} has no address to send its email to")
        together = _told_together(notice)
        attempt.together = tuple(n.pk for n in together)
        try:
            build_email(notice, address, together).send()
        except Exception as error:
            failure = error
        else:
            attempt.delivered = True
            notice.attempts += 1
            notice.status, notice.sent_at = Notice.Status.SENT, now
            notice.last_error = ""  # a resend that worked leaves no stale error behind
            notice.save(update_fields=["status", "sent_at", "attempts", "last_error"])
            _told_with(notice.pk, attempt.together)
            return SENT_NOW
    # Outside the transaction, so that the record of the failure is kept.
    _record_failure(notice.pk, failure, now)
    attempt.recorded = True
    raise failure


# How long a sender whose email the SMTP server took keeps trying to mark its row sent while
# the database is away (seconds; then the row stays pending and is sent again, once more).
CONFIRM_PATIENCE = 15 * 60


def _told_with(notice_id: int, together) -> None:
    """The rows whose news went out in notice ``notice_id``'s email are not sent on their own."""
    Notice.objects.filter(pk__in=together).update(
        status=Notice.Status.SKIPPED, reason=f"sent in one email with notice {notice_id}"
    )


def _confirm_sent(notice_id: int, now: datetime, together=()) -> str:
    """Mark a delivered notice sent once the database answers again (it was away when the
    delivery was to be recorded). Retries with a growing pause, up to ``CONFIRM_PATIENCE``.

    Another sender may have reached the row first once the database was back: one that found it
    no longer relevant marked it skipped, which is untrue (it was delivered): sent wins.
    """
    deadline, pause = monotonic() + CONFIRM_PATIENCE, 0.5
    while True:
        connection.close()  # the broken connection (or its pool's) is dropped; a new one is made
        try:
            Notice.objects.filter(pk=notice_id).exclude(status=Notice.Status.SENT).update(
                status=Notice.Status.SENT,
                sent_at=now,
                attempts=F("attempts") + 1,
                last_error="",
                reason="",
            )
            _told_with(notice_id, together)
        except DatabaseError:
            if monotonic() + pause > deadline:
                log.error("notice %s was delivered but could not be marked sent", notice_id)
                raise
            log.warning("notice %s delivered; the database is away, marking it later", notice_id)
            sleep(pause)
            pause = min(pause * 2, 15)
        else:
            return Notice.Status.SENT


MAX_ATTEMPTS = 8


def _record_failure(notice_id: int, error: Exception, now: datetime) -> None:
    """Count the failed attempt, try again later (backing off), give up after MAX_ATTEMPTS.

    Moving ``due_at`` on keeps a failing address from holding up the sweep's other rows.
    """
    with transaction.atomic():
        notice = Notice.objects.select_for_update().filter(pk=notice_id).first()
        if notice is None or notice.status != Notice.Status.PENDING:
            return
        notice.attempts += 1
        notice.last_error = one_line(f"{type(error).__name__}: {error}")[:300]
        if notice.attempts >= MAX_ATTEMPTS:
            notice.status = Notice.Status.FAILED
        else:
            notice.due_at = now + min(timedelta(minutes=2**notice.attempts), timedelta(hours=6))
        notice.save(update_fields=["attempts", "last_error", "status", "due_at"])


def _wanted(notice: Notice) -> bool:
    user = notice.the_user()
    wanted: dict[str, bool] = {
        Notice.Kind.TURN: user.email_turns,
        Notice.Kind.REMINDER: user.email_reminders,
        Notice.Kind.DIGEST: user.email_digest,
        Notice.Kind.MENTION: user.email_mentions,
        Notice.Kind.ABSENT: user.email_absent,
    }
    return wanted.get(notice.kind, True)


def retry_pushes(now: datetime) -> int:
    """Push again what a push service could not take before (the sweep; each device once)."""
    return push.retry_due(now, hold_or_skip=hold_or_skip)


def due_notice_ids(now: datetime, limit: int = 500) -> list[int]:
    return list(
        Notice.objects.filter(status=Notice.Status.PENDING, due_at__lte=now)
        .order_by("due_at")
        .values_list("pk", flat=True)[:limit]
    )


# The minute sweep sends due rows itself for this long at most (after the first few), then hands
# the rest to the workers in chunks (``send_notices`` tasks), so that it ends well within its
# minute even when thousands of digests fall due at once.
SWEEP_SENDS_FOR = 0.5  # seconds since the sweep began

SWEEP_SENDS_AT_LEAST = 10  # however slow the rest of the sweep was

HAND_OVER_CHUNK = 25


def send_due(now: datetime, *, until: float, at_least: int = SWEEP_SENDS_AT_LEAST) -> dict:
    """Send the due rows, oldest first (at least ``at_least`` of them), until ``monotonic()``
    reaches ``until``; hand the rest to the workers. A row both sent here and by a worker is sent
    once (``send`` locks it); a row whose task is lost (broker down) stays pending for the next
    sweep.
    """
    ids, sent = due_notice_ids(now), 0
    for done, notice_id in enumerate(ids):
        if done >= at_least and monotonic() >= until:
            hand_over(ids[done:])
            return {"sent": sent, "handed over": len(ids) - done}
        sent += send_each([notice_id], now=now)
    return {"sent": sent, "handed over": 0}


def send_each(notice_ids: list[int], *, now: datetime | None = None) -> int:
    """Send these rows one by one; a failure is logged (and recorded) and the others go on.
    Returns how many this call sent (a row another process sent meanwhile is not counted)."""
    sent = 0
    for notice_id in notice_ids:
        try:
            if _deliver(notice_id, now or timezone.now()) == SENT_NOW:  # not another process's
                sent += 1
        except Exception:  # one bad address or SMTP hiccup must not stop the others
            log.exception("sending notice %s failed; the next sweep tries again", notice_id)
    return sent


def hand_over(notice_ids: list[int]) -> None:
    """Queue these rows for the workers in chunks (few messages for thousands of rows)."""
    for start in range(0, len(notice_ids), HAND_OVER_CHUNK):
        try:
            chunk = notice_ids[start : start + HAND_OVER_CHUNK]
            dispatch.start(dispatch.SEND_NOTICES, chunk, ignore_result=True)
        except Exception:  # the broker is down: the next sweep sends them
            log.warning("could not hand notices over to the workers; the next sweep will send them")
            return
