"""Ratings per role (issue 28): the teams and outcomes of a round, the live update in the move's
transaction, what is not rated, the rebuild from the stored moves, leaderboards and the lobby.

Games are played between people whose moves a bot chooses, through ``move_submit``
(tests/web/ratings_play.py). Reliability and the minimum to join are in test_reliability.py;
the hidden-role check (nothing changes mid-round) is in test_leaks.py.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language

from games import tasks  # noqa: F401 - registers the tasks: eager Celery runs them here
from games.engine.cards import BLUE, BOSS, GEOLOGIST, GOLD_DIGGER, GREEN, PROFITEER, SABOTEUR
from games.models import Game, RatedRound, Rating
from games.moderation import tables
from games.play import rating_maths as maths
from games.play import ratings
from games.play.lobby import game_create, practice_create, seat_join
from games.play.moves import bot_move, move_submit, turn_timeout
from games.play.sweep import sweep
from saboteur_site.celery import app
from tests.web.ratings_play import bot_choice, play_fast, play_until, rounds_done, step, table

pytestmark = pytest.mark.django_db

P = maths.Player


@pytest.fixture
def eager_celery():
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def people(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan", "eve", "fay")]


def figures(users=None) -> dict[tuple[int, str, str], tuple[float, float, int]]:
    rows = Rating.objects.all()
    if users is not None:
        rows = rows.filter(user__in=users)
    return {(r.user_id, r.ruleset, r.kind): (r.mu, r.sigma, r.rounds) for r in rows.order_by("pk")}


# -- The maths: teams, outcomes, mean strength ------------------------------------------------


def match(*players, ruleset="base") -> maths.Match:
    return maths.Match(1, 1, 1, ruleset, tuple(P(i, i + 1, True, role, won) for i, (role, won)
                                                   in enumerate(players)))  # fmt: skip


def test_a_team_is_as_strong_as_its_mean_so_a_big_side_is_no_favourite():
    """Four diggers against one saboteur, everyone new: a fair fight. The saboteur gains as much
    by winning as they lose by losing, and each digger moves a quarter as much (they decided a
    quarter of it). A sum of skills would make the diggers heavy favourites."""
    diggers_win = maths.updated(match(*[(GOLD_DIGGER, True)] * 4, (SABOTEUR, False)), {})
    saboteur_wins = maths.updated(match(*[(GOLD_DIGGER, False)] * 4, (SABOTEUR, True)), {})
    gain = saboteur_wins[(5, "all")][0] - maths.MU
    loss = maths.MU - diggers_win[(5, "all")][0]
    assert gain > 0 and loss == pytest.approx(gain)
    digger_gain = diggers_win[(1, "all")][0] - maths.MU
    assert digger_gain == pytest.approx(gain / 4)
    # The role ratings: the diggers' as diggers, the saboteur's as a saboteur.
    assert set(diggers_win) == {(u, "all") for u in range(1, 6)} | {
        (u, "digger") for u in range(1, 5)
    } | {(5, "saboteur")}


def test_each_saboteur2_role_has_its_own_stake_and_outcome():
    # Blue won with the boss and the profiteer; a trapped blue digger lost; the geologist was paid.
    result = {
        "winners": ["0", "2", "3"],
        "gained": {"0": 3, "2": 2, "3": 1, "6": 2},
        "roles": {},
    }
    roles = [BLUE, BLUE, BOSS, PROFITEER, GREEN, SABOTEUR, GEOLOGIST]
    players = [P(i, i + 10, True, role, maths.won(result, str(i), role)) for i, role in
               enumerate(roles)]  # fmt: skip
    assert [p.won for p in players] == [True, False, True, True, False, False, True]
    new = maths.updated(maths.Match(1, 1, 1, "saboteur2", tuple(players)), {})
    mu = {p.user: new[(p.user, "all")][0] for p in players}
    for p in players:
        assert (mu[p.user] > maths.MU) == p.won, p
    # Digger and saboteur ratings for those roles only; the boss, profiteer and geologist have
    # their overall rating alone.
    assert {k for (u, k) in new if u in (12, 13, 16)} == {"all"}
    assert (10, "digger") in new and (11, "digger") in new and (14, "digger") in new
    assert (15, "saboteur") in new
    # The trapped blue digger is a team of one, apart from the blue digger who won.
    teams = [[p.position for p in team] for team in maths._teams(players)]
    assert [1] in teams and [0] in teams


def test_a_geologist_wins_when_the_crystals_pay_them():
    assert maths.won({"winners": [], "gained": {"4": 1}}, "4", GEOLOGIST)
    assert not maths.won({"winners": ["4"], "gained": {}}, "4", GEOLOGIST)


def test_unrated_players_count_for_their_team_but_keep_their_rating():
    players = (P(0, 1, True, GOLD_DIGGER, True), P(1, 2, False, GOLD_DIGGER, True),
               P(2, 3, True, SABOTEUR, False))  # fmt: skip
    new = maths.updated(maths.Match(1, 1, 1, "base", players), {(2, "all"): (40.0, 2.0)})
    assert (2, "all") not in new and (2, "digger") not in new
    # The strong stand-in partner made the win less of a surprise: a smaller gain.
    alone = maths.updated(
        maths.Match(1, 1, 1, "base", (players[0], players[2])), {}
    )  # fmt: skip
    assert new[(1, "all")][0] - maths.MU < alone[(1, "all")][0] - maths.MU


# -- Live: the move that completes a round rates it -------------------------------------------


def test_a_completed_round_rates_its_players_by_their_roles(people):
    rng = random.Random(3)
    game = until_rated(people[:4], rng)
    (number,) = RatedRound.objects.filter(game=game).values_list("number", flat=True)
    assert number == rounds_done(game)  # rated with the move that completed it
    done = game.snapshot["rounds_done"][number - 1]
    seats = {str(s.position): s.user for s in game.seats.all()}
    for name, role in done["roles"].items():
        user = seats[name]
        overall = Rating.objects.get(user=user, ruleset="base", kind="all")
        assert overall.rounds == 1
        assert overall.score == pytest.approx(overall.mu - 3 * overall.sigma)
        assert (overall.mu > maths.MU) == (name in done["winners"])
        kind = "digger" if role == GOLD_DIGGER else "saboteur"
        assert Rating.objects.filter(user=user, kind=kind, rounds=1).exists()
        other = "saboteur" if kind == "digger" else "digger"
        assert not Rating.objects.filter(user=user, kind=other).exists()


def test_ratings_change_only_with_the_move_that_completes_a_round(people):
    """Roles are public once a round is over (docs/rules.md 8): no rating moves before that."""
    rng = random.Random(5)
    for attempt in range(5):  # until a game teaches something (a rated round)
        game = table(people[:4], rounds=3, name=f"Watched {attempt}")
        before, changes = figures(), []
        while game.status == Game.Status.RUNNING:
            done = rounds_done(game)
            game = step(game, rng)
            now = figures()
            if now != before:
                changes.append(done + 1)
                assert rounds_done(game) == done + 1, "ratings changed inside a round"
            before = now
        # Each rated round changed them once, with its completing move (a round where everyone
        # had the same outcome, say no saboteur in play, has nothing to teach: not rated).
        rated = sorted(RatedRound.objects.filter(game=game).values_list("number", flat=True))
        assert changes == rated
        if changes:
            break
    assert changes


def test_a_round_completing_move_holds_the_rating_writers_lock(people):
    """Taken before the completing move gets its id (the order of the updates), held to the
    commit; moves inside a round do not take it."""
    from games import engine

    def holding() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s "
                "AND pid = pg_backend_pid() AND granted",
                [ratings.LOCK_KEY],
            )
            return cursor.fetchone()[0] > 0

    rng = random.Random(1)
    game = table(people[:3], rounds=1)
    for _ in range(3000):
        seat, move = bot_choice(game, rng)
        state = engine.State.from_json(game.snapshot)
        new, _events = engine.apply(state, seat.engine_name, move)
        if new.rounds_done:
            break
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
        game.refresh_from_db()
    assert not holding()
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    assert holding()  # until the end of the (test's) transaction


def until_rated(users, rng, **options):
    """A game of ``users`` played until one of its rounds is rated, still running then.

    Seats and deals are drawn with ``secrets``, so a round may teach nothing (no saboteur in
    play: everyone had the same outcome) or the first rated round may end the game: such a game
    is set aside (aborted, and the ratings rebuilt without it) and a new one played."""
    for attempt in range(8):
        game = table(users, rounds=3, name=f"Rated {attempt}", **options)
        game = play_until(game, rng, lambda g: RatedRound.objects.filter(game=g).exists())
        if game.status == Game.Status.RUNNING:
            return game
        Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)
        ratings.ratings_rebuild()
    raise AssertionError("no game had a rated round before its end")


def finished_rated(users, rng, **options):
    """A game of ``users`` played to its end with at least one rated round."""
    game = until_rated(users, rng, **options)
    return play_until(game, rng)


# -- What is not rated ----------------------------------------------------------------------


def play_with_bots(game, rng):
    """People's moves chosen by a bot through ``move_submit``, bots' (and stand-ins') moves
    through ``bot_move``, to the game's end."""
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        seat = game.seats.live().get(position=game.to_move)
        if seat.bot_plays:
            bot_move(game_id=game.pk, version=game.version)
        else:
            step(game, rng)
    raise AssertionError("the game never ended")


def test_practice_games_are_not_rated(people):
    ann = people[0]
    game = play_with_bots(practice_create(creator=ann, ruleset="base", bots=3), random.Random(2))
    assert game.status == Game.Status.FINISHED
    # Practice between people only (as the admin could flag a game): not rated either.
    flagged = table(people[1:4], rounds=1)
    Game.objects.filter(pk=flagged.pk).update(practice=True)
    flagged.refresh_from_db()
    play_until(flagged, random.Random(3))
    assert not Rating.objects.exists() and not RatedRound.objects.exists()
    assert ratings.ratings_rebuild().rounds == 0


def test_a_round_a_bot_played_in_is_not_rated(people, root):
    rng = random.Random(4)
    game = until_rated(people[:4], rng)
    rated, before = figures(), RatedRound.objects.count()
    assert rated
    # An admin hands a seat to a bot in round 2.
    tables.seat_replace(game_id=game.pk, position=game.to_move, new_user=None)
    game = play_with_bots(game, rng)
    assert game.status == Game.Status.FINISHED
    assert figures() == rated and RatedRound.objects.count() == before
    assert rounds_done(game) == 3  # the rounds with the bot were played, not rated


def stand_in_game(users, rng):
    """The last player's time runs out three times: a bot stands in for them to the end (three
    rounds)."""
    game = table(users, rounds=3, bot_stand_ins=True, name="Stand-in")
    absent = game.seats.get(user=users[-1])
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game, absent
        seat = game.seats.live().get(position=game.to_move)
        if seat.pk == absent.pk and not seat.stand_in:
            turn_timeout(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
        elif seat.stand_in:
            bot_move(game_id=game.pk, version=game.version)
        else:
            step(game, rng)
    raise AssertionError("the game never ended")


def test_a_stand_ins_round_is_not_rated_for_the_absent_player(people):
    """Cid's time runs out three times: a bot stands in for him to the game's end. Ann and Bob
    are rated for every rated round (the bot's moves for Cid count for his team); Cid only for
    the rounds that ended before his stand-in's first move (when one ended that early)."""
    ann, bob, dan, cid = people[:4]
    rng = random.Random(7)
    before = 0  # rated rounds that ended before the stand-in's first move, over the games
    for _attempt in range(5):
        game, absent = stand_in_game([ann, bob, dan, cid], rng)
        assert game.status == Game.Status.FINISHED
        first = game.moves.filter(seat=absent, stand_in=True).order_by("sequence").first()
        assert first is not None
        before += RatedRound.objects.filter(game=game, move__sequence__lt=first.sequence).count()
        rated = RatedRound.objects.count()  # over these games: all have Ann, Bob and Cid
        if rated > before:  # a round with the stand-in was rated
            break
    assert rated > before
    assert Rating.objects.get(user=ann, kind="all").rounds == rated
    assert Rating.objects.get(user=bob, kind="all").rounds == rated
    if before:
        assert Rating.objects.get(user=cid, kind="all").rounds == before
    else:
        assert not Rating.objects.filter(user=cid).exists()


def test_an_aborted_games_rounds_are_taken_back(
    people, eager_celery, django_capture_on_commit_callbacks
):
    rng = random.Random(8)
    kept = finished_rated(people[3:6], rng)
    kept_figures = figures(people[3:6])
    assert kept_figures
    game = until_rated(people[:3], rng)
    assert figures(people[:3]) and game.status == Game.Status.RUNNING
    with django_capture_on_commit_callbacks(execute=True):
        tables.game_abort(game_id=game.pk, reason="collusion")
    assert not figures(people[:3])  # the rebuild (a Celery task) took them back
    assert not RatedRound.objects.filter(game=game).exists()
    assert figures(people[3:6]) == kept_figures and kept.status == Game.Status.FINISHED


def test_the_sweep_asks_again_for_a_lost_rebuild(people, eager_celery):
    rng = random.Random(9)
    game = until_rated(people[:3], rng)
    tables.game_abort(game_id=game.pk, reason="gone")  # its on-commit request never runs here
    assert figures(people[:3])
    sweep()
    assert not figures(people[:3]) and not RatedRound.objects.exists()
    assert ratings.withdraw_aborted() is False  # nothing left to take back


# -- Rebuild ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_rebuild_gives_the_live_figures_over_a_few_hundred_rounds(make_user, people):
    """Games of two to ten players (a bot chooses every move) in both rule sets, players shared
    between tables, unrated rounds among them (a stand-in's, a practice game's): the rebuild
    from the stored moves equals what the live updates wrote, to the last bit.

    A few games go through ``move_submit`` move by move; the few hundred rounds of the others
    through ``play_fast`` (every round-completing move through the pipeline's ``apply``)."""
    pool = people + [make_user(name) for name in ("gus", "hal", "ivy", "jon", "kim", "lea")]
    rng = random.Random(28)
    start = timezone.now()
    stand_in_game(pool[:3], rng)
    play_with_bots(practice_create(creator=pool[3], ruleset="saboteur2", bots=2), rng)
    play_until(table(pool[4:8], rounds=2, name="Slow one"), rng)
    play_until(table(pool[6:9], ruleset="saboteur2", rounds=2, name="Slow two"), rng)
    played = 0
    while RatedRound.objects.count() < 200:
        ruleset = ("base", "saboteur2")[played % 2]
        users = rng.sample(pool, rng.randint(3 if ruleset == "base" else 2, 10))
        # The flood limit allows 10 new games an hour per creator: a later hour for each.
        with time_machine.travel(start + timedelta(hours=played), tick=True):
            play_fast(table(users, ruleset=ruleset, rounds=3, name=f"Sim {played}"), rng)
        played += 1
    live = figures()
    live_rounds = set(RatedRound.objects.values_list("game_id", "number", "move_id"))
    assert {ruleset for _user, ruleset, _kind in live} == {"base", "saboteur2"}
    assert {kind for _user, _ruleset, kind in live} == {"all", "digger", "saboteur"}
    Rating.objects.update(mu=0.0, sigma=1.0, score=-3.0, rounds=0)  # nothing kept by chance
    rebuilt = ratings.ratings_rebuild()
    assert rebuilt.rounds == len(live_rounds) >= 200
    assert figures() == live
    assert set(RatedRound.objects.values_list("game_id", "number", "move_id")) == live_rounds


def test_a_round_completed_during_a_rebuild_is_added_under_the_lock(people, monkeypatch):
    """The rebuild reads its snapshot without the writers' lock; rounds completed meanwhile (of a
    game it saw, and of a game started since) are read again and added once the lock is held, so
    nothing live is lost."""
    rng = random.Random(13)
    until_rated(people[:3], rng)
    during = until_rated(people[1:5], rng)
    seen = {}
    real = ratings._snapshot

    def snapshot_then_rounds_end():
        versions, matches = real()
        play_until(during, rng)  # its later rounds (rated or not)
        finished_rated(people[2:6], rng)  # a game the snapshot never saw
        seen["live"], seen["in snapshot"] = figures(), len(matches)
        return versions, matches

    monkeypatch.setattr(ratings, "_snapshot", snapshot_then_rounds_end)
    rebuilt = ratings.ratings_rebuild()
    assert rebuilt.rounds == RatedRound.objects.count() > seen["in snapshot"]
    assert figures() == seen["live"]


def test_a_game_aborted_during_a_rebuild_starts_it_over(people, monkeypatch):
    rng = random.Random(14)
    kept = until_rated(people[:3], rng)
    doomed = until_rated(people[2:6], rng)
    real, calls = ratings._snapshot, []

    def snapshot_then_an_abort():
        calls.append(1)
        result = real()
        if len(calls) == 1:
            Game.objects.filter(pk=doomed.pk).update(status=Game.Status.ABORTED)
        return result

    monkeypatch.setattr(ratings, "_snapshot", snapshot_then_an_abort)
    ratings.ratings_rebuild()
    assert len(calls) == 2
    assert set(RatedRound.objects.values_list("game_id", flat=True)) == {kept.pk}
    assert doomed.pk != kept.pk


@pytest.mark.django_db(transaction=True)
def test_the_rebuild_command_outside_a_transaction(make_user):
    users = [make_user(name) for name in ("ann", "bob", "cid")]
    finished_rated(users, random.Random(11))
    live = figures()
    assert live
    Rating.objects.update(mu=1.0, sigma=1.0, score=-2.0)  # damaged
    out = _call("rebuild_ratings")
    # (Games ``until_rated`` set aside are aborted: not read.)
    assert f"from {RatedRound.objects.count()} rated rounds of 1 games" in out
    assert figures() == live


def _call(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# -- Leaderboards --------------------------------------------------------------------------------


def rate(user, ruleset, kind, mu, sigma, rounds):
    from django.utils import timezone

    Rating.objects.create(
        user=user, ruleset=ruleset, kind=kind, mu=mu, sigma=sigma,
        score=maths.conservative(mu, sigma), rounds=rounds, last_round_at=timezone.now(),
    )  # fmt: skip


def test_a_leaderboard_lists_players_with_enough_rated_rounds_best_first(people, client):
    ann, bob, cid, dan, eve, _fay = people
    rate(ann, "base", "all", 30.0, 3.0, 12)
    rate(ann, "base", "digger", 31.0, 3.5, 9)
    rate(bob, "base", "all", 40.0, 3.0, 25)
    rate(cid, "base", "all", 50.0, 3.0, 9)  # provisional: not listed
    rate(dan, "saboteur2", "all", 45.0, 3.0, 30)  # another rule set
    rate(eve, "base", "all", 35.0, 2.0, 10)
    eve.is_active = False
    eve.save()
    client.force_login(cid)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("leaderboard", args=["base"]))
    assert response.status_code == 200
    assert len(queries) <= 5  # session, user, the awaiting count, the board and its roles
    body = response.content.decode()
    board = body[body.index('data-testid="leaderboard"') :]
    assert board.index("Bob") < board.index("Ann")
    assert "Cid</a>" not in board and "Dan" not in board and "Eve" not in board
    assert "31.0 - 10.5" not in board and "20.5" in board  # Ann's digger figure
    assert "(provisional)" in board  # her digger rating has 9 rounds
    other = client.get(reverse("leaderboard", args=["saboteur2"])).content.decode()
    assert "Dan" in other and "Bob" not in other


def test_a_leaderboard_of_an_unknown_rule_set_is_not_found(client, people):
    client.force_login(people[0])
    assert client.get("/leaderboards/chess/").status_code == 404


def test_the_player_page_shows_ratings_by_rule_set_and_role(people, client):
    ann = people[0]
    rate(ann, "base", "all", 30.0, 3.0, 12)
    rate(ann, "base", "saboteur", 28.0, 4.0, 4)
    client.force_login(people[1])
    body = client.get(reverse("player", args=["Ann"])).content.decode()
    section = body[body.index('data-testid="ratings-base"') :]
    assert 'data-testid="rating">21.0<' in section  # 30 - 3 x 3
    assert "16.0" in section and "(provisional)" in section  # as a saboteur, 4 rounds
    assert "unrated" in section  # never a digger yet
    assert 'data-testid="ratings-saboteur2"' not in body
    fresh = client.get(reverse("player", args=["Bob"])).content.decode()
    assert 'data-testid="no-ratings"' in fresh


# -- The lobby ------------------------------------------------------------------------------------


def lobby_body(client) -> str:
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    return response.content.decode()


def test_lobby_entries_show_their_players_ratings_and_reliability(people, client):
    ann, bob, cid = people[:3]
    rate(ann, "base", "all", 30.0, 3.0, 12)
    rate(ann, "saboteur2", "all", 20.0, 5.0, 3)
    game = game_create(creator=ann, name="Rated table", ruleset="base", max_seats=4)
    seat_join(game_id=game.pk, user=bob)
    game_create(creator=cid, name="Other table", ruleset="saboteur2", max_seats=4)
    client.force_login(people[3])
    body = lobby_body(client)
    entry = body[body.index("Rated table") :].split("</ul>")[0]  # its players
    assert "Ann</a>" in entry and 'data-testid="rating">21.0<' in entry
    assert "Bob</a>" in entry and "unrated" in entry and "no record yet" in entry
    # Warm, the page costs what it did before (tests/web/test_lobby_speed.py).
    with CaptureQueriesContext(connection) as queries:
        lobby_body(client)
    assert len(queries) == 1  # the user


def test_a_round_that_changes_a_lobby_players_rating_refreshes_the_lobby(people, client):
    """Moves leave the cached list alone; a round that rates a player seated in an open game
    drops it (games/read/invalidation.py)."""
    ann, bob, cid, dan = people[:4]
    game_create(creator=ann, name="Waiting table", ruleset="base", max_seats=5)
    client.force_login(people[4])

    def ann_in_lobby() -> str:
        body = lobby_body(client)
        return body[body.index("Waiting table") :].split("</ul>")[0]

    rng = random.Random(12)
    for attempt in range(5):  # until a round of the game is rated
        elsewhere = table([ann, bob, cid, dan], rounds=3, name=f"Elsewhere {attempt}")
        shown = ann_in_lobby()  # the list as cached now; the moves below leave it
        elsewhere = play_until(elsewhere, rng, lambda g: RatedRound.objects.exists())
        if RatedRound.objects.exists():
            break
    assert "unrated" in shown
    figure = Rating.objects.get(user=ann, ruleset="base", kind="all")
    assert f'data-testid="rating">{figure.score:.1f}<' in ann_in_lobby()


def test_a_leaderboard_is_built_once_a_minute_per_process_and_says_so(people, client):
    """A hundred players' rows were built for every request (two queries and 200 model
    objects): each process now builds a rule set's board at most once per
    ``LEADERBOARD_SECONDS``, and the page says its ratings may be a few minutes old."""
    from django.core.cache import caches

    from games.read import ratings

    ann, bob, cid, *_ = people
    rate(ann, "base", "all", 30.0, 3.0, 12)
    client.force_login(cid)
    url = reverse("leaderboard", args=["base"])
    first = client.get(url).content.decode()
    assert "Ann" in first and "may be a few minutes old" in first
    rate(bob, "base", "all", 40.0, 3.0, 25)
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url).content.decode()
    assert not [q for q in queries if "games_rating" in q["sql"]]
    assert "Bob" not in again  # the board of a moment ago
    caches["local"].delete(ratings.leaderboard_key("base", get_language()))  # its minute ran out
    assert "Bob" in client.get(url).content.decode()
    assert ratings.LEADERBOARD_SECONDS <= 300  # "a few minutes"
