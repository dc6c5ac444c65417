"""Notices: who must be told what, and sending it once (DESIGN.md, Celery section).

The database is the source of truth. The transaction that changes a game writes ``Notice`` rows
(the outbox); Celery sends them: at once after the commit when it can, else the sweep that beat
runs every minute catches up. Sending locks the notice row, re-reads the game and sends nothing
when the turn has moved on, so a retry, a redelivery or two sweepers send one email at most.
"""

from __future__ import annotations

import logging
import re
import zoneinfo
from datetime import datetime, time, timedelta
from time import monotonic

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import signing
from django.db import connection, transaction
from django.utils import timezone

from saboteur_site import logs

from .models import Game, Notice, Seat

log = logging.getLogger(__name__)

ACTIVE_WINDOW = timedelta(minutes=5)  # a player seen this recently needs no "your turn" email
REMINDER_SHARES = (50, 90)  # per cent of the turn's time limit
DIGEST_HOUR = 8  # local time of the daily digest
UNSUBSCRIBE_SALT = "games.unsubscribe"
UNSUBSCRIBE_KINDS = {
    "turns": "email_turns",
    "reminders": "email_reminders",
    "digest": "email_digest",
    "mentions": "email_mentions",
    "absent": "email_absent",
}
# A daily digest cannot serve a shorter time limit: such games send their "your turn" emails.
DIGEST_SERVES = timedelta(days=1)
# The digest rows one sweep writes at most (about 0.2 s here): more digest users take a few
# more minutes after DIGEST_HOUR, and no sweep takes longer.
DIGESTS_PER_SWEEP = 2000
# A turn's emails held while the moderators pause the game; resuming places them again.
PAUSE_HOLD = timedelta(days=1)
TURN_ENDED = "the turn has moved on"
# A reminder that cannot wait for the end of quiet hours comes this long before they begin.
QUIET_MARGIN = timedelta(minutes=30)


def _decision_key(game: Game) -> str:
    return game.decision_since.isoformat() if game.decision_since else ""


def notices_for_decision(*, game: Game, now: datetime) -> list[Notice]:
    """Outbox rows for the decision that has just begun (the caller holds the game row lock).

    A "your turn" notice now, unless the player opted out, takes the daily digest (for games
    whose time limit a digest can serve) or is on the running game's page right now (seen in
    the lobby does not count); reminders at half and 90 % of the time limit, placed outside the
    player's quiet hours whenever the time limit allows.
    """
    if game.status != Game.Status.RUNNING or game.to_move is None or game.practice:
        return []  # a practice game is played on its page, against bots: nobody waits for you
    seat = game.seats.live().select_related("user").filter(position=game.to_move).first()
    if seat is None or seat.user is None or seat.bot_plays:
        return []  # a bot decides for this seat now (its own, or a stand-in for the absent)
    user, since = seat.user, _decision_key(game)
    common = {"user": user, "game": game, "seat": seat, "version": game.version}
    rows = []
    seen = seat.last_seen_at
    recently_seen = (
        seen is not None
        and game.started_at is not None
        and seen >= game.started_at
        and now - seen < ACTIVE_WINDOW
    )
    digest_serves = user.email_digest and game.turn_limit >= DIGEST_SERVES
    turn_email_at = None
    if user.email_turns and not digest_serves and not recently_seen:
        # Held until quiet hours end, if they are on now (send() holds it).
        turn_email_at = in_quiet_hours(user, now) or now
        rows.append(
            Notice(
                key=f"turn:{game.pk}:{seat.pk}:{since}",
                kind=Notice.Kind.TURN,
                due_at=now,
                data={"since": since},
                **common,
            )
        )
    if user.email_reminders:
        times = reminder_times(game=game, user=user, now=now)
        for share, due in times:
            if any(later > share and when == due for later, when in times):
                continue  # moved to the same moment as a later one: one reminder is enough
            if turn_email_at is not None and due <= turn_email_at:
                continue  # the "your turn" email goes out then anyway: no second email at once
            rows.append(
                Notice(
                    key=f"reminder{share}:{game.pk}:{seat.pk}:{since}",
                    kind=Notice.Kind.REMINDER,
                    due_at=due,
                    data={"since": since, "share": share},
                    **common,
                )
            )
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def reminder_times(*, game: Game, user, now: datetime) -> list[tuple[int, datetime]]:
    """When to remind the player of the current decision: (share, due) pairs.

    A reminder is due when (100 - share) % of the time limit is left before the deadline, so an
    extension or a pause moves it with the deadline. One due inside the player's quiet hours
    moves to their end when that is before the deadline, else to half an hour before they
    begin.
    """
    deadline = game.deadline or (game.decision_since + game.turn_limit)
    times = []
    for share in REMINDER_SHARES:
        due = max(deadline - game.turn_limit * (100 - share) / 100, now)
        window = quiet_window(user, due)
        if window is not None:
            quiet_start, quiet_end = window
            if quiet_end < deadline:
                due = quiet_end
            elif quiet_start > now:
                due = max(quiet_start - QUIET_MARGIN, now)
        times.append((share, due))
    return times


def turn_ended(*, game: Game, reason: str = TURN_ENDED) -> int:
    """Cancel the unsent "your turn" emails and reminders of decisions that are over."""
    pending = Notice.objects.filter(
        game=game, kind__in=(Notice.Kind.TURN, Notice.Kind.REMINDER), status=Notice.Status.PENDING
    )
    if game.status == Game.Status.RUNNING and game.decision_since is not None:
        # The current decision: this version and this start (a replaced seat's starts anew).
        pending = pending.exclude(version=game.version, data__since=_decision_key(game))
    return pending.update(status=Notice.Status.SKIPPED, reason=reason)


def turn_rescheduled(*, game: Game, now: datetime) -> list[Notice]:
    """Place the current decision's unsent reminders again from its (new) deadline, and release
    its "your turn" email held by a pause; call after a resume or an extension (lock held)."""
    if game.status != Game.Status.RUNNING or game.to_move is None:
        return []
    seat = game.seats.live().select_related("user").filter(position=game.to_move).first()
    if seat is None or seat.user is None:
        return []
    since = _decision_key(game)
    unsent = Notice.objects.exclude(status=Notice.Status.SENT)
    for share, due in reminder_times(game=game, user=seat.user, now=now):
        unsent.filter(key=f"reminder{share}:{game.pk}:{seat.pk}:{since}").update(
            status=Notice.Status.PENDING, due_at=due, reason=""
        )
    turn = f"turn:{game.pk}:{seat.pk}:{since}"
    unsent.filter(key=turn).update(status=Notice.Status.PENDING, due_at=now, reason="")
    return list(Notice.objects.filter(key=turn, status=Notice.Status.PENDING))


def seat_notice(*, key: str, kind: str, game: Game, seat: Seat, now: datetime, **data) -> Notice:
    """An unsaved outbox row for the player of ``seat``, about ``game`` as it is now."""
    return Notice(
        key=key,
        kind=kind,
        user=seat.user,
        game=game,
        seat=seat,
        version=game.version,
        due_at=now,
        data=data,
    )


def notices_for_start(*, game: Game, now: datetime) -> list[Notice]:
    """Tell every seated player the game has started (their seat, rule set, time limit).

    The first player to move learns it from their "your turn" email, which says so too.
    """
    if game.practice:
        return []  # its player started it this moment, on its page
    told = set(Notice.objects.filter(game=game, kind=Notice.Kind.TURN).values_list("seat_id"))
    rows = [
        seat_notice(
            key=f"started:{game.pk}:{seat.pk}",
            kind=Notice.Kind.STARTED,
            game=game,
            seat=seat,
            now=now,
        )
        for seat in game.seats.live().select_related("user")
        if seat.user is not None and (seat.pk,) not in told
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def notice_timeout(*, game: Game, seat: Seat, move: dict, absent: bool, now: datetime) -> None:
    """Tell a player whose time ran out what the site did for them and how to come back."""
    Notice.objects.bulk_create(
        [
            seat_notice(
                key=f"timeout:{game.pk}:{seat.pk}:{game.version}",
                kind=Notice.Kind.TIMEOUT,
                game=game,
                seat=seat,
                now=now,
                move=move.get("move", ""),
                absent=absent,
            )
        ],
        ignore_conflicts=True,
    )


def notices_for_game_event(*, game: Game, kind: str, now: datetime, data: dict) -> list[Notice]:
    """One email to every player still at the table about something the moderators did."""
    rows = [
        seat_notice(
            key=f"{kind}:{game.pk}:{seat.pk}:{game.revision}",
            kind=kind,
            game=game,
            seat=seat,
            now=now,
            **data,
        )
        for seat in game.seats.live().select_related("user")
        if seat.user is not None
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def notices_for_mentions(*, game: Game, message, now: datetime) -> list[Notice]:
    """An email to each seated player named as "@Display name" in a chat message."""
    text = message.text.casefold()
    rows = [
        Notice(
            key=f"mention:{message.pk}:{seat.pk}",
            kind=Notice.Kind.MENTION,
            user=seat.user,
            game=game,
            seat=seat,
            due_at=now,
            data={"message": message.pk},
        )
        for seat in game.seats.select_related("user")
        if seat.user is not None
        and seat.pk != message.seat_id
        and seat.state != Seat.State.REPLACED
        and _mentions(text, seat.user.display_name)
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def _mentions(text: str, name: str) -> bool:
    """Whether ``text`` (casefolded) names "@name" as a whole: "@Al" is not in "@Alice"."""
    pattern = rf"@{re.escape(name.casefold())}(?![\w-])"
    return re.search(pattern, text) is not None


def notice_absent(*, game: Game, absent: Seat, now: datetime, banned: bool = False) -> list[Notice]:
    """Tell the other players that a seat is now marked absent (``banned``: by the moderators)."""
    rows = [
        seat_notice(
            key=f"absent:{game.pk}:{absent.pk}:{seat.pk}:{game.version}",
            kind=Notice.Kind.ABSENT,
            game=game,
            seat=seat,
            now=now,
            absent=absent.pk,
            banned=banned,
        )
        for seat in game.seats.select_related("user").exclude(pk=absent.pk)
        if seat.user is not None and seat.state != Seat.State.REPLACED
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def enqueue_after_commit(notices: list[Notice]) -> None:
    """Ask Celery to send these once the transaction commits; the sweep covers any failure."""
    due = [n.key for n in notices if n.due_at <= timezone.now()]
    if due:
        transaction.on_commit(lambda: _enqueue(due), robust=True)


def _enqueue(keys: list[str]) -> None:
    enqueue(Notice.objects.filter(key__in=keys).values_list("pk", flat=True))


def enqueue(notice_ids) -> None:
    """Hand these notices to Celery now (call after the commit); the sweep covers any failure."""
    from .tasks import send_notice

    for pk in notice_ids:
        try:
            # No result is read: without ignore_result the Redis result backend subscribes to
            # it and, with Redis down, retries for about 20 s while the player's request waits.
            send_notice.apply_async((pk,), ignore_result=True)
        except Exception:  # the broker is down: the sweep sends it later
            log.warning("could not enqueue notice %s; the sweep will send it", pk)
            return  # one failed attempt is enough: do not wait on the broker for every notice


# -- Sending ----------------------------------------------------------------------------------


def verified_email(user) -> str | None:
    """The user's address if verified; mail goes only to verified addresses."""
    if user is None or not user.is_active:
        return None
    verified = EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=True)
    return user.email if verified.exists() else None


def user_zone(user) -> zoneinfo.ZoneInfo:
    """The user's time zone (UTC when unset or unknown)."""
    return zone_named(user.time_zone)


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def quiet_window(user, at: datetime) -> tuple[datetime, datetime] | None:
    """The user's quiet hours around ``at`` (start, end), if ``at`` is inside them; else None."""
    if user.quiet_from is None or user.quiet_until is None or user.quiet_from == user.quiet_until:
        return None
    zone = user_zone(user)
    local = at.astimezone(zone)
    start, end, clock = user.quiet_from, user.quiet_until, local.time()
    inside = start <= clock < end if start < end else clock >= start or clock < end
    if not inside:
        return None
    end_day = local.date() if clock < end else local.date() + timedelta(days=1)
    start_day = local.date() if clock >= start else local.date() - timedelta(days=1)
    return (
        datetime.combine(start_day, start, tzinfo=zone),
        datetime.combine(end_day, end, tzinfo=zone),
    )


def in_quiet_hours(user, now: datetime) -> datetime | None:
    """When the user's quiet hours end, if ``now`` is inside them; else None."""
    window = quiet_window(user, now)
    return window[1] if window else None


def _still_relevant(notice: Notice) -> str | None:
    """Why the notice must not be sent any more, or None."""
    game = notice.game
    if notice.kind in (Notice.Kind.TURN, Notice.Kind.REMINDER):
        if game.status != Game.Status.RUNNING:
            return "game not running"
        if game.to_move != notice.seat.position or _decision_key(game) != notice.data["since"]:
            return "the turn has moved on"
        if notice.seat.state == Seat.State.REPLACED or notice.seat.user_id != notice.user_id:
            return "seat taken over"
        if notice.seat.stand_in:
            return "a bot stands in for the player"
    return None


def send(notice_id: int, *, now: datetime | None = None) -> str:
    """Send one notice if it is still due and relevant; return its final status.

    The row lock makes concurrent senders queue; the first one marks the row sent, so the others
    find nothing to do. An SMTP error leaves the row pending and re-raises (the task retries).
    """
    from .emails import build_email

    now = now or timezone.now()
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
        if (
            notice.kind in (Notice.Kind.TURN, Notice.Kind.REMINDER)
            and notice.game.status == Game.Status.PAUSED
        ):
            # Resuming places them again (turn_rescheduled); until then they wait.
            notice.due_at = now + PAUSE_HOLD
            notice.save(update_fields=["due_at"])
            return notice.status
        reason = _still_relevant(notice) if notice.game_id else None
        if reason is None and notice.user is not None and not notice.user.is_active:
            reason = "inactive account"
        address = notice.email or verified_email(notice.user)
        if reason is None and address is None:
            reason = "no verified address"
        if reason is None and notice.user and not _wanted(notice):
            reason = "opted out"
        if reason is None and notice.user:
            quiet_end = in_quiet_hours(notice.user, now)
            if quiet_end is not None:
                deadline = notice.game.deadline if notice.game_id else None
                can_wait = notice.kind != Notice.Kind.REMINDER or (
                    deadline is not None and quiet_end < deadline
                )
                if can_wait:
                    notice.due_at = quiet_end
                    notice.save(update_fields=["due_at"])
                    return notice.status
                reason = "quiet hours"
        if reason:
            notice.status, notice.reason = Notice.Status.SKIPPED, reason
            notice.save(update_fields=["status", "reason"])
            return notice.status
        try:
            build_email(notice, address).send()
        except Exception as error:
            failure = error
        else:
            notice.attempts += 1
            notice.status, notice.sent_at = Notice.Status.SENT, now
            notice.last_error = ""  # a resend that worked leaves no stale error behind
            notice.save(update_fields=["status", "sent_at", "attempts", "last_error"])
            return notice.status
    # Outside the transaction, so that the record of the failure is kept.
    _record_failure(notice, failure, now)
    raise failure


MAX_ATTEMPTS = 8


def _record_failure(notice: Notice, error: Exception, now: datetime) -> None:
    """Count the failed attempt, try again later (backing off), give up after MAX_ATTEMPTS.

    Moving ``due_at`` on keeps a failing address from holding up the sweep's other rows.
    """
    attempts = notice.attempts + 1
    changes = {"attempts": attempts, "last_error": str(error)[:300]}
    if attempts >= MAX_ATTEMPTS:
        changes["status"] = Notice.Status.FAILED
    else:
        changes["due_at"] = now + min(timedelta(minutes=2**attempts), timedelta(hours=6))
    Notice.objects.filter(pk=notice.pk, status=Notice.Status.PENDING).update(**changes)


def _wanted(notice: Notice) -> bool:
    user = notice.user
    return {
        Notice.Kind.TURN: user.email_turns,
        Notice.Kind.REMINDER: user.email_reminders,
        Notice.Kind.DIGEST: user.email_digest,
        Notice.Kind.MENTION: user.email_mentions,
        Notice.Kind.ABSENT: user.email_absent,
    }.get(notice.kind, True)


# -- The sweep --------------------------------------------------------------------------------


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
    Returns how many were sent."""
    sent = 0
    for notice_id in notice_ids:
        try:
            if send(notice_id, now=now) == Notice.Status.SENT:
                sent += 1
        except Exception:  # one bad address or SMTP hiccup must not stop the others
            log.exception("sending notice %s failed; the next sweep tries again", notice_id)
    return sent


def hand_over(notice_ids: list[int]) -> None:
    """Queue these rows for the workers in chunks (few messages for thousands of rows)."""
    from .tasks import send_notices

    for start in range(0, len(notice_ids), HAND_OVER_CHUNK):
        try:
            chunk = notice_ids[start : start + HAND_OVER_CHUNK]
            send_notices.apply_async((chunk,), ignore_result=True)
        except Exception:  # the broker is down: the next sweep sends them
            log.warning("could not hand notices over to the workers; the next sweep will send them")
            return


def digests_due(now: datetime, *, most: int = DIGESTS_PER_SWEEP) -> list[int]:
    """Daily digests: from DIGEST_HOUR local time, one row per digest user and local day.

    Runs every minute, so its cost must not grow with the number of digest users: users are
    grouped by time zone (a few distinct values), and only those whose row for the local day is
    not written yet are looked at; their rows are written by one ``INSERT ... SELECT`` in the
    database, their awaiting games included (``_write_digests``), ``most`` rows per sweep at
    most (the next sweeps write the rest). A user with nothing awaiting gets a skipped row, so
    that their day is done too. Once a zone's day has nobody left, a marker row
    (``digests-done:<zone>:<day>``) says so, and later sweeps that day cost two small queries
    whatever the number of users. Someone who turns the digest on after that gets it from the
    next day. Returns the ids of the rows to send.
    """
    from django.contrib.auth import get_user_model

    takers = get_user_model().objects.filter(email_digest=True, is_active=True)
    zones_by_day: dict = {}
    for name in takers.values_list("time_zone", flat=True).distinct():
        local = now.astimezone(zone_named(name))
        if local.time() >= time(DIGEST_HOUR):
            zones_by_day.setdefault(local.date(), []).append(name)
    markers = [f"digests-done:{z}:{d.isoformat()}" for d, zs in zones_by_day.items() for z in zs]
    done = set(Notice.objects.filter(key__in=markers).values_list("key", flat=True))
    marker_rows, written_now = [], []
    for day, all_zones in zones_by_day.items():
        suffix = f":{day.isoformat()}"
        zones = [z for z in all_zones if f"digests-done:{z}{suffix}" not in done]
        if not zones:
            continue
        room = most - len(written_now)
        if room <= 0:
            break  # the next sweep writes the rest
        written = _write_digests(zones=zones, suffix=suffix, now=now, most=room)
        written_now += written
        if not written:
            marker_rows += [
                Notice(
                    key=f"digests-done:{zone}{suffix}",
                    kind=Notice.Kind.DIGEST,
                    due_at=now,
                    status=Notice.Status.SKIPPED,
                    reason="every digest of the day written",
                )
                for zone in zones
            ]
    if marker_rows:
        Notice.objects.bulk_create(marker_rows, ignore_conflicts=True)
    return [pk for pk, status in written_now if status == Notice.Status.PENDING]


def _write_digests(
    *, zones: list[str], suffix: str, now: datetime, most: int
) -> list[tuple[int, str]]:
    """One ``INSERT ... SELECT``: the day's row of every digest user in these zones who has none.

    The database gathers each user's awaiting games (their live seat is the one to move, in a
    running game whose time limit a digest can serve; oldest decision first) and writes the rows,
    a skipped one for a user with nothing awaiting; no row passes through Python. At most
    ``most`` users (lowest ids first), so that the sweep's cost stays flat. Returns the
    written rows' ids and statuses.
    """
    from django.contrib.auth import get_user_model

    from .selectors import LIVE_SEAT

    users = connection.ops.quote_name(get_user_model()._meta.db_table)
    sql = f"""
        INSERT INTO games_notice (key, kind, user_id, email, data, status, due_at, attempts,
                                  last_error, reason, created_at)
        SELECT 'digest:' || u.id || %(suffix)s, %(kind)s, u.id, '',
               jsonb_build_object('games', COALESCE(awaiting.games, '[]'::jsonb)),
               CASE WHEN awaiting.games IS NULL THEN %(skipped)s ELSE %(pending)s END,
               %(now)s, 0, '',
               CASE WHEN awaiting.games IS NULL THEN %(nothing)s ELSE '' END, %(created)s
        FROM {users} u
        LEFT JOIN LATERAL (
            SELECT jsonb_agg(g.id ORDER BY g.decision_since, g.id) AS games
            FROM games_seat s JOIN games_game g ON g.id = s.game_id
            WHERE s.user_id = u.id AND s.state = ANY(%(live)s) AND s.position = g.to_move
              AND g.status = %(running)s AND g.turn_limit >= %(serves)s
        ) awaiting ON true
        WHERE u.email_digest AND u.is_active AND u.time_zone = ANY(%(zones)s)
          AND NOT EXISTS (
              SELECT FROM games_notice n WHERE n.key = 'digest:' || u.id || %(suffix)s
          )
        ORDER BY u.id
        LIMIT %(most)s
        ON CONFLICT (key) DO NOTHING
        RETURNING id, status
    """  # noqa: S608 (the table name is the user model's, quoted; every value is a parameter)
    params = {
        "suffix": suffix,
        "kind": Notice.Kind.DIGEST.value,
        "skipped": Notice.Status.SKIPPED.value,
        "pending": Notice.Status.PENDING.value,
        "nothing": "nothing awaiting",
        "now": now,
        "created": timezone.now(),
        "live": [str(state) for state in LIVE_SEAT],
        "running": Game.Status.RUNNING.value,
        # Games with a shorter time limit send their own "your turn" emails.
        "serves": DIGEST_SERVES,
        "zones": zones,
        "most": most,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# -- Unsubscribe links ------------------------------------------------------------------------


def unsubscribe_token(user, what: str) -> str:
    return signing.dumps({"u": user.pk, "w": what}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str, max_age=timedelta(days=90)) -> tuple[int, str] | None:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT, max_age=max_age)
    except signing.BadSignature:  # includes an expired signature
        return None
    if not isinstance(data, dict) or data.get("w") not in UNSUBSCRIBE_KINDS:
        return None
    return data.get("u"), data["w"]


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe(*, user_id: int, what: str) -> bool:
    """Turn one kind of email off for a user (the signed link's POST)."""
    from django.contrib.auth import get_user_model

    field = UNSUBSCRIBE_KINDS[what]
    return bool(get_user_model().objects.filter(pk=user_id).update(**{field: False}))
