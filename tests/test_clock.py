"""The one clock (games/clock.py, issue 26): property tests over random pauses, vacations,
weekends, banks and extensions. No deadline in the past, no reminder lost, and time left only
grows through a pause, an extension or a bank."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from games import clock
from games.clock import Breaks, Rules
from tests.conftest import scaled_examples

ZONES = ["UTC", "Europe/Prague", "America/New_York", "Pacific/Auckland", "Asia/Kolkata"]
BASE = datetime(2026, 3, 1, tzinfo=UTC)  # daylight saving time changes inside the range
HOUR = timedelta(hours=1)

instants = st.integers(min_value=0, max_value=60 * 24 * 240).map(
    lambda minutes: BASE + timedelta(minutes=minutes)
)
durations = st.integers(min_value=1, max_value=60 * 24 * 14).map(lambda m: timedelta(minutes=m))
limits = st.integers(min_value=60, max_value=60 * 24 * 7).map(lambda m: timedelta(minutes=m))
banks = st.integers(min_value=0, max_value=60 * 24 * 3).map(lambda m: timedelta(minutes=m))


@st.composite
def spans(draw):
    start = draw(instants)
    return (start, start + draw(durations))


breaks = st.builds(
    Breaks,
    weekends=st.booleans(),
    zone=st.sampled_from(ZONES),
    spans=st.lists(spans(), max_size=4).map(tuple),
)

rules = st.builds(
    Rules,
    turn_limit=limits,
    weekends_off=st.booleans(),
    zone=st.sampled_from(ZONES),
    daily_at=st.none() | st.times().map(lambda t: t.replace(microsecond=0)),
    bank=banks,
)


@given(breaks, instants, durations)
def test_advance_counts_exactly_the_amount(stops, start, amount):
    end = stops.advance(start, amount)
    assert end >= start
    assert stops.counted(start, end) == amount
    # ... and no earlier instant does.
    assert stops.counted(start, end - timedelta(microseconds=1)) < amount


@given(breaks, instants, instants)
def test_counted_time_is_never_more_than_the_wall_clock(stops, a, b):
    start, end = min(a, b), max(a, b)
    assert timedelta(0) <= stops.counted(start, end) <= end - start


@given(rules, instants, st.lists(spans(), max_size=3))
def test_a_new_decision_never_has_a_deadline_in_the_past(game, start, vacations):
    stops = clock.breaks_for(game, vacations)
    deadline = clock.decision_deadline(game, start, game.bank, stops)
    assert start < deadline.limit_at <= deadline.final
    assert stops.counted(deadline.limit_at, deadline.final) == game.bank
    if game.daily_at is None:
        assert stops.counted(start, deadline.limit_at) == game.turn_limit
    else:
        local = deadline.limit_at.astimezone(clock.zone(game.zone))
        # The fixed time of day, unless daylight saving time skipped it that day.
        assert local.time() == game.daily_at or local.dst() != (local - HOUR).dst()
        assert stops.counted(start, deadline.limit_at) >= clock.DAILY_MINIMUM
        assert stops.running(deadline.limit_at)


@given(rules, instants)
def test_a_daily_deadline_is_the_first_one_that_leaves_the_minimum(game, start):
    if game.daily_at is None:
        return
    stops = clock.breaks_for(game)
    limit_at = clock.decision_deadline(game, start, timedelta(0), stops).limit_at
    earlier = limit_at - timedelta(days=1)
    # The day before's (if it was after the start, on a running clock) left too little time.
    if earlier > start and stops.running(earlier):
        assert stops.counted(start, earlier) < clock.DAILY_MINIMUM


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("wait"), durations),
        st.tuples(st.just("vacation"), st.integers(0, 60 * 24 * 5), durations),
        st.tuples(st.just("return"), st.just(0)),
        st.tuples(st.just("pause"), st.just(0)),
        st.tuples(st.just("resume"), st.just(0)),
        st.tuples(st.just("extend"), st.integers(1, 24 * 14)),
    ),
    max_size=25,
)


# Pure arithmetic, a few milliseconds an example: ten times a game-sized property's count.
@settings(max_examples=scaled_examples(10), deadline=None)
@given(rules, instants, OPS, st.sampled_from([None, (8, 4, 1), (6,), (24, 2)]))
def test_random_histories_keep_the_clock_honest(game, start, ops, hours):
    """A decision lives through random waits, vacations (declared ahead or at once, ended
    early), moderators' pauses and extensions. Its deadline is never in the past while time is
    left, time left never grows but through a resume, an extension or a vacation's pause, and
    every reminder not yet due stays between now and the deadline."""
    vacations: list[tuple[datetime, datetime]] = []
    stops = clock.breaks_for(game, vacations)
    now = start
    deadline = clock.decision_deadline(game, now, game.bank, stops).final
    remaining = None  # set while the moderators pause the game
    marks = clock.reminders(game.turn_limit, hours)

    def check():
        if remaining is not None:
            return
        left = clock.time_left(now, deadline, stops)
        if left > timedelta(0):
            assert deadline > now
        for reminder in marks:
            due = clock.reminder_due(now, deadline, reminder.left, stops)
            assert now <= due <= max(deadline, now)
            if left > reminder.left:
                assert clock.time_left(due, deadline, stops) == reminder.left

    check()
    for op, *args in ops:
        if op == "wait":
            before = clock.time_left(now, deadline, stops) if remaining is None else remaining
            now += args[0]
            after = clock.time_left(now, deadline, stops) if remaining is None else remaining
            assert after <= before  # waiting never adds time
        elif op == "vacation":
            begins = now + timedelta(minutes=args[0])
            old = stops
            vacations.append((begins, begins + args[1]))
            stops = clock.breaks_for(game, vacations)
            if remaining is None:
                left = clock.time_left(now, deadline, old)
                deadline = clock.moved(now, deadline, old, stops)
                assert clock.time_left(now, deadline, stops) == left
                assert deadline >= now or left == timedelta(0)
        elif op == "return" and vacations:
            old = stops
            begins, ends = vacations[-1]
            if begins < now < ends:
                vacations[-1] = (begins, now)
            elif begins >= now:
                vacations.pop()  # a vacation not begun yet is called off
            stops = clock.breaks_for(game, vacations)
            if remaining is None:
                left = clock.time_left(now, deadline, old)
                deadline = clock.moved(now, deadline, old, stops)
                assert clock.time_left(now, deadline, stops) == left
        elif op == "pause" and remaining is None:
            remaining = clock.time_left(now, deadline, stops)
        elif op == "resume" and remaining is not None:
            deadline = clock.resumed(now, remaining, stops)
            assert deadline >= now
            assert clock.time_left(now, deadline, stops) == remaining
            remaining = None
        elif op == "extend":
            extra = timedelta(hours=args[0])
            if remaining is not None:
                remaining += extra
            else:
                left = clock.time_left(now, deadline, stops)
                deadline = clock.extended(now, deadline, extra, stops)
                assert clock.time_left(now, deadline, stops) == left + extra
                assert deadline > now
        check()


@given(rules, instants, durations)
def test_the_bank_is_spent_only_past_the_turns_own_limit(game, start, took):
    stops = clock.breaks_for(game)
    deadline = clock.decision_deadline(game, start, game.bank, stops)
    moved_at = start + took
    left = clock.bank_after(game.bank, moved_at, deadline.final, stops)
    assert timedelta(0) <= left <= game.bank
    if moved_at <= deadline.limit_at:
        assert left == game.bank
    else:
        spent = stops.counted(deadline.limit_at, min(moved_at, deadline.final))
        assert left == game.bank - spent
    assert clock.bank_in_use(game.bank, moved_at, deadline.final, stops) == (
        game.bank > timedelta(0) and moved_at >= deadline.limit_at
    ) or stops.counted(deadline.limit_at, moved_at) == timedelta(0)


def test_weekends_stop_the_clock_in_the_games_time_zone():
    prague = Breaks(weekends=True, zone="Europe/Prague")
    friday_evening = datetime(2026, 11, 6, 22, 30, tzinfo=UTC)  # 23:30 in Prague
    assert prague.running(friday_evening)
    assert not prague.running(datetime(2026, 11, 6, 23, 0, tzinfo=UTC))  # Saturday 00:00 there
    # Two hours from Friday 23:30 Prague: half an hour on Friday, 90 minutes on Monday.
    assert prague.advance(friday_evening, 2 * HOUR) == datetime(2026, 11, 9, 0, 30, tzinfo=UTC)


def test_a_daily_deadline_skips_a_day_that_leaves_less_than_the_minimum():
    rules = Rules(turn_limit=timedelta(days=1), zone="Europe/Prague", daily_at=time(20, 0))
    stops = clock.breaks_for(rules)
    # 19:30 in Prague: today's 20:00 is half an hour away, so tomorrow's.
    start = datetime(2026, 11, 3, 18, 30, tzinfo=UTC)
    assert clock.decision_deadline(rules, start, timedelta(0), stops).limit_at == datetime(
        2026, 11, 4, 19, 0, tzinfo=UTC
    )
    # 18:00 there: today's.
    start = datetime(2026, 11, 3, 17, 0, tzinfo=UTC)
    assert clock.decision_deadline(rules, start, timedelta(0), stops).limit_at == datetime(
        2026, 11, 3, 19, 0, tzinfo=UTC
    )


def test_reminders_as_the_player_likes_them():
    assert [r.mark for r in clock.reminders(timedelta(days=2), None)] == ["50", "90"]
    assert [r.left for r in clock.reminders(timedelta(days=2), None)] == [
        timedelta(days=1),
        timedelta(hours=4, minutes=48),
    ]
    assert [r.mark for r in clock.reminders(timedelta(days=2), (1, 8, 4))] == ["h8", "h4", "h1"]
    assert clock.parse_hours("8,4,1") == (8, 4, 1)
    assert clock.parse_hours("") is None


# -- Quiet hours: every decision leaves its player an hour outside them (issue 47) ------------

quiets = st.builds(
    clock.Quiet,
    start=st.integers(0, 47).map(lambda half: time(half // 2, 30 * (half % 2))),
    end=st.integers(0, 47).map(lambda half: time(half // 2, 30 * (half % 2))),
    zone=st.sampled_from(ZONES),
).filter(lambda quiet: quiet.start != quiet.end)


@given(rules, instants, st.lists(spans(), max_size=3), quiets)
def test_every_decision_leaves_its_player_an_hour_outside_their_quiet_hours(
    game, start, vacations, quiet
):
    """Whatever the clock, the vacations and the quiet hours: the turn's own time holds at least
    ``AWAKE_MINIMUM`` of counted time outside the player's quiet hours, so the "your turn" email,
    held until they end, comes that long before the turn can run out."""
    stops = clock.breaks_for(game, vacations)
    deadline = clock.decision_deadline(game, start, game.bank, stops, quiet)
    awake = stops.awake(quiet)
    assert awake.counted(start, deadline.limit_at) >= clock.AWAKE_MINIMUM
    assert stops.counted(deadline.limit_at, deadline.final) == game.bank
    without = clock.decision_deadline(game, start, game.bank, stops)
    assert deadline.limit_at >= without.limit_at  # quiet hours only ever give more time
    if game.daily_at is None:
        # The time limit, or the instant the awake hour is reached, whichever is later.
        assert deadline.limit_at in (
            without.limit_at,
            awake.advance(start, clock.AWAKE_MINIMUM),
        )
    else:
        assert stops.running(deadline.limit_at)
        earlier = deadline.limit_at - timedelta(days=1)
        if earlier > start and stops.running(earlier):  # the day before's left too little
            assert awake.counted(start, earlier) < clock.AWAKE_MINIMUM


@given(quiets, instants)
def test_quiet_windows_are_the_players_local_hours(quiet, at):
    window = quiet.window_at(at)
    local = at.astimezone(clock.zone(quiet.zone)).time()
    inside = (
        quiet.start <= local < quiet.end
        if quiet.start < quiet.end
        else local >= quiet.start or local < quiet.end
    )
    skipped = (
        at.astimezone(clock.zone(quiet.zone)).dst()
        != (at - 2 * HOUR).astimezone(clock.zone(quiet.zone)).dst()
    )
    if not skipped:  # (a change of daylight saving time may shift a window by its hour)
        assert (window is not None) == inside
    if window is not None:
        assert window[0] <= at < window[1]
        assert not Breaks(quiet=quiet).running(at)


def test_without_quiet_hours_the_awake_minimum_changes_no_deadline():
    """The shortest time per turn is the minimum itself: no deadline moves for a player without
    quiet hours."""
    start = datetime(2026, 11, 6, 22, 30, tzinfo=UTC)
    rules = Rules(turn_limit=HOUR, weekends_off=True, zone="Europe/Prague")
    stops = clock.breaks_for(rules)
    assert clock.decision_deadline(rules, start, timedelta(0), stops).final == stops.advance(
        start, HOUR
    )


@given(breaks, instants, banks, quiets)
def test_a_resumed_turns_last_hour_falls_outside_the_players_quiet_hours(
    stops, now, remaining, quiet
):
    deadline = clock.resumed(now, remaining, stops, quiet)
    assert deadline >= clock.resumed(now, remaining, stops)  # only ever more time
    assert stops.counted(now, deadline) >= remaining
    assert stops.awake(quiet).counted(now, deadline) >= min(remaining, clock.AWAKE_MINIMUM)
