"""The one clock of every decision: deadlines, time left, time banks, reminders (issue 26).

Pure Python (no Django, no database): every deadline, reminder, timeout, digest and "time left"
of the site is computed here, from a game's clock settings (``Rules``), the times its clock
stands still (``Breaks``: weekends in the game's time zone, the deciding player's vacations) and
the seat's time bank. The writers (``games.play``, ``games.moderation``) and the readers
(``games.read.clock``) only gather these inputs from the database and store or show the answer.

Counted time is time while the clock runs: a decision's time limit, its bank and a moderator's
extension are all counted time, so a weekend or a vacation in between pushes the deadline on by
its length. Every instant given out is in UTC (arithmetic on zoned datetimes is wall-clock
arithmetic, wrong across a change of daylight saving time).

The deciding player's quiet hours (``Quiet``) do not stop the clock, but no decision may time
out before its player has had ``AWAKE_MINIMUM`` of counted time outside them (issue 47): the
"your turn" email waits for the end of quiet hours, so a turn that began in them, or just before
them, must leave time after them. ``decision_deadline`` moves the deadline on when it would not
(a daily deadline: to the first day's that leaves it).
"""

from __future__ import annotations

import heapq
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta

from accounts.zones import zone  # a zone by name (UTC when unknown): pure, as this module

ZERO = timedelta(0)

# Every decision leaves its player at least this much counted time outside their quiet hours
# before it can time out (the site's shortest time per turn): the "your turn" email, held until
# quiet hours end, always comes at least this long before the deadline (issue 47).
AWAKE_MINIMUM = timedelta(hours=1)

# A daily deadline gives at least this much counted time after the decision begins (outside the
# player's quiet hours), else the next day's.
DAILY_MINIMUM = AWAKE_MINIMUM

# How far a daily deadline is looked for (a vacation of the site's longest length, weekends).
DAILY_SEARCH_DAYS = 400


def utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


@dataclass(frozen=True)
class Rules:
    """A game's clock settings, chosen at its creation."""

    turn_limit: timedelta
    weekends_off: bool = False
    zone: str = "UTC"
    daily_at: time | None = None  # one fixed time of day (in ``zone``) ends every decision
    bank: timedelta = ZERO  # each seat's time bank at the start


@dataclass(frozen=True)
class Quiet:
    """A player's quiet hours: every day from ``start`` to ``end`` in ``zone`` (to the next day's
    ``end`` when it is not later than ``start``), each ``[start, end)``. Emails that can wait are
    held in them; they never stop a game's clock."""

    start: time
    end: time
    zone: str = "UTC"

    def windows(self, since: datetime) -> Iterator[tuple[datetime, datetime]]:
        """The quiet hours from the local day before ``since`` on, in order, endless."""
        tz = zone(self.zone)
        day = utc(since).astimezone(tz).date() - timedelta(days=1)
        overnight = self.end <= self.start
        while True:
            begins = utc(datetime.combine(day, self.start, tzinfo=tz))
            end_day = day + timedelta(days=1) if overnight else day
            ends = utc(datetime.combine(end_day, self.end, tzinfo=tz))
            if ends > begins:  # (a change of daylight saving time could empty a short one)
                yield begins, ends
            day += timedelta(days=1)

    def window_at(self, at: datetime) -> tuple[datetime, datetime] | None:
        """The quiet hours ``at`` falls in (start, end), or None."""
        at = utc(at)
        for begins, ends in self.windows(at):
            if begins > at:
                return None
            if at < ends:
                return begins, ends
        return None  # unreachable: the windows never end


def quiet_hours(start: time | None, end: time | None, zone_name: str) -> Quiet | None:
    """A player's quiet hours from their profile (None when unset, or empty: ``start == end``)."""
    if start is None or end is None or start == end:
        return None
    return Quiet(start=start, end=end, zone=zone_name or "UTC")


@dataclass(frozen=True)
class Breaks:
    """When a decision's clock stands still: Saturdays and Sundays in ``zone`` (``weekends``)
    and the given spans (the deciding player's vacations), each ``[start, end)``.

    With ``quiet`` (``awake``), the player's quiet hours stop it too: such breaks count the
    time a player has outside them, for the awake minimum alone, never for a deadline itself."""

    weekends: bool = False
    zone: str = "UTC"
    spans: tuple[tuple[datetime, datetime], ...] = ()
    quiet: Quiet | None = None

    def awake(self, quiet: Quiet | None) -> Breaks:
        """These stops and the player's ``quiet`` hours: counted time the player is awake."""
        return replace(self, quiet=quiet)

    def stops(self, since: datetime) -> Iterator[tuple[datetime, datetime]]:
        """The clock's stops that end after ``since``, merged, in order (endless with weekends
        or quiet hours)."""
        since = utc(since)
        spans = sorted((utc(s), utc(e)) for s, e in self.spans if e > s)
        sources = [iter(spans)]
        if self.weekends:
            sources.append(_weekends(zone(self.zone), since))
        if self.quiet is not None:
            sources.append(self.quiet.windows(since))
        current = None
        for start, end in heapq.merge(*sources):
            if current is not None and start <= current[1]:
                current = (current[0], max(current[1], end))
                continue
            if current is not None and current[1] > since:
                yield current
            current = (start, end)
        if current is not None and current[1] > since:
            yield current

    def running(self, at: datetime) -> bool:
        """Whether the clock runs at ``at``."""
        at = utc(at)
        for start, end in self.stops(at):
            return not start <= at < end
        return True

    def stop_at(self, at: datetime) -> tuple[datetime, datetime] | None:
        """The stop ``at`` falls in, if any."""
        at = utc(at)
        for start, end in self.stops(at):
            return (start, end) if start <= at < end else None
        return None

    def counted(self, start: datetime, end: datetime) -> timedelta:
        """Counted time between ``start`` and ``end`` (zero when ``end`` is not later)."""
        start, end = utc(start), utc(end)
        if end <= start:
            return ZERO
        total, at = ZERO, start
        for stop_start, stop_end in self.stops(start):
            if stop_start >= end:
                break
            if stop_start > at:
                total += stop_start - at
            at = max(at, stop_end)
            if at >= end:
                return total
        return total + (end - at)

    def advance(self, start: datetime, amount: timedelta) -> datetime:
        """The instant when ``amount`` of counted time has passed since ``start`` (``start``
        itself for none; counting begins when a stop ``start`` falls in ends)."""
        start = utc(start)
        if amount <= ZERO:
            return start
        at, left = start, amount
        for stop_start, stop_end in self.stops(start):
            if stop_start > at:
                if stop_start - at >= left:
                    return at + left
                left -= stop_start - at
            at = max(at, stop_end)
        return at + left


def _weekends(tz: zoneinfo.ZoneInfo, since: datetime) -> Iterator[tuple[datetime, datetime]]:
    """Saturday 00:00 to Monday 00:00 in ``tz``, week after week, from the week before ``since``."""
    day = since.astimezone(tz).date() - timedelta(days=7)
    day += timedelta(days=(5 - day.weekday()) % 7)
    while True:
        yield _midnight(day, tz), _midnight(day + timedelta(days=2), tz)
        day += timedelta(days=7)


def _midnight(day: date, tz: zoneinfo.ZoneInfo) -> datetime:
    return utc(datetime.combine(day, time(0), tzinfo=tz))


def breaks_for(rules: Rules, vacations=()) -> Breaks:
    """The stops of a decision under ``rules``, with the deciding player's ``vacations`` (spans)."""
    return Breaks(weekends=rules.weekends_off, zone=rules.zone, spans=tuple(vacations))


def daily_deadline(
    rules: Rules,
    start: datetime,
    breaks: Breaks,
    minimum: timedelta = DAILY_MINIMUM,
    quiet: Quiet | None = None,
) -> datetime:
    """The first time of day ``rules.daily_at`` (in the game's zone) after ``start`` at which the
    clock runs and that leaves at least ``minimum`` of counted time outside the player's
    ``quiet`` hours, else the next day's.

    A daily 07:00 Prague deadline and a turn reaching a Kyiv player (quiet 00:00-09:00) at
    05:00 UTC: today's leaves no time after his quiet hours, so tomorrow's (his turn email, held
    until 09:00 Kyiv, came after today's: he timed out with no word before, issue 47)."""
    at = rules.daily_at
    if at is None:
        raise ValueError("These rules have no daily deadline.")
    tz, start = zone(rules.zone), utc(start)
    awake = breaks.awake(quiet)
    day = start.astimezone(tz).date()
    for offset in range(DAILY_SEARCH_DAYS):
        candidate = utc(datetime.combine(day + timedelta(days=offset), at, tzinfo=tz))
        if candidate <= start or not breaks.running(candidate):
            continue
        if awake.counted(start, candidate) >= minimum:  # (less than counted: enough of it too)
            return candidate
    # Unreachable with any real vacation.
    return max(breaks.advance(start, rules.turn_limit), awake.advance(start, minimum))


@dataclass(frozen=True)
class Deadline:
    """A decision's ends: when its own time runs out (``limit_at``) and when, after the bank,
    the site decides (``final``: the timeout)."""

    limit_at: datetime
    final: datetime


def decision_deadline(
    rules: Rules, start: datetime, bank: timedelta, breaks: Breaks, quiet: Quiet | None = None
) -> Deadline:
    """The deadline of a decision that begins at ``start`` with ``bank`` left in the seat's bank,
    for a player with ``quiet`` hours.

    The turn's own time ends no sooner than when its player has had ``AWAKE_MINIMUM`` of counted
    time outside their quiet hours (the one policy of issue 47): a four-hour turn that begins at
    03:00 for a player quiet from midnight to 08:00 ends at 09:00, not at 07:00 while they sleep
    (their turn email waits until 08:00); one that begins at 23:30 ends at 08:30 (half an hour
    before midnight, half an hour after 08:00). The bank comes after it, as ever."""
    if rules.daily_at is not None:
        limit_at = daily_deadline(rules, start, breaks, quiet=quiet)
    else:
        limit_at = max(
            breaks.advance(start, rules.turn_limit),
            breaks.awake(quiet).advance(start, AWAKE_MINIMUM),
        )
    return Deadline(limit_at=limit_at, final=breaks.advance(limit_at, max(bank, ZERO)))


def time_left(now: datetime, deadline: datetime, breaks: Breaks) -> timedelta:
    """Counted time left before ``deadline`` (it does not shrink while the clock stands still)."""
    return breaks.counted(now, deadline)


def bank_after(bank: timedelta, now: datetime, deadline: datetime, breaks: Breaks) -> timedelta:
    """What is left of a seat's ``bank`` after its decision ends at ``now``: the bank is the last
    part of the decision's time, spent once the turn runs past its own limit."""
    return min(max(bank, ZERO), time_left(now, deadline, breaks))


def bank_in_use(bank: timedelta, now: datetime, deadline: datetime, breaks: Breaks) -> bool:
    """Whether the decision is spending the seat's bank now (past the turn's own limit)."""
    return bank > ZERO and time_left(now, deadline, breaks) <= bank


def moved(now: datetime, deadline: datetime, before: Breaks, after: Breaks) -> datetime:
    """The deadline again after the stops changed from ``before`` to ``after`` (a vacation
    declared, moved or ended): the counted time left is kept. A deadline already passed stays."""
    if utc(deadline) <= utc(now):
        return utc(deadline)
    return after.advance(now, time_left(now, deadline, before))


def resumed(
    now: datetime, remaining: timedelta, breaks: Breaks, quiet: Quiet | None = None
) -> datetime:
    """The deadline of a decision resumed at ``now`` with ``remaining`` counted time, for a
    player with ``quiet`` hours: the time left, up to ``AWAKE_MINIMUM`` of it, comes outside
    them. Resumed in their night with twenty minutes left, the turn ends twenty minutes after
    their quiet hours, not while they sleep, before the "resumed" email (or the "your turn" one
    of a decision begun during the pause) could reach them."""
    remaining = max(remaining, ZERO)
    awake = breaks.awake(quiet).advance(now, min(remaining, AWAKE_MINIMUM))
    return max(breaks.advance(now, remaining), awake)


def extended(now: datetime, deadline: datetime | None, extra: timedelta, breaks: Breaks):
    """The deadline with ``extra`` counted time more (from now, if it had passed)."""
    start = max(utc(deadline), utc(now)) if deadline is not None else utc(now)
    return breaks.advance(start, extra)


def reminder_due(now: datetime, deadline: datetime, left: timedelta, breaks: Breaks) -> datetime:
    """When only ``left`` counted time remains before ``deadline`` (now, if that has come)."""
    total = time_left(now, deadline, breaks)
    if total <= left:
        return utc(now)
    return breaks.advance(now, total - left)


@dataclass(frozen=True)
class Reminder:
    """One reminder of a decision: its ``mark`` (``"50"``: half the time limit left, ``"h8"``:
    eight hours left) and the counted time left when it is due."""

    mark: str
    left: timedelta

    @property
    def in_hours(self) -> bool:
        """ "N hours before the deadline" (not a share of the time limit)."""
        return self.mark.startswith("h")


REMINDER_SHARES = (50, 90)  # per cent of the turn's time limit gone: the site's own schedule


def reminders(turn_limit: timedelta, hours: tuple[int, ...] | None) -> list[Reminder]:
    """A player's reminders of one decision, the earliest first: the site's schedule (reminders
    at 50 % and 90 % of the time limit, ``hours`` None) or N hours before the deadline."""
    if hours is None:
        return [Reminder(str(share), turn_limit * (100 - share) / 100) for share in REMINDER_SHARES]
    return [Reminder(f"h{n}", timedelta(hours=n)) for n in sorted(set(hours), reverse=True)]


def fitting_hours(hours: tuple[int, ...] | None, limit: timedelta) -> tuple[int, ...] | None:
    """The player's "hours before the deadline" that a decision of ``limit`` can hold: those
    shorter than it. None (the site's schedule) when none is: "8, 2" in a one-hour game gave no
    reminder at all, both due before the turn began (issue 36)."""
    if hours is None:
        return None
    fitting = tuple(n for n in hours if timedelta(hours=n) < limit)
    return fitting or None


def parse_hours(text: str) -> tuple[int, ...] | None:
    """A player's "hours before the deadline" as stored ("8,4,1"); None for the site's schedule."""
    if not text:
        return None
    return tuple(int(part) for part in text.split(",") if part.strip())
