"""Which notices a change causes, and when they are due (DESIGN.md, Celery section).

The transaction that changes a game calls these: they write ``Notice`` rows (the outbox) and
return them, and the caller hands the due ones to ``sending.enqueue_after_commit``. A "your turn"
email and its reminders belong to one decision (``decision_key``); when the decision ends they
are cancelled (``turn_ended``), when its deadline moves they move with it (``turn_rescheduled``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from games.models import Game, Notice, Seat

from .quiet import in_quiet_hours, quiet_window

ACTIVE_WINDOW = timedelta(minutes=5)  # a player seen this recently needs no "your turn" email

REMINDER_SHARES = (50, 90)  # per cent of the turn's time limit

# A daily digest cannot serve a shorter time limit: such games send their "your turn" emails.
DIGEST_SERVES = timedelta(days=1)

TURN_ENDED = "the turn has moved on"

# A reminder that cannot wait for the end of quiet hours comes this long before they begin.
QUIET_MARGIN = timedelta(minutes=30)


def decision_key(game: Game) -> str:
    """The decision a notice belongs to: when it began (a new one at every move)."""
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
    user, since = seat.user, decision_key(game)
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
        pending = pending.exclude(version=game.version, data__since=decision_key(game))
    return pending.update(status=Notice.Status.SKIPPED, reason=reason)


def turn_rescheduled(*, game: Game, now: datetime) -> list[Notice]:
    """Place the current decision's unsent reminders again from its (new) deadline, and release
    its "your turn" email held by a pause; call after a resume or an extension (lock held)."""
    if game.status != Game.Status.RUNNING or game.to_move is None:
        return []
    seat = game.seats.live().select_related("user").filter(position=game.to_move).first()
    if seat is None or seat.user is None:
        return []
    since = decision_key(game)
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


def notices_for_end(*, game: Game, now: datetime) -> list[Notice]:
    """Tell every seated player who is not on the game's page right now that it is over."""
    if game.practice:
        return []  # its player is on its page
    rows = [
        seat_notice(
            key=f"finished:{game.pk}:{seat.pk}",
            kind=Notice.Kind.FINISHED,
            game=game,
            seat=seat,
            now=now,
        )  # fmt: skip
        for seat in game.seats.live().select_related("user")
        if seat.user is not None
        and not (seat.last_seen_at is not None and now - seat.last_seen_at < ACTIVE_WINDOW)
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
