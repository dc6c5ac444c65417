"""Which notices a change causes, and when they are due (docs/architecture.md, "The outbox").

The transaction that changes a game calls these: they write ``Notice`` rows (the outbox) and
return them, and the caller hands the due ones to ``sending.enqueue_after_commit``. A "your turn"
email and its reminders belong to one decision (``decision_key``); when the decision ends they
are cancelled (``turn_ended``), when its deadline moves they move with it (``turn_rescheduled``).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.utils import timezone

from games import clock
from games.models import Game, Notice, Seat
from games.read import clock as clocks
from games.read.seats import user_name

from .quiet import in_quiet_hours, quiet_window

# A player seen on the game's page this recently may be at the table: their "your turn" email
# waits this long and goes unless they look at the game again meanwhile (``UNLESS_SEEN``). It
# was dropped at once, and a player who had closed the page never heard of their turn.
ACTIVE_WINDOW = timedelta(minutes=5)

# A notice's data key: the instant after which a look at the game makes it needless (its
# decision's start, the game's end). ``sending`` skips it then.
UNLESS_SEEN = "unless_seen_since"


# A daily digest cannot serve a shorter time limit: such games send their "your turn" emails.
DIGEST_SERVES = timedelta(days=1)

DIGEST_HOUR = 8  # local time of the daily digest (``digests.digests_due``)

TURN_ENDED = "the turn has moved on"

# A reminder that cannot wait for the end of quiet hours comes this long before they begin.
QUIET_MARGIN = timedelta(minutes=30)


def decision_key(game: Game) -> str:
    """The decision a notice belongs to: the game's version and when the decision began.

    The version grows with every move, so two decisions of one seat never share a key, even
    when they begin at the same instant (the site deciding for an absent seat in the same
    transaction, a frozen clock): keyed by the time alone, the second one's "your turn" email
    was dropped as a duplicate of the first (issue 36). The start tells a seat's decision from
    the one a newcomer begins at the same version when the seat is handed over."""
    if game.decision_since is None:
        return ""
    return f"v{game.version}@{game.decision_since.isoformat()}"


def person_deciding(game: Game, to_move: Seat | None = None) -> Seat | None:
    """The seat whose player decides now and is told so by email: None when the game is not
    running, is a practice game, or a bot decides (its own seat or a stand-in), or the player
    is absent or their account inactive (the site decides for them; no reminders to them).

    ``to_move``: the live seat at ``game.to_move`` with its user, when the caller has read it
    already (``clocks.deciding_seat``); read here otherwise."""
    if game.status != Game.Status.RUNNING or game.to_move is None or game.practice:
        return None  # a practice game is played on its page, against bots: nobody waits for you
    seat = to_move if to_move is not None else clocks.deciding_seat(game)
    if seat is None or seat.user is None or seat.bot_plays:
        return None  # a bot decides for this seat now (its own, or a stand-in for the absent)
    if seat.state == Seat.State.ABSENT or not seat.user.is_active:
        return None
    return seat


def notices_for_decision(
    *, game: Game, now: datetime, to_move: Seat | None = None, breaks: clock.Breaks | None = None
) -> list[Notice]:
    """Outbox rows for the decision that has just begun (the caller holds the game row lock).

    A "your turn" notice, unless the player opted out or takes the daily digest (for games whose
    time limit a digest can serve): now, or ``ACTIVE_WINDOW`` from now when they were on the
    running game's page a moment ago (seen in the lobby does not count), then sent unless they
    look at the game again after the decision began (``recently_seen``). Sending holds it until
    their quiet hours end, and the deadline leaves them time after that (``clock.AWAKE_MINIMUM``).
    Reminders at half and 90 % of the time limit, placed outside the player's quiet hours
    whenever the time limit allows (``reminder_plan``). Nothing for a player who is absent or
    whose account is inactive (``person_deciding``; ``to_move`` as there). ``breaks``: that
    seat's breaks from ``now`` (``clocks.breaks_of``), when the caller has them already.
    """
    seat = person_deciding(game, to_move)
    if seat is None or seat.user is None:  # a person's seat, or nobody's (see above)
        return []
    user, since = seat.user, decision_key(game)
    rows = []
    turn_email_at = None
    if user.email_turns and not digest_serves(game, user, now):
        data = {"since": since}
        due = now
        if recently_seen(game, seat, now):
            due = now + ACTIVE_WINDOW
            data[UNLESS_SEEN] = now.isoformat()  # (the decision began now, or resumed)
        # Held until quiet hours end, if they are on then (send() holds it).
        turn_email_at = in_quiet_hours(user, due) or due
        rows.append(
            Notice(
                key=f"turn:{game.pk}:{seat.pk}:{since}",
                kind=Notice.Kind.TURN,
                user=user,
                game=game,
                seat=seat,
                version=game.version,
                due_at=due,
                data=data,
            )
        )
    if user.email_reminders:
        plan = reminder_plan(
            game=game, user=user, now=now, turn_email_at=turn_email_at, seat=seat, breaks=breaks
        )
        rows += [_reminder(game, seat, mark, due) for mark, due in plan.items()]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def digest_serves(game: Game, user, now: datetime) -> bool:
    """Whether the player's daily digest tells them of the decision begun ``now`` in time: they
    take it, the game's time limit is a day or more, and the next digest (``DIGEST_HOUR`` local,
    held to the end of their quiet hours) comes at least ``clock.AWAKE_MINIMUM`` before the
    deadline. Otherwise the "your turn" email goes: a daily deadline at 07:00 left a digest
    player's turn begun at 09:00 to time out before the next day's 08:00 digest."""
    if not user.email_digest or game.turn_limit < DIGEST_SERVES:
        return False
    if game.deadline is None:
        return True
    zone = clock.zone(user.time_zone)
    local = now.astimezone(zone)
    day = local.date() if local.hour < DIGEST_HOUR else local.date() + timedelta(days=1)
    digest = datetime.combine(day, time(DIGEST_HOUR), tzinfo=zone)
    digest = in_quiet_hours(user, digest) or digest
    return digest + clock.AWAKE_MINIMUM <= game.deadline


def recently_seen(game: Game, seat: Seat, now: datetime) -> bool:
    """Whether the seat's player looked at the running game within ``ACTIVE_WINDOW``."""
    seen = seat.last_seen_at
    return (
        seen is not None
        and game.started_at is not None
        and seen >= game.started_at
        and now - seen < ACTIVE_WINDOW
    )


def seen_since(seat: Seat, moment: datetime) -> bool:
    """Whether the seat's player has looked at the game at ``moment`` or after it (its page
    marks them seen when loaded and, while in front of them, once a minute:
    ``play.visits.seat_seen``)."""
    return seat.last_seen_at is not None and seat.last_seen_at >= moment


def _reminder_key(game: Game, seat: Seat, mark: str) -> str:
    return f"reminder{mark}:{game.pk}:{seat.pk}:{decision_key(game)}"


def _reminder(game: Game, seat: Seat, mark: str, due: datetime) -> Notice:
    return Notice(
        key=_reminder_key(game, seat, mark),
        kind=Notice.Kind.REMINDER,
        user=seat.user,
        game=game,
        seat=seat,
        version=game.version,
        due_at=due,
        data={"since": decision_key(game), "mark": mark},
    )


def player_reminders(game: Game, user, span: timedelta | None = None) -> list[clock.Reminder]:
    """The reminders the player asked for (their profile): the site's schedule (shares of the
    time per turn, or of ``span``, the decision's own length under a daily deadline), or N hours
    before the deadline; none when they turned reminders off."""
    if not user.email_reminders:
        return []
    limit = span if game.daily_at is not None and span else game.turn_limit
    return clock.reminders(
        limit, clock.fitting_hours(clock.parse_hours(user.reminder_hours), limit)
    )


def reminder_times(
    *, game: Game, user, now: datetime, seat: Seat | None = None, breaks: clock.Breaks | None = None
):
    """When each reminder of the current decision falls: (reminder, due) pairs, before merging.

    A reminder is due when its share of the time limit (or its hours) is left before the
    deadline, counted by the game's clock (``games.clock``: weekends and vacations do not
    count), so an extension or a pause moves it with the deadline.

    One due inside the player's quiet hours moves out of them. "N hours before the deadline"
    comes half an hour before they begin (then more than N hours are left), or at their end
    when they began already; moved to their end instead it came with far less than N hours
    left, across a weekend with 1 h 15 min of 8 (issue 36). A share of the time limit moves to
    their end when that is before the deadline, else before they begin.
    """
    seat = seat if seat is not None else clocks.deciding_seat(game)
    breaks = breaks if breaks is not None else clocks.breaks_of(game, seat, now)
    deadline = game.deadline
    if deadline is None:
        if game.decision_since is None:
            raise ValueError(f"Game {game.pk} has no decision under way.")
        deadline = clocks.decision_deadline(game, seat, game.decision_since).final
    times = []
    span = None
    if game.daily_at is not None and game.decision_since is not None:
        span = clock.time_left(game.decision_since, deadline, breaks)
    for reminder in player_reminders(game, user, span):
        due = clock.reminder_due(now, deadline, reminder.left, breaks)
        window = quiet_window(user, due)
        if window is not None:
            due = _out_of_quiet_hours(window, due, now, deadline, hours=reminder.in_hours)
        times.append((reminder, due))
    return times


def _out_of_quiet_hours(window, due, now, deadline, *, hours: bool) -> datetime:
    quiet_start, quiet_end = window
    before = quiet_start - QUIET_MARGIN if quiet_start - QUIET_MARGIN > now else None
    after = quiet_end if quiet_end < deadline else None
    for when in (before, after) if hours else (after, before):
        if when is not None:
            return when
    return max(quiet_start - QUIET_MARGIN, now) if quiet_start > now else due


# Two reminders of one turn come at least this far apart (or as far apart as the time left at
# each is).
REMINDER_GAP = timedelta(hours=1)


def reminder_plan(
    *,
    game: Game,
    user,
    now: datetime,
    turn_email_at=None,
    sent: dict | None = None,
    seat=None,
    breaks: clock.Breaks | None = None,
) -> dict[str, datetime]:
    """The reminders to send for the current decision: mark -> when.

    From ``reminder_times``, earliest first: a reminder that quiet hours moved to (or before,
    or within ``REMINDER_GAP`` after) the one before it takes that one's place, so that
    reminders never come out of order nor one hard on the other (one reminder is enough then:
    the later, which is nearer the deadline). ``sent`` (mark -> when it was sent) are kept
    where they were; a reminder that would come too close after one already sent is dropped.
    None comes at or before the "your turn" email (``turn_email_at``).
    """
    sent = sent or {}
    kept: list[tuple[clock.Reminder, datetime, bool]] = []  # (reminder, when, already sent)
    for reminder, due in reminder_times(game=game, user=user, now=now, seat=seat, breaks=breaks):
        if reminder.mark in sent:
            kept.append((reminder, sent[reminder.mark], True))
            continue
        if turn_email_at is not None and due <= turn_email_at:
            continue  # the "your turn" email goes out then anyway: no second email at once
        dropped = False
        while kept:
            earlier, when, was_sent = kept[-1]
            gap = min(REMINDER_GAP, earlier.left - reminder.left)
            if due >= when + gap:
                break
            if was_sent:
                dropped = True  # the player was reminded a moment ago
                break
            kept.pop()  # this one, nearer the deadline, replaces it
        if not dropped:
            kept.append((reminder, due, False))
    return {reminder.mark: when for reminder, when, was_sent in kept if not was_sent}


def turn_ended(*, game: Game, reason: str = TURN_ENDED) -> int:
    """Cancel the unsent "your turn" emails and reminders of decisions that are over."""
    pending = Notice.objects.filter(
        game=game, kind__in=(Notice.Kind.TURN, Notice.Kind.REMINDER), status=Notice.Status.PENDING
    )
    if game.status == Game.Status.RUNNING and game.decision_since is not None:
        # The current decision: this version and this start (a replaced seat's starts anew).
        pending = pending.exclude(version=game.version, data__since=decision_key(game))
    # A newcomer's "your turn" email carried their briefing: it still goes, on its own.
    briefings = [
        seat_notice(
            key=f"briefing:{turn.key}",
            kind=Notice.Kind.BRIEFING,
            game=game,
            seat=turn.the_seat(),
            now=timezone.now(),
            old=turn.data["briefing"],
        )
        for turn in pending.filter(kind=Notice.Kind.TURN, data__has_key="briefing")
        .exclude(seat__state=Seat.State.REPLACED)
        .select_related("seat__user")
    ]
    Notice.objects.bulk_create(briefings, ignore_conflicts=True)
    return pending.update(status=Notice.Status.SKIPPED, reason=reason)


REMINDER_MERGED = "merged into a later reminder"


def reminders_placed(*, game: Game, now: datetime) -> None:
    """Place the current decision's unsent reminders again from its deadline and its player's
    clock as they are now (``reminder_plan``): each one due is written or moved, one no longer
    needed is skipped. The caller holds the game row lock."""
    seat = person_deciding(game)
    if seat is None:
        return
    user = seat.user
    # The reminders the player asks for now, and any of this decision written before (under
    # other settings): one no longer asked for is skipped.
    marks = [reminder.mark for reminder in player_reminders(game, user)]
    earlier = Notice.objects.filter(
        game=game, seat=seat, kind=Notice.Kind.REMINDER, data__since=decision_key(game)
    )
    rows = {n.key: n for n in earlier}
    keys = {mark: _reminder_key(game, seat, mark) for mark in marks}
    keys.update(
        {n.data.get("mark", n.key): n.key for n in rows.values() if n.key not in keys.values()}
    )
    sent = {
        mark: rows[key].sent_at or rows[key].due_at
        for mark, key in keys.items()
        if key in rows and rows[key].status == Notice.Status.SENT
    }
    turn = (
        Notice.objects.filter(
            key=f"turn:{game.pk}:{seat.pk}:{decision_key(game)}", status=Notice.Status.PENDING
        )
        .values_list("due_at", flat=True)
        .first()
    )
    turn_due = max(turn, now) if turn is not None else None
    turn_email_at = (in_quiet_hours(user, turn_due) or turn_due) if turn_due else None
    plan = reminder_plan(
        game=game, user=user, now=now, turn_email_at=turn_email_at, sent=sent, seat=seat
    )
    unsent = Notice.objects.exclude(status=Notice.Status.SENT)
    missing = []
    for mark, key in keys.items():
        if mark in sent:
            continue
        if mark in plan:
            moved = unsent.filter(key=key).update(
                status=Notice.Status.PENDING, due_at=plan[mark], reason=""
            )
            if not moved and key not in rows:
                missing.append(_reminder(game, seat, mark, plan[mark]))
        else:
            unsent.filter(key=key).update(status=Notice.Status.SKIPPED, reason=REMINDER_MERGED)
    Notice.objects.bulk_create(missing, ignore_conflicts=True)


def turn_rescheduled(*, game: Game, now: datetime) -> list[Notice]:
    """Place the current decision's unsent reminders again from its (new) deadline, and release
    its "your turn" email held by a pause; call after a resume or an extension (lock held)."""
    seat = person_deciding(game)
    if seat is None:
        return []
    reminders_placed(game=game, now=now)
    turn = f"turn:{game.pk}:{seat.pk}:{decision_key(game)}"
    unsent = Notice.objects.exclude(status=Notice.Status.SENT)
    unsent.filter(key=turn).update(status=Notice.Status.PENDING, due_at=now, reason="")
    return list(Notice.objects.filter(key=turn, status=Notice.Status.PENDING))


def clock_changed(*, user, games: list[Game], now: datetime) -> list[Notice]:
    """The player changed their quiet hours or time zone: what quiet hours held is placed again
    by the new window, and so are the reminders of their decisions under way in ``games``
    (locked by the caller). Returns the rows due now.

    A held email becomes due now, and sending holds it again if the new window says so
    (``sending.send``: one place knows how quiet hours hold); a row waiting after a failed
    attempt keeps its backoff.
    """
    held = Notice.objects.filter(
        user=user, status=Notice.Status.PENDING, due_at__gt=now, last_error=""
    ).exclude(kind=Notice.Kind.REMINDER)
    released = list(held.values_list("pk", flat=True))
    held.filter(pk__in=released).update(due_at=now)
    for game in games:
        reminders_placed(game=game, now=now)
    return list(Notice.objects.filter(pk__in=released))


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


def notices_for_end(*, game: Game, now: datetime) -> list[Notice]:
    """Tell every seated player that the game is over: at once, or, to one on its page a moment
    ago, ``ACTIVE_WINDOW`` later unless they look at it again meanwhile (they had closed the
    page and never heard of the end)."""
    if game.practice:
        return []  # its player is on its page
    rows = []
    for seat in game.seats.live().select_related("user"):
        if seat.user is None:
            continue
        row = seat_notice(
            key=f"finished:{game.pk}:{seat.pk}", kind=Notice.Kind.FINISHED, game=game,
            seat=seat, now=now,
        )  # fmt: skip
        if seat.last_seen_at is not None and now - seat.last_seen_at < ACTIVE_WINDOW:
            row.due_at = now + ACTIVE_WINDOW
            row.data[UNLESS_SEEN] = now.isoformat()
        rows.append(row)
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def notice_timeout(*, game: Game, seat: Seat, record, absent: bool, now: datetime) -> None:
    """Tell a player whose time ran out what the site did for them (the move ``record``, as
    their own view tells it) and how to come back (``absent``: they are absent from now on)."""
    Notice.objects.bulk_create(
        [
            seat_notice(
                key=f"timeout:{game.pk}:{seat.pk}:{game.version}",
                kind=Notice.Kind.TIMEOUT,
                game=game,
                seat=seat,
                now=now,
                move=record.payload.get("move", ""),
                sequence=record.sequence,
                absent=absent,
            )
        ],
        ignore_conflicts=True,
    )


def notices_for_game_event(
    *, game: Game, kind: str, now: datetime, data: dict, besides: Seat | None = None
) -> list[Notice]:
    """One email to every player still at the table (but ``besides``) about something the
    moderators did."""
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
        if seat.user is not None and seat != besides
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def notices_for_takeover(*, game: Game, old: Seat, new: Seat, now: datetime) -> list[Notice]:
    """Tell the rest of the table who plays a seat now (a bot, or another player), as every other
    change the moderators make to a table is told: a seat handed to a bot was said only in the
    log (issue 36). The newcomer has their briefing, the old player their word."""
    names = {"old": old.bot_name or user_name(old.user), "new": new.bot_name or user_name(new.user)}
    return notices_for_game_event(
        game=game, kind=Notice.Kind.TAKEN_OVER, now=now, data=names, besides=new
    )


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


def notices_for_vacation(*, game: Game, away: Seat, key: str, now: datetime, data: dict):
    """Tell the other players at the table about ``away``'s vacation (``data``: its name, start,
    planned end and what happened: declared, returned, called off).

    One email per player whatever the number of games they share with ``away``: the caller
    tells each game in turn (in one transaction) and a player already told of this ``key``
    about another game has this one added to that email's ``games`` (three identical emails
    in a minute, issue 36). Returns the rows written now."""
    rows = []
    for seat in game.seats.live().select_related("user").exclude(pk=away.pk):
        if seat.user is None:
            continue
        told = Notice.objects.filter(
            key=f"vacation:{key}:u{seat.user_id}", status=Notice.Status.PENDING
        ).first()
        if told is not None:
            told.data = {**told.data, "games": [*told.data["games"], game.pk]}
            told.save(update_fields=["data"])
            continue
        rows.append(
            seat_notice(
                key=f"vacation:{key}:u{seat.user_id}",
                kind=Notice.Kind.VACATION,
                game=game,
                seat=seat,
                now=now,
                games=[game.pk],
                **data,
            )
        )
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows
