"""Every turn reaches an email-first player before it can time out (issue 47, points 2 and 3).

A simulated fortnight in five time zones: two tables of the same five players, one with a daily
07:00 Prague deadline, one with six hours a turn and weekends off in New York; everyone has
quiet hours, three take vacations, players act at random moments of their waking hours or not
at all, and sometimes look at the game a minute before their turn begins. Time moves with
time_machine from one event to the next (no sleeping), the beat's sweep runs at each (at most
once a simulated minute), and the real sending code sends the outbox to the test email backend.
For every timeout, the player was sent a "your turn" email or a reminder of that turn, outside
their quiet hours, before it. Before the fix, 21 of 47 timeouts came with no such email, and
three seats were made absent for it.

Then the single cases, each with the test that failed before its fix: the turn email of a
player who had just looked at the game, the daily deadline of the issue's Kyiv player, a new
clock that never shortens a turn, and "resumed" and "more time" held by a vacation and quiet
hours.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta

import cairosvg
import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from accounts.services import profile_update
from games import engine
from games.models import Game, Move, Notice, Seat
from games.moderation import tables
from games.outbox import schedule
from games.outbox.quiet import quiet_window
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import default_move, move_submit
from games.play.vacations import vacation_declare
from games.play.visits import seat_seen
from games.read import vacations
from games.read.clock import rules_lines
from games.tasks import sweep
from tests.players import create_player, the_same_deal

pytestmark = pytest.mark.django_db
HOUR, DAY, MINUTE = timedelta(hours=1), timedelta(days=1), timedelta(minutes=1)
START = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)  # a Monday

# Name: (time zone, quiet from, quiet until, reminders: "" the site's, else hours before).
PLAYERS = {
    "pia": ("Europe/Prague", time(22), time(7), ""),
    "kyi": ("Europe/Kyiv", time(0), time(9), "3"),
    "ned": ("America/New_York", time(23), time(7), "2"),
    "tom": ("Asia/Tokyo", time(1), time(8), "4"),
    "lea": ("America/Los_Angeles", time(22), time(6), ""),
}


@pytest.fixture
def traveller(eager_celery):
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def five(traveller):
    users = {}
    for name, (zone, quiet_from, quiet_until, hours) in PLAYERS.items():
        users[name] = create_player(
            name, time_zone=zone, quiet_from=quiet_from, quiet_until=quiet_until,
            reminder_hours=hours,
        )  # fmt: skip
    return users


def table(users, name, **clock):
    creator, *others = users
    game = game_create(creator=creator, name=name, ruleset="base", max_seats=len(users), **clock)
    for user in others:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=creator)


def dealt(users, name, **clock):
    """``table``, dealt the same in every run."""
    with the_same_deal(name):
        return table(users, name, **clock)


@pytest.fixture
def pictures_once(monkeypatch):
    """CairoSVG renders each distinct picture once (a maze of passes never changes, and the
    fortnight's hundreds of emails drew it anew each time: most of the test's time)."""
    monkeypatch.setattr(cairosvg, "svg2png", functools.cache(cairosvg.svg2png))


def awake(user, at: datetime) -> bool:
    return quiet_window(user, at) is None and vacations.current(user.pk, at) is None


def next_awake(user, at: datetime) -> datetime:
    """The first instant from ``at`` on when the player is neither asleep nor away."""
    for _ in range(100):
        window = quiet_window(user, at)
        away = vacations.current(user.pk, at)
        if window is None and away is None:
            return at
        at = max(window[1] if window else at, away.end if away else at)
    raise AssertionError("the player never wakes")


def move_now(game_id: int, user, rng) -> bool:
    """The player's safe move in their decision now (False: it is not theirs any more)."""
    game = Game.objects.get(pk=game_id)
    seat = game.seats.get(user=user)
    if game.status != Game.Status.RUNNING or game.to_move != seat.position:
        return False
    state = engine.State.from_json(game.snapshot)
    move = default_move(state, seat.engine_name, rng)
    move_submit(game_id=game_id, user=user, move=move, expected_version=game.version)
    return True


@dataclass
class Fortnight:
    """The simulation's agenda: who acts when, and what happened."""

    rng: random.Random
    users: dict
    games: list[int]
    actions: list[tuple[datetime, int, int, object]] = field(default_factory=list)
    seen: dict[int, tuple] = field(default_factory=dict)  # game -> its decision last looked at
    decisions: int = 0
    in_quiet_hours: int = 0  # decisions that began in their player's quiet hours
    looked: int = 0  # players who looked at the game a minute before their turn

    def plan(self, now: datetime) -> None:
        """Each decision that began since: its player acts at a random waking moment, or (one in
        four) not at all; after two timeouts in a row, at their first waking moment, so that
        nobody becomes absent."""
        running = Game.objects.filter(pk__in=self.games, status=Game.Status.RUNNING)
        for game in running.order_by("pk"):  # one order, so one sequence of random draws
            key = (game.version, game.to_move, game.decision_since)
            if self.seen.get(game.pk) == key:
                continue
            self.seen[game.pk] = key
            seat = game.seats.select_related("user").get(position=game.to_move)
            self.decisions += 1
            self.in_quiet_hours += quiet_window(seat.user, now) is not None
            if seat.timeouts_in_a_row >= 2:
                # Their last chance: they act at their first waking moment (the awake hour
                # every turn leaves them is after it).
                at = next_awake(seat.user, now + 2 * MINUTE)
                self.actions.append((at, game.pk, game.version, seat.user))
                continue
            if self.rng.random() < 0.25:
                continue
            delay = timedelta(minutes=self.rng.randrange(2, 8 * 60))
            at = next_awake(seat.user, now + delay)
            self.actions.append((at, game.pk, game.version, seat.user))

    def act(self, now: datetime) -> None:
        due = [a for a in self.actions if a[0] <= now]
        self.actions = [a for a in self.actions if a[0] > now]
        for _at, game_id, version, user in sorted(due, key=lambda a: (a[0], a[1])):
            game = Game.objects.get(pk=game_id)
            if game.version != version:
                continue  # too late: the site decided for them
            nxt = game.seats.select_related("user").get(
                position=(game.to_move + 1) % game.seats.count()
            )
            if self.rng.random() < 0.5 and awake(nxt.user, now - MINUTE):
                # The next player looks at the game a minute before their turn, then leaves.
                seat_seen(game=game, user=nxt.user, now=now - MINUTE)
                self.looked += 1
            move_now(game_id, user, self.rng)

    def next_event(self, now: datetime, end: datetime) -> datetime:
        """The next instant anything falls due (at least a minute on: the sweep's pace)."""
        candidates = [end, now + 6 * HOUR]
        candidates += [a[0] for a in self.actions]
        due = Notice.objects.filter(status=Notice.Status.PENDING).order_by("due_at").first()
        if due is not None:
            candidates.append(due.due_at)
        deadline = (
            Game.objects.filter(pk__in=self.games, status=Game.Status.RUNNING)
            .exclude(deadline=None)
            .order_by("deadline")
            .values_list("deadline", flat=True)
            .first()
        )
        if deadline is not None:
            candidates.append(deadline)
        return max(min(candidates), now + MINUTE)


def told_before(move: Move) -> bool:
    """Whether the player whose time ran out in ``move`` was sent a "your turn" email or a
    reminder of that turn, outside their quiet hours, before it."""
    user = move.seat.user
    sent = Notice.objects.filter(
        seat=move.seat,
        version=move.sequence - 1,
        kind__in=(Notice.Kind.TURN, Notice.Kind.REMINDER),
        status=Notice.Status.SENT,
        sent_at__lt=move.created_at,
    ).values_list("sent_at", flat=True)
    return any(quiet_window(user, at) is None for at in sent)


@pytest.mark.slow  # started first (tests/conftest.py)
def test_a_fortnight_in_five_zones_has_no_timeout_without_an_email_first(
    five, traveller, pictures_once
):
    rng = random.Random(47)
    users = five
    daily = dealt(
        list(users.values()), "Daily", clock_zone="Europe/Prague", daily_at=time(7),
        turn_limit=DAY,
    )  # fmt: skip
    order = [users[n] for n in ("ned", "lea", "tom", "pia", "kyi")]
    fixed = dealt(
        order, "Six hours", clock_zone="America/New_York", turn_limit=6 * HOUR,
        weekends_off=True,
    )  # fmt: skip
    sim = Fortnight(rng=rng, users=users, games=[daily.pk, fixed.pk])
    # Vacations: Kyi's two days from Thursday (declared Tuesday), Lea's and Tom's a day at once.
    holidays = [
        (START + DAY, users["kyi"], 2, datetime(2026, 11, 5).date()),
        (START + 6 * DAY + 8 * HOUR, users["lea"], 1, None),
        (START + 9 * DAY + 2 * HOUR, users["tom"], 1, None),
    ]
    end = START + 14 * DAY
    now = START
    sweeps = 0
    while now < end:
        sweep()
        sweeps += 1
        while holidays and holidays[0][0] <= now:
            _at, user, days, starts_on = holidays.pop(0)
            vacation_declare(user=user, days=days, starts_on=starts_on)
        sim.act(now)
        sim.plan(now)
        now = sim.next_event(now, end)
        if holidays:
            now = min(now, max(holidays[0][0], timezone.now() + MINUTE))
        traveller.move_to(now)
    timeouts = list(
        Move.objects.filter(game_id__in=sim.games, automatic=True)
        .select_related("seat__user")
        .order_by("created_at")
    )
    untold = [
        (m.game.name, m.seat.user.username, m.created_at.isoformat())
        for m in timeouts
        if not told_before(m)
    ]
    # The simulation did what it is for: many decisions, some in quiet hours, timeouts,
    # looks just before a turn, vacations, every sent notice in the test outbox.
    held_for_look = Notice.objects.filter(
        kind=Notice.Kind.TURN, status=Notice.Status.SENT, data__has_key=schedule.UNLESS_SEEN
    ).count()
    # The simulation did what it is for: decisions, some begun in quiet hours, timeouts, looks
    # just before a turn (emails then held, and sent), every sent notice in the test outbox.
    assert sim.decisions >= 60 and sim.in_quiet_hours >= 15, (sim.decisions, sim.in_quiet_hours)
    assert len(timeouts) >= 15 and sim.looked >= 10, (len(timeouts), sim.looked)
    assert held_for_look >= 3
    assert not Seat.objects.filter(game_id__in=sim.games, state=Seat.State.ABSENT).exists()
    assert len(mail.outbox) == Notice.objects.filter(status=Notice.Status.SENT).count()
    assert untold == [], f"{len(untold)} of {len(timeouts)} timeouts came with no email first"


# -- The turn email of a player who looked at the game a moment before -------------------------


@pytest.fixture
def three(traveller):
    return [create_player(name) for name in ("ann", "bob", "cid")]


def deciding(game) -> Seat:
    game.refresh_from_db()
    return game.seats.select_related("user").get(position=game.to_move)


def to(user, subject=""):
    return [m for m in mail.outbox if m.to == [user.email] and subject in m.subject]


def pass_turn(game) -> None:
    seat = deciding(game)
    assert move_now(game.pk, seat.user, random.Random(1))


@pytest.mark.parametrize("looks_again", [False, True])
def test_a_turn_email_held_for_a_recent_look_goes_unless_the_player_looks_again(
    three, traveller, looks_again
):
    """The next player looked at the game two minutes before their turn began, then closed it:
    their "your turn" email was dropped and nothing sent it later. It goes ``ACTIVE_WINDOW``
    after the turn began, unless they look at the game again meanwhile."""
    game = table(three, "Deep mine")
    sweep()
    traveller.shift(10 * MINUTE)
    nxt = game.seats.select_related("user").get(position=(deciding(game).position + 1) % 3)
    seat_seen(game=Game.objects.get(pk=game.pk), user=nxt.user)
    traveller.shift(2 * MINUTE)
    pass_turn(game)
    turn = Notice.objects.get(kind=Notice.Kind.TURN, seat=nxt, status=Notice.Status.PENDING)
    assert turn.due_at == timezone.now() + schedule.ACTIVE_WINDOW
    sweep()
    assert to(nxt.user, "Your turn") == []
    if looks_again:
        traveller.shift(2 * MINUTE)
        seat_seen(game=Game.objects.get(pk=game.pk), user=nxt.user)
    traveller.shift(schedule.ACTIVE_WINDOW)
    sweep()
    turn.refresh_from_db()
    if looks_again:
        assert to(nxt.user, "Your turn") == []
        assert (turn.status, turn.reason) == ("skipped", "the player has looked at the game since")
    else:
        assert len(to(nxt.user, "Your turn")) == 1 and turn.status == "sent"


def test_the_end_of_a_game_reaches_a_player_who_had_just_looked_at_it(three, traveller):
    """The same hole at a game's end: a player seen a moment before it ended was never told."""
    game = table(three, "Deep mine")
    ann = game.seats.get(user=three[0])
    traveller.shift(HOUR)
    seat_seen(game=Game.objects.get(pk=game.pk), user=three[0])
    traveller.shift(MINUTE)
    with_end = Game.objects.get(pk=game.pk)
    rows = schedule.notices_for_end(game=with_end, now=timezone.now())
    mine = next(n for n in rows if n.seat_id == ann.pk)
    assert mine.due_at == timezone.now() + schedule.ACTIVE_WINDOW
    others = [n for n in rows if n.seat_id != ann.pk]
    assert len(others) == 2 and all(n.due_at == timezone.now() for n in others)


# -- The Kyiv player, through the services ----------------------------------------------


def test_a_turn_reaching_a_sleeping_player_before_a_daily_deadline_waits_for_the_next_one(
    three, traveller
):
    """A daily 07:00 Prague deadline; the turn reaches a Kyiv player (quiet 00-09) at 04:30 UTC.
    It timed out at 06:00 UTC, his email held until 07:00 UTC and then dropped. Now its deadline
    is the next day's, his email goes at 09:00 Kyiv and a reminder before the deadline."""
    kyi = three[1]
    kyi.time_zone, kyi.quiet_from, kyi.quiet_until = "Europe/Kyiv", time(0), time(9)
    kyi.save()
    traveller.move_to(datetime(2026, 11, 3, 4, 30, tzinfo=UTC))
    game = table(three, "Night shift", clock_zone="Europe/Prague", daily_at=time(7))
    while deciding(game).user != kyi:
        pass_turn(game)
    game.refresh_from_db()
    assert game.deadline == datetime(2026, 11, 4, 6, 0, tzinfo=UTC)
    assert any("outside their quiet hours" in line for line in rules_lines(game))
    traveller.move_to(datetime(2026, 11, 3, 6, 59, tzinfo=UTC))
    sweep()
    assert to(kyi, "Your turn") == []
    traveller.move_to(datetime(2026, 11, 3, 7, 0, tzinfo=UTC))
    sweep()
    [turn] = to(kyi, "Your turn")
    assert "Decide by Nov. 4, 2026, 8 a.m. (Europe/Kyiv)" in turn.body
    for evening in (17, 21):  # 19:00 and 23:00 in Kyiv: the reminders, before his night
        traveller.move_to(datetime(2026, 11, 3, evening, 30, tzinfo=UTC))
        sweep()
    assert len(to(kyi, "Reminder")) == 2
    traveller.move_to(datetime(2026, 11, 4, 6, 1, tzinfo=UTC))
    sweep()
    assert Move.objects.filter(game=game, automatic=True).count() == 1


def test_new_quiet_hours_never_shorten_a_turn_and_keep_it_an_awake_hour(three, traveller):
    """A six-hour turn begins at 20:00 UTC for a player without quiet hours (deadline 02:00).
    They set quiet hours from 20:30 to 08:00: the turn now ends at 08:30, half an hour after
    them. Back to none: it keeps 08:30 (a turn's time is never taken back)."""
    traveller.move_to(datetime(2026, 11, 3, 20, 0, tzinfo=UTC))
    game = table(three, "Deep mine", turn_limit=6 * HOUR)
    player = deciding(game).user
    assert game.deadline == datetime(2026, 11, 4, 2, 0, tzinfo=UTC)
    traveller.shift(10 * MINUTE)
    profile_update(user=player, quiet_from=time(20, 30), quiet_until=time(8, 0))
    game.refresh_from_db()
    assert game.deadline == datetime(2026, 11, 4, 8, 30, tzinfo=UTC)
    profile_update(user=player, quiet_from=None, quiet_until=None)
    game.refresh_from_db()
    assert game.deadline == datetime(2026, 11, 4, 8, 30, tzinfo=UTC)


# -- Point 3: told of a pause, told of its end ---------------------------------------------------


@pytest.mark.parametrize("paused_before", [True, False])
def test_resumed_and_more_time_held_by_a_vacation_and_quiet_hours_go_with_the_deadline_of_then(
    three, traveller, paused_before
):
    """Bob (quiet 22:00-07:00 UTC) is told of the pause, then away Thursday and Friday; the
    moderators resume and extend the game meanwhile, and extend it again while he sleeps after
    his vacation. At 07:00 on Saturday he gets "resumed" and both "more time", each with the
    deadline of 07:00: they were dropped as "the deadline has changed since". (Second case: he
    went away before the pause, so never heard of it: "resumed" and "more time" still go, the
    stale "paused" does not.)"""
    ann, bob, cid = three
    bob.quiet_from, bob.quiet_until = time(22), time(7)
    bob.save()
    traveller.move_to(datetime(2026, 11, 3, 23, 0, tzinfo=UTC))  # Tuesday
    game = table(three, "Deep mine", turn_limit=3 * DAY)
    while deciding(game).user == bob:
        pass_turn(game)
    mover = deciding(game)
    traveller.move_to(datetime(2026, 11, 4, 12, 0, tzinfo=UTC))
    if paused_before:
        tables.game_pause(game_id=game.pk)
        sweep()
        assert len(to(bob, "paused")) == 1
    vacation_declare(user=bob, days=2, starts_on=datetime(2026, 11, 5).date())
    traveller.move_to(datetime(2026, 11, 5, 10, 0, tzinfo=UTC))  # Thursday, Bob away
    if not paused_before:
        tables.game_pause(game_id=game.pk)
    traveller.shift(2 * HOUR)
    tables.game_resume(game_id=game.pk)
    traveller.shift(HOUR)
    tables.game_extend(game_id=game.pk, hours=5)
    sweep()
    assert len(to(ann, "resumed")) == 1 and len(to(ann, "More time")) == 1
    assert to(bob, "resumed") == [] and to(bob, "More time") == []
    traveller.move_to(datetime(2026, 11, 7, 0, 0, tzinfo=UTC))  # back, in his quiet hours
    sweep()
    traveller.move_to(datetime(2026, 11, 7, 6, 0, tzinfo=UTC))
    tables.game_extend(game_id=game.pk, hours=2)
    sweep()
    assert to(bob, "resumed") == [] and to(bob, "More time") == []
    traveller.move_to(datetime(2026, 11, 7, 7, 0, tzinfo=UTC))
    sweep()
    game.refresh_from_db()
    assert deciding(game) == mover  # the same decision, seven hours longer
    name = mover.user.display_name
    [resumed] = to(bob, "resumed")
    extended = to(bob, "More time")
    assert len(extended) == 2
    # Paused Wednesday 12:00 with 59 hours left, or Thursday 10:00 with 37; resumed Thursday
    # 12:00; five hours more, then two.
    deadline = "Nov. 8, 2026, 6 a.m." if paused_before else "Nov. 7, 2026, 8 a.m."
    for email in [resumed, *extended]:
        assert f"It is {name}'s turn, until {deadline} (UTC)." in email.body
    assert len(to(bob, "paused")) == (1 if paused_before else 0)


def test_a_turn_resumed_in_the_players_night_ends_after_it_and_tells_them_first(three, traveller):
    """Paused with twenty minutes left, resumed at 03:00 while its player sleeps (quiet
    00:00-08:00): the turn ran out at 03:20 and the "resumed" email came after it. It ends at
    08:20, and the email at 08:00 says so."""
    traveller.move_to(datetime(2026, 11, 3, 12, 0, tzinfo=UTC))
    game = table(three, "Deep mine", turn_limit=HOUR)
    player = deciding(game).user
    player.quiet_from, player.quiet_until = time(0), time(8)
    player.save()
    traveller.shift(40 * MINUTE)
    tables.game_pause(game_id=game.pk)
    traveller.move_to(datetime(2026, 11, 4, 3, 0, tzinfo=UTC))
    game = tables.game_resume(game_id=game.pk)
    assert game.deadline == datetime(2026, 11, 4, 8, 20, tzinfo=UTC)
    sweep()
    assert to(player, "resumed") == []
    traveller.move_to(datetime(2026, 11, 4, 8, 0, tzinfo=UTC))
    sweep()
    [resumed] = to(player, "resumed")
    assert "It is your turn: decide by Nov. 4, 2026, 8:20 a.m." in resumed.body


def test_a_digest_player_gets_the_turn_email_when_the_digest_would_come_too_late(three, traveller):
    """A daily 07:00 UTC deadline and a player who takes the daily digest (08:00 local, UTC):
    a turn begun at 09:00 runs out at 07:00 next day, before the next digest, so the "your turn"
    email goes; a turn begun at 05:00 runs out at 07:00 the next day too (not the same day's:
    less than an awake hour), and the 08:00 digest tells them 23 hours before it, so no email."""
    bob = three[1]
    bob.email_digest = True
    bob.save(update_fields=["email_digest"])
    traveller.move_to(datetime(2026, 11, 3, 9, 0, tzinfo=UTC))
    game = table(three, "Morning shift", daily_at=time(7))
    while deciding(game).user != bob:
        pass_turn(game)
    game.refresh_from_db()
    assert game.deadline == datetime(2026, 11, 4, 7, 0, tzinfo=UTC)
    assert Notice.objects.filter(user=bob, kind=Notice.Kind.TURN, game=game).count() == 1
    assert not schedule.digest_serves(game, bob, timezone.now())
    # The same turn begun before the morning's digest: the digest serves it.
    traveller.move_to(datetime(2026, 11, 5, 6, 30, tzinfo=UTC))
    early = table(three, "Dawn shift", daily_at=time(7))
    early.refresh_from_db()
    early.deadline = datetime(2026, 11, 6, 7, 0, tzinfo=UTC)
    assert schedule.digest_serves(early, bob, timezone.now())
