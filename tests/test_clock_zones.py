"""The one clock (games/clock.py) on a machine whose own time zone is not UTC, its instants
pinned to the microsecond (issue 41).

The clock promises that every instant it gives out is in UTC, whatever the zone of the instants
it is given and whatever ``TZ`` the process runs under: a server set to local time must not
shift deadlines, reminders or weekends. Under UTC, converting "to the local zone" and "to UTC"
look the same; these tests run under zones with odd offsets (Kathmandu, +05:45; St. John's,
-03:30 and -02:30 in summer), where they differ. The in-process tests switch the process's zone
with ``time.tzset``; one test runs the whole of tests/test_clock.py again under each zone.

The property tests of tests/test_clock.py check the clock against itself; the tests here name
the exact instants at the edges (a stop that begins where counting ends, spans that touch or
overlap, the daily deadline that leaves exactly the minimum).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from zoneinfo import ZoneInfo

import pytest

from games import clock
from games.clock import Breaks, Rules
from tests import test_clock

LOCAL_ZONES = ["Asia/Kathmandu", "America/St_Johns"]
HOUR = timedelta(hours=1)
PRAGUE = ZoneInfo("Europe/Prague")


@pytest.fixture(params=LOCAL_ZONES)
def local_zone(request, monkeypatch):
    """The process runs under ``TZ`` = the parameter for the test, then under its own again."""
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    # The zone really is in force: local time is not UTC.
    assert datetime(2026, 1, 5, 12, tzinfo=UTC).astimezone().utcoffset() != timedelta(0)
    try:
        yield request.param
    finally:
        monkeypatch.undo()
        time.tzset()


def in_utc(at: datetime) -> tuple[timedelta | None, datetime]:
    """An instant as the database and the pages get it: its offset and its wall-clock time."""
    return at.utcoffset(), at.replace(tzinfo=None)


def test_utc_gives_the_utc_wall_clock_of_any_instant(local_zone):
    at = datetime(2026, 11, 6, 23, 30, tzinfo=PRAGUE)
    assert in_utc(clock.utc(at)) == (timedelta(0), datetime(2026, 11, 6, 22, 30))
    assert clock.utc(at).tzinfo is UTC


def test_weekend_stops_are_given_in_utc(local_zone):
    stops = Breaks(weekends=True, zone="Europe/Prague")
    since = datetime(2026, 11, 4, 12, tzinfo=PRAGUE)
    first = next(stops.stops(since))
    # The weekend before is over, so Saturday 7 November 00:00 to Monday 00:00 in Prague.
    assert [in_utc(at) for at in first] == [
        (timedelta(0), datetime(2026, 11, 6, 23, 0)),
        (timedelta(0), datetime(2026, 11, 8, 23, 0)),
    ]
    assert stops.stop_at(datetime(2026, 11, 7, 12, tzinfo=PRAGUE)) == first
    assert stops.stop_at(since) is None


def test_vacations_given_in_another_zone_are_kept_in_utc(local_zone):
    begins = datetime(2026, 7, 1, 9, tzinfo=PRAGUE)
    stops = Breaks(spans=((begins, begins + 2 * HOUR),))
    assert [in_utc(at) for at in next(stops.stops(begins - HOUR))] == [
        (timedelta(0), datetime(2026, 7, 1, 7, 0)),
        (timedelta(0), datetime(2026, 7, 1, 9, 0)),
    ]
    # Three hours from 08:00 Prague: one before the vacation, two after it.
    assert in_utc(stops.advance(begins - HOUR, 3 * HOUR)) == (
        timedelta(0),
        datetime(2026, 7, 1, 11, 0),
    )
    assert in_utc(stops.advance(begins, timedelta(0))) == (timedelta(0), datetime(2026, 7, 1, 7))


def test_deadlines_are_given_in_utc(local_zone):
    rules = Rules(turn_limit=timedelta(days=1), zone="Europe/Prague", daily_at=clock_time(20, 0))
    stops = clock.breaks_for(rules)
    start = datetime(2026, 11, 3, 18, 0, tzinfo=PRAGUE)
    deadline = clock.decision_deadline(rules, start, 2 * HOUR, stops)
    assert in_utc(deadline.limit_at) == (timedelta(0), datetime(2026, 11, 3, 19, 0))
    assert in_utc(deadline.final) == (timedelta(0), datetime(2026, 11, 3, 21, 0))
    per_turn = Rules(turn_limit=4 * HOUR)
    deadline = clock.decision_deadline(per_turn, start, timedelta(0), clock.breaks_for(per_turn))
    assert in_utc(deadline.limit_at) == (timedelta(0), datetime(2026, 11, 3, 21, 0))
    assert deadline.final == deadline.limit_at


def test_moved_resumed_extended_and_reminders_are_given_in_utc(local_zone):
    now = datetime(2026, 7, 1, 9, tzinfo=PRAGUE)  # 07:00 UTC
    deadline = datetime(2026, 7, 1, 15, tzinfo=PRAGUE)  # 13:00 UTC: six hours left
    none, vacation = Breaks(), Breaks(spans=((now + HOUR, now + 3 * HOUR),))
    assert in_utc(clock.moved(now, deadline, none, vacation)) == (
        timedelta(0),
        datetime(2026, 7, 1, 15, 0),
    )
    # A deadline already passed stays where it was, in UTC.
    assert in_utc(clock.moved(deadline + HOUR, deadline, none, vacation)) == (
        timedelta(0),
        datetime(2026, 7, 1, 13, 0),
    )
    assert in_utc(clock.resumed(now, 2 * HOUR, none)) == (timedelta(0), datetime(2026, 7, 1, 9))
    assert in_utc(clock.resumed(now, -HOUR, none)) == (timedelta(0), datetime(2026, 7, 1, 7))
    assert in_utc(clock.reminder_due(now, deadline, 2 * HOUR, none)) == (
        timedelta(0),
        datetime(2026, 7, 1, 11, 0),
    )
    # A reminder whose time has come is due now (in UTC), not at some later instant.
    assert in_utc(clock.reminder_due(now, deadline, 6 * HOUR, none)) == (
        timedelta(0),
        datetime(2026, 7, 1, 7, 0),
    )
    assert in_utc(clock.reminder_due(now, deadline, 7 * HOUR, none)) == (
        timedelta(0),
        datetime(2026, 7, 1, 7, 0),
    )


def test_an_extension_counts_from_the_deadline_or_from_now(local_zone):
    now = datetime(2026, 7, 1, 9, tzinfo=PRAGUE)  # 07:00 UTC
    none = Breaks()
    # A deadline still ahead moves by the extra time.
    assert in_utc(clock.extended(now, now + HOUR, 2 * HOUR, none)) == (
        timedelta(0),
        datetime(2026, 7, 1, 10, 0),
    )
    # One already passed: the extra time counts from now.
    assert in_utc(clock.extended(now, now - HOUR, 2 * HOUR, none)) == (
        timedelta(0),
        datetime(2026, 7, 1, 9, 0),
    )
    # A decision without a deadline (a paused game): from now.
    assert in_utc(clock.extended(now, None, 2 * HOUR, none)) == (
        timedelta(0),
        datetime(2026, 7, 1, 9, 0),
    )


def test_unknown_or_empty_zones_are_utc(local_zone):
    assert clock.zone("") is ZoneInfo("UTC")
    assert clock.zone("Mars/Olympus_Mons") is ZoneInfo("UTC")
    assert clock.zone("../etc/passwd") is ZoneInfo("UTC")  # refused by zoneinfo (ValueError)
    assert clock.zone("Europe/Prague") is PRAGUE


def test_a_daily_deadline_is_the_days_own_in_the_games_zone(local_zone):
    """22:00 in New York, asked for at 20:00 there: that evening's, though it is already the
    next day in Kathmandu, in St. John's and in UTC."""
    rules = Rules(turn_limit=timedelta(days=1), zone="America/New_York", daily_at=clock_time(22))
    start = datetime(2026, 11, 3, 20, tzinfo=ZoneInfo("America/New_York"))
    deadline = clock.decision_deadline(rules, start, timedelta(0), clock.breaks_for(rules))
    assert in_utc(deadline.limit_at) == (timedelta(0), datetime(2026, 11, 4, 3, 0))


def test_a_daily_deadline_that_leaves_exactly_the_minimum_is_taken(local_zone):
    rules = Rules(turn_limit=timedelta(days=1), zone="Europe/Prague", daily_at=clock_time(20))
    start = datetime(2026, 11, 3, 19, tzinfo=PRAGUE)  # one hour before
    deadline = clock.decision_deadline(rules, start, timedelta(0), clock.breaks_for(rules))
    assert in_utc(deadline.limit_at) == (timedelta(0), datetime(2026, 11, 3, 19, 0))


def test_a_daily_deadline_never_falls_while_the_clock_stands_still(local_zone):
    """A vacation from Monday 19:00 to Tuesday 21:00 (Prague): Monday's 20:00 would leave nine
    counted hours but falls inside it, Tuesday's too: Wednesday's."""
    rules = Rules(turn_limit=timedelta(days=1), zone="Europe/Prague", daily_at=clock_time(20))
    monday = datetime(2026, 11, 2, 10, tzinfo=PRAGUE)
    away = (datetime(2026, 11, 2, 19, tzinfo=PRAGUE), datetime(2026, 11, 3, 21, tzinfo=PRAGUE))
    deadline = clock.decision_deadline(rules, monday, HOUR, clock.breaks_for(rules, [away]))
    assert in_utc(deadline.limit_at) == (timedelta(0), datetime(2026, 11, 4, 19, 0))
    assert in_utc(deadline.final) == (timedelta(0), datetime(2026, 11, 4, 20, 0))


def test_a_daily_deadline_beyond_the_search_falls_back_to_the_time_per_turn(local_zone):
    """Only a vacation longer than the search (over a year) leaves no day: then the turn's own
    time limit, counted from the start, after the vacation."""
    rules = Rules(turn_limit=5 * HOUR, zone="Europe/Prague", daily_at=clock_time(20))
    start = datetime(2026, 1, 5, 10, tzinfo=UTC)
    away = (start, start + timedelta(days=clock.DAILY_SEARCH_DAYS + 30))
    deadline = clock.decision_deadline(rules, start, timedelta(0), clock.breaks_for(rules, [away]))
    assert deadline.limit_at == away[1] + 5 * HOUR


def test_rules_without_a_daily_time_have_no_daily_deadline(local_zone):
    rules = Rules(turn_limit=HOUR)
    with pytest.raises(ValueError, match=r"^These rules have no daily deadline\.$"):
        clock.daily_deadline(rules, datetime(2026, 7, 1, tzinfo=UTC), Breaks())


def test_breaks_for_a_game_are_its_weekends_zone_and_the_players_vacations(local_zone):
    away = (datetime(2026, 7, 1, 9, tzinfo=PRAGUE), datetime(2026, 7, 3, tzinfo=PRAGUE))
    rules = Rules(turn_limit=HOUR, weekends_off=True, zone="Asia/Tokyo")
    assert clock.breaks_for(rules, [away]) == Breaks(
        weekends=True, zone="Asia/Tokyo", spans=(away,)
    )
    assert clock.breaks_for(Rules(turn_limit=HOUR)) == Breaks()


def test_touching_and_overlapping_stops_merge_and_empty_ones_are_none(local_zone):
    t = datetime(2026, 7, 1, tzinfo=UTC)
    stops = Breaks(
        spans=(
            (t + 5 * HOUR, t + 6 * HOUR),
            (t + 1 * HOUR, t + 2 * HOUR),
            (t + 2 * HOUR, t + 3 * HOUR),  # touches the one before
            (t + 2 * HOUR + HOUR / 2, t + 4 * HOUR),  # overlaps it
            (t + 8 * HOUR, t + 8 * HOUR),  # empty
            (t + 9 * HOUR, t + 7 * HOUR),  # backwards
        )
    )
    assert list(stops.stops(t)) == [(t + HOUR, t + 4 * HOUR), (t + 5 * HOUR, t + 6 * HOUR)]
    # A stop that ended at ``since`` is over; one that ends after it is not.
    assert list(stops.stops(t + 4 * HOUR)) == [(t + 5 * HOUR, t + 6 * HOUR)]
    assert list(stops.stops(t + 4 * HOUR - timedelta(microseconds=1)))[0][0] == t + HOUR
    assert list(stops.stops(t + 6 * HOUR)) == []
    # The first instant of a stop is in it, its end is not.
    assert stops.stop_at(t + HOUR) == (t + HOUR, t + 4 * HOUR)
    assert not stops.running(t + HOUR) and stops.running(t + 4 * HOUR)
    assert stops.stop_at(t + 4 * HOUR) is None
    assert stops.counted(t, t + 7 * HOUR) == 3 * HOUR
    assert stops.advance(t, 2 * HOUR) == t + 5 * HOUR


def test_counting_that_ends_where_a_stop_begins_ends_there(local_zone):
    """Friday 23:00 in Prague plus one hour of a clock that stops at weekends: Saturday 00:00
    there, not Monday's."""
    stops = Breaks(weekends=True, zone="Europe/Prague")
    friday = datetime(2026, 11, 6, 23, tzinfo=PRAGUE)
    assert in_utc(stops.advance(friday, HOUR)) == (timedelta(0), datetime(2026, 11, 6, 23, 0))
    assert in_utc(stops.advance(friday, HOUR + timedelta(microseconds=1))) == (
        timedelta(0),
        datetime(2026, 11, 8, 23, 0, 0, 1),
    )


def test_the_bank_is_in_use_from_the_turns_own_limit_on(local_zone):
    now = datetime(2026, 7, 1, 9, tzinfo=UTC)
    none = Breaks()
    # Two hours left of which two are the bank: the turn's own limit is now.
    assert clock.bank_in_use(2 * HOUR, now, now + 2 * HOUR, none)
    assert not clock.bank_in_use(2 * HOUR, now - timedelta(microseconds=1), now + 2 * HOUR, none)
    assert not clock.bank_in_use(timedelta(0), now, now, none)


def test_the_clocks_property_tests_pass_under_a_local_zone(local_zone):
    """Every test of tests/test_clock.py again, in this process under ``TZ=local_zone``.

    In this process, not in a pytest of its own started with ``TZ`` set: Django's settings set
    ``TZ`` to ``TIME_ZONE`` (UTC) when they load, so such a process ran them under UTC again."""
    properties = [test for name, test in vars(test_clock).items() if name.startswith("test_")]
    assert len(properties) >= 10  # the module's tests, found
    for test in properties:
        test()


KYIV_NIGHTS = clock.Quiet(start=clock_time(0), end=clock_time(9), zone="Europe/Kyiv")


@pytest.mark.parametrize("hour", [4, 5])
def test_a_daily_deadline_in_the_players_quiet_hours_is_the_next_days(local_zone, hour):
    """Issue 47: a daily 07:00 Prague deadline, a turn reaching a Kyiv player (quiet 00-09) at
    04:00 or 05:00 UTC. Today's (06:00 UTC) leaves him no time after 09:00 Kyiv (07:00 UTC), when
    his turn email goes: tomorrow's, 23 hours after it."""
    rules = Rules(turn_limit=timedelta(days=1), zone="Europe/Prague", daily_at=clock_time(7))
    start = datetime(2026, 11, 4, hour, tzinfo=UTC)
    stops = clock.breaks_for(rules)
    without = clock.decision_deadline(rules, start, timedelta(0), stops)
    assert in_utc(without.final) == (timedelta(0), datetime(2026, 11, 4, 6, 0))  # as it was
    deadline = clock.decision_deadline(rules, start, timedelta(0), stops, KYIV_NIGHTS)
    assert in_utc(deadline.final) == (timedelta(0), datetime(2026, 11, 5, 6, 0))
    # One that reached him the evening before (20:00 Kyiv) ends at today's: it left him four
    # awake hours.
    evening = datetime(2026, 11, 3, 18, tzinfo=UTC)
    assert in_utc(
        clock.decision_deadline(rules, evening, timedelta(0), stops, KYIV_NIGHTS).final
    ) == (timedelta(0), datetime(2026, 11, 4, 6, 0))


def test_a_turn_limit_reaching_into_quiet_hours_leaves_an_awake_hour(local_zone):
    """A four-hour turn for a player quiet from midnight to 08:00 (Prague): begun at 03:00 it
    ends at 09:00 (not 07:00); begun at 23:30, at 08:30 (not 03:30); begun at 18:00, at 22:00 as
    ever; the bank comes after it."""
    rules = Rules(turn_limit=4 * HOUR)
    nights = clock.Quiet(start=clock_time(0), end=clock_time(8), zone="Europe/Prague")
    stops = clock.breaks_for(rules)

    def final(at, bank=timedelta(0)):
        return in_utc(clock.decision_deadline(rules, at, bank, stops, nights).final)[1]

    assert final(datetime(2026, 11, 4, 3, tzinfo=PRAGUE)) == datetime(2026, 11, 4, 8, 0)
    assert final(datetime(2026, 11, 3, 23, 30, tzinfo=PRAGUE)) == datetime(2026, 11, 4, 7, 30)
    assert final(datetime(2026, 11, 4, 18, tzinfo=PRAGUE)) == datetime(2026, 11, 4, 21, 0)
    assert final(datetime(2026, 11, 4, 3, tzinfo=PRAGUE), 2 * HOUR) == datetime(2026, 11, 4, 10)


def test_the_awake_hour_skips_a_vacation_and_a_weekend(local_zone):
    """Quiet hours, a weekend off and a vacation together: only time outside all three counts.
    A one-hour turn on Friday 23:30 Prague, quiet 00-08, vacation all Monday: 30 minutes on
    Friday, then Tuesday 08:00 + 30 minutes."""
    rules = Rules(turn_limit=HOUR, weekends_off=True, zone="Europe/Prague")
    nights = clock.Quiet(start=clock_time(0), end=clock_time(8), zone="Europe/Prague")
    monday = (datetime(2026, 11, 9, 0, tzinfo=PRAGUE), datetime(2026, 11, 10, 0, tzinfo=PRAGUE))
    stops = clock.breaks_for(rules, [monday])
    start = datetime(2026, 11, 6, 23, 30, tzinfo=PRAGUE)
    deadline = clock.decision_deadline(rules, start, timedelta(0), stops, nights)
    assert in_utc(deadline.final) == (timedelta(0), datetime(2026, 11, 10, 7, 30))


def test_the_quiet_hours_a_moment_falls_in_are_the_players_own_from_their_first_instant(
    local_zone,
):
    """Quiet 22:00 to 09:00 in Pago Pago (UTC-11). At 08:00 there (19:00 UTC: in Kathmandu
    already the next day) the night begun the evening before is under way, whatever the machine's
    own date; a night holds its first instant, not its last (found by mutation testing)."""
    pago = ZoneInfo("Pacific/Pago_Pago")
    nights = clock.Quiet(start=clock_time(22), end=clock_time(9), zone="Pacific/Pago_Pago")
    begins, ends = nights.window_at(datetime(2026, 11, 4, 8, tzinfo=pago))
    assert in_utc(begins) == (timedelta(0), datetime(2026, 11, 4, 9, 0))
    assert in_utc(ends) == (timedelta(0), datetime(2026, 11, 4, 20, 0))
    assert nights.window_at(ends) is None
    evening = datetime(2026, 11, 4, 22, tzinfo=pago)
    assert nights.window_at(evening)[0] == evening
    assert nights.window_at(evening - timedelta(microseconds=1)) is None
