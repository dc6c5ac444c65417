"""Coming back after a day: round recaps, the end of the game, the replay, "since you were here",
labelled positions and My games (issue 12). Games are rule scenarios played through the services."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import engine
from games.models import Game, Move
from games.play.chat import chat_post
from games.play.moves import move_submit
from games.read import history, seats
from tests.players import create_player
from tests.web.scenario_games import play_moves, scenario_game

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text_of(response) -> str:
    """The page's text without tags, spaces collapsed."""
    body = re.sub(r"<svg.*?</svg>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def recap(game, user, number=1) -> str:
    response = client_for(user).get(reverse("round_recap", args=[game.pk, number]))
    assert response.status_code == 200
    return text_of(response)


# -- Round recaps: base ------------------------------------------------------------------------


def test_base_recap_treasure_found_names_the_finisher_roles_goals_and_own_gold():
    game, p = scenario_game("base/treasure_found_gold_picks_counter_clockwise_skip_saboteur")
    names = {seat: user.display_name for seat, user in p.items()}
    state = engine.State.from_json(game.snapshot)
    done = state.rounds_done[0]
    finisher = next(names[s] for s, u in p.items() if str(u_pos(game, u)) == done["finisher"])
    for seat, user in p.items():
        text = recap(game, user)
        assert "the treasure was found" in text
        assert f"Found by {finisher}." in text
        assert f"{finisher} (Gold digger) completed the path to the treasure." in text
        for other, other_user in p.items():
            role = done["roles"][str(u_pos(game, other_user))]
            assert f"{names[other]}: {'Saboteur' if role == 'saboteur' else 'Gold digger'}" in text
        # Every goal face up in the recap's maze: no face-down goal is drawn.
        assert "Face-down goal" not in recap_maze(game, user)
        mine = done["gained"].get(str(u_pos(game, user)))
        if game.status != "finished":  # base: only one's own gold until the game ends
            others = [n for s, n in names.items() if s != seat]
            assert not any(re.search(rf"{o} \+\d", text) for o in others)
            if mine:
                assert f"{names[seat]} +{mine}" in text


def u_pos(game, user) -> int:
    return game.seats.get(user=user).position


def recap_maze(game, user) -> str:
    response = client_for(user).get(reverse("round_recap", args=[game.pk, 1]))
    body = response.content.decode()
    return body[body.index('data-testid="recap-maze"') :]


@pytest.mark.parametrize(
    ("route", "query"), [("round_recap", {}), ("game_replay", {"step": 3})], ids=["recap", "replay"]
)
def test_a_kept_page_is_each_seats_own_and_only_for_whom_may_see_the_game(route, query):
    """A recap or a replay step asked for again is found without reading the game
    (``found.kept_recap``, ``found.kept_replay``): it is still the asking seat's own page, and
    the game's visibility is still checked, even when nothing moved its revision."""
    game, p = scenario_game("base/treasure_found_gold_picks_counter_clockwise_skip_saboteur")
    assert game.status == Game.Status.RUNNING  # one round of three: every seat's own secrets
    url = reverse(route, args=[game.pk, 1] if route == "round_recap" else [game.pk])

    def page(user) -> str:
        response = client_for(user).get(url, query)
        assert response.status_code == 200
        return text_of(response)

    first = {seat: page(user) for seat, user in p.items()}
    assert len(set(first.values())) > 1  # one's own gold, hand and role: the seats' pages differ
    assert {seat: page(user) for seat, user in p.items()} == first
    outsider = create_player("outsider")
    assert page(outsider) not in first.values()  # an open game: watched, with no seat's secrets
    # Made private behind the site's back: the revision, and so the kept pages, stay.
    Game.objects.filter(pk=game.pk).update(visibility=Game.Visibility.INVITE)
    assert client_for(outsider).get(url, query).status_code == 404
    assert {seat: page(user) for seat, user in p.items()} == first


def test_base_recap_not_found_says_the_saboteurs_win():
    game, p = scenario_game("base/d8_two_saboteurs_get_3_each")
    text = recap(game, next(iter(p.values())))
    assert "the treasure was not found" in text
    assert "Nobody reached the treasure: the saboteurs win." in text


def test_base_recap_variant_greedy_dwarf_not_a_winner():
    game, p = scenario_game("base/variant_greedy_dwarf_not_finisher_skipped")
    state = engine.State.from_json(game.snapshot)
    done = state.rounds_done[0]
    greedy_seat = next(s for s, u in p.items() if s == "ann")
    greedy = p[greedy_seat].display_name
    response = client_for(p["cid"]).get(reverse("round_recap", args=[game.pk, 1]))
    winners = re.search(r"Winners: ([^<]*)</p>", response.content.decode())[1]
    assert greedy not in winners
    assert p["cid"].display_name in winners
    assert done["treasure_found"]


# -- Round recaps: Saboteur 2, every way a team wins or nobody does -------------------------------

SABOTEUR2 = [
    ("doors_blue_finisher_blue_reachable", ["Winning team: the blue team."]),
    (
        "doors_blue_finisher_only_green_reachable",
        [
            "The blue team has no route to the treasure",
            "The green team has a route to the treasure",
            "Winning team: the green team.",
        ],
    ),
    ("d10_saboteur_finisher_both_teams_win", ["Winning team: the blue team, the green team."]),
    (
        "doors_both_blocked_boss_alone",
        ["No team has a route to the treasure: the boss wins alone."],
    ),
    (
        "boss_alone_but_trapped_no_winner",
        ["No team has a route to the treasure: the boss wins alone.", "Trapped, so winning"],
    ),
    (
        "not_found_saboteurs_and_profiteer_win",
        ["Nobody reached the treasure: the saboteurs and the profiteer win."],
    ),
]


@pytest.mark.parametrize(("name", "phrases"), SABOTEUR2)
def test_saboteur2_recap_says_what_decided_the_round(name, phrases):
    game, p = scenario_game(f"saboteur2/{name}")
    for user in p.values():
        text = recap(game, user)
        for phrase in phrases:
            assert phrase in text, (name, phrase, text[:2000])


def test_saboteur2_recap_lists_the_thefts():
    game, p = scenario_game("saboteur2/theft_order_last_laid_first")
    text = recap(game, p["ann"])
    bob, eve, dan = (p[n].display_name for n in ("bob", "eve", "dan"))
    assert f"{bob} stole one gold from {eve}." in text
    assert f"{dan} stole one gold from {bob}." in text


def test_a_round_not_yet_over_has_no_recap():
    game, p = scenario_game("base/treasure_found_gold_picks_counter_clockwise_skip_saboteur")
    user = next(iter(p.values()))
    assert client_for(user).get(reverse("round_recap", args=[game.pk, 3])).status_code == 404


# -- The end of the game -------------------------------------------------------------------------


def test_end_of_game_headline_gold_table_goals_face_up_recaps_and_deals_to_check():
    game, p = scenario_game("base/three_rounds_then_game_over_with_totals")
    assert game.status == "finished"
    names = {s: u.display_name for s, u in p.items()}
    response = client_for(p["ann"]).get(reverse("game", args=[game.pk]))
    text = text_of(response)
    # Totals ann 4, bob 7, cid 7, dan 5: bob and cid win.
    headline = re.search(r"(\S+), (\S+) win with 7 gold each!", text)
    assert headline and {headline[1], headline[2]} == {names["bob"], names["cid"]}
    table = text.split("Check the seating and the gold")[0]
    assert re.search(rf"{names['ann']} 1 3 0 4", table), table[-600:]
    assert re.search(rf"{names['dan']} 2 0 3 5", table)
    body = response.content.decode()
    board = body[
        body.index('data-testid="board"') : body.index(
            "</table>", body.index('data-testid="board"')
        )
    ]
    assert "Face-down goal" not in board  # the last round's goals are all face up
    for number in (1, 2, 3):
        assert f'data-testid="recap-{number}"' in body
    # Each round's deal and the seating can be checked (issue 39, tests/web/test_fairness.py).
    for number in (1, 2, 3):
        assert f'href="/games/{game.pk}/deals/{number}/"' in body
    assert f'href="/games/{game.pk}/deals/0/" data-testid="check-seating"' in body


# -- Since you were here -------------------------------------------------------------------------


def test_since_you_were_here_shows_the_recap_of_a_round_ended_meanwhile_and_marks_log_and_chat():
    name = "base/treasure_found_gold_picks_counter_clockwise_skip_saboteur"
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        game, p = scenario_game(name, stop_before=6)  # bob has made his last move of round 1
        bob = client_for(p["bob"])
        first = bob.get(reverse("game", args=[game.pk])).content.decode()
        assert 'data-testid="since-recaps"' not in first
        clock.shift(timedelta(hours=20))
        play_moves(game, name, 6)  # cid finds the treasure, the gold is shared, round 2 begins
        chat_post(game_id=game.pk, user=p["cid"], text="Well dug!")
        clock.shift(timedelta(hours=2))
        body = bob.get(reverse("game", args=[game.pk])).content.decode()
        assert game.version == 9 and '"Round 2 of 3"' not in body
        since = body[body.index('data-testid="since-recaps"') :]
        assert "Since you were here" in body and "the treasure was found" in since
        assert 'data-testid="recap-maze"' in since
        assert "chat__unread" in body and "Well dug!" in body
        # The log: the current round open, the older one collapsed.
        rounds = re.findall(r'<details class="log-round"( open)?>\s*<summary>Round (\d)', body)
        assert rounds == [(" open", "2"), ("", "1")]
        assert body.count('class="log__new"') + body.count('class="log__private log__new"') >= 3
        # A minute later (the same visit) the marks stay; after a long pause they are gone.
        clock.shift(timedelta(minutes=2))
        assert (
            'data-testid="since-recaps"'
            in bob.get(reverse("game", args=[game.pk])).content.decode()
        )
        clock.shift(timedelta(hours=3))
        again = bob.get(reverse("game", args=[game.pk])).content.decode()
        assert 'data-testid="since-recaps"' not in again and "log__new" not in again


def test_maze_marks_cards_placed_since_the_previous_visit_not_only_the_last_move(make_user):
    players = [make_user(n) for n in ("ann", "bob", "cid", "dan")]
    from tests.web.test_leaks import start_game

    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        game = start_game(players, rng=random.Random(5))
        watcher = game.seats.get(position=0)
        client = client_for(watcher.user)
        client.get(reverse("game", args=[game.pk]))
        clock.shift(timedelta(hours=5))
        placed = []
        rng = random.Random(2)
        while len(placed) < 2:
            game.refresh_from_db()
            state = engine.State.from_json(game.snapshot)
            seat = game.seats.get(position=state.to_move)
            moves = engine.legal_moves(state, seat.engine_name)
            if seat.position == 0:
                move = next(m for m in moves if m["move"] == "pass")
            else:
                move = rng.choice([m for m in moves if m["move"] == "place"] or moves)
            move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
            if move["move"] == "place":
                placed.append(tuple(move["at"]))
        clock.shift(timedelta(hours=5))
        body = client.get(reverse("game", args=[game.pk])).content.decode()
    marked = {
        (int(x), int(y))
        for x, y in re.findall(r'maze__cell--new[^"]*" data-x="(-?\d+)" data-y="(-?\d+)"', body)
    }
    assert marked == set(placed)
    # The positions have visible names: column and row labels on the maze's edges, used by the log.
    x, y = placed[0]
    assert f'<th scope="col" class="maze__label">{x}</th>' in body
    assert f"column {x}, row {y}" in body


def test_the_your_turn_email_lists_what_changed_since_the_last_visit(make_user):
    from games.models import Notice
    from games.outbox.emails import build_email
    from tests.web.test_leaks import start_game

    players = [make_user(n) for n in ("ann", "bob", "cid", "dan")]
    game = start_game(players, rng=random.Random(5))
    rng = random.Random(4)
    placed = None
    for _ in range(3):
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
        seat = game.seats.get(position=state.to_move)
        moves = engine.legal_moves(state, seat.engine_name)
        move = rng.choice([m for m in moves if m["move"] == "place"] or moves)
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
        if move["move"] == "place" and placed is None:
            placed = move["at"]
    game.refresh_from_db()
    notice = Notice.objects.filter(game=game, kind="turn", version=game.version).first()
    message = build_email(notice, "x@example.com")
    assert placed is not None
    assert f"column {placed[0]}, row {placed[1]}" in message.body
    assert "New cards in the maze:" in message.body


# -- The replay ----------------------------------------------------------------------------------


def test_replay_steps_are_each_seats_view_at_that_step_with_keyboard_links(make_user):
    from tests.web.test_leaks import EDITS, normalised, start_game

    players = [make_user(n) for n in ("ann", "bob", "cid", "dan")]
    game = start_game(players, rng=random.Random(11))
    rng = random.Random(3)
    for _ in range(8):
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
        seat = game.seats.get(position=state.to_move)
        move = rng.choice(engine.legal_moves(state, seat.engine_name))
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    game.refresh_from_db()
    config = engine.State.from_json(game.snapshot).config
    stored = [(str(m.seat.position), m.payload) for m in Move.objects.filter(game=game)]
    for seat in game.seats.select_related("user"):
        client = client_for(seat.user)
        for step in range(game.version + 1):
            url = reverse("game_replay", args=[game.pk]) + f"?step={step}"
            response = client.get(url)
            assert response.status_code == 200
            at_step = engine.replay(config, stored[:step])
            assert response.context["page"].view == engine.view_for(at_step, seat.engine_name)
            if step in (0, game.version // 2):
                # Twin: the step drawn from a state differing only in what this seat may not
                # know renders the same page.
                twin = at_step.clone()
                twin_rng = random.Random(step)
                for edit in EDITS:
                    edit(twin, int(seat.engine_name), twin_rng)
                from django.core.cache import cache

                names = seats.seat_names(game)
                key = history.step_cache_key(game, seat.engine_name, False, step, names)
                data = cache.get(key)
                cache.set(key, {**data, "view": engine.view_for(twin, seat.engine_name)})
                again = client.get(url)
                assert normalised(again.content.decode()) == normalised(response.content.decode())
    body = response.content.decode()
    assert 'data-replay="prev"' in body and 'data-replay="first"' in body
    assert 'type="range" name="step"' in body


def test_after_the_game_the_replay_shows_every_hand_and_role():
    game, p = scenario_game("base/three_rounds_then_game_over_with_totals")
    response = client_for(p["ann"]).get(reverse("game_replay", args=[game.pk]) + "?step=0")
    text = text_of(response)
    assert "every hand and role is shown" in text
    state = engine.replay(engine.State.from_json(game.snapshot).config, [])
    assert response.context["page"].players[1]["hand"]
    assert len([r for r in response.context["page"].players if r["role"]]) == len(state.seats)


def test_the_next_email_after_a_round_ended_carries_its_recap():
    from games.models import Notice
    from games.outbox.emails import build_email

    game, p = scenario_game("base/treasure_found_gold_picks_counter_clockwise_skip_saboteur")
    state = engine.State.from_json(game.snapshot)
    assert state.round == 2
    notice = Notice.objects.get(game=game, kind="turn", version=game.version)
    body = build_email(notice, "x@example.com").body
    assert "Round 1 is over: the treasure was found." in body
    cid = p["cid"].display_name
    assert f"{cid} (Gold digger) completed the path to the treasure." in body
    assert "Roles: " in body and "Saboteur" in body


# -- My games and games to watch -----------------------------------------------------------------


def test_my_games_shows_whose_turn_the_round_time_left_and_last_move(make_user):
    from tests.web.test_leaks import start_game

    players = [make_user(n) for n in ("ann", "bob", "cid", "dan", "otto")]
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        game = start_game(players[:4], rng=random.Random(5))
        state = engine.State.from_json(game.snapshot)
        seat = game.seats.select_related("user").get(position=state.to_move)
        move = engine.legal_moves(state, seat.engine_name)[0]
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
        clock.shift(timedelta(hours=3))
        game.refresh_from_db()
        waiting = game.seats.select_related("user").get(position=game.to_move)
        someone_else = game.seats.exclude(position=game.to_move).select_related("user").first()
        text = text_of(client_for(someone_else.user).get(reverse("home")))
        assert f"Round 1 of 3 · {waiting.user.display_name} to decide" in text
        assert "last move 3 hours ago" in text and "Time left: 1 day, 21 hours" in text
        mine = text_of(client_for(waiting.user).get(reverse("home")))
        assert "Round 1 of 3 · your decision" in mine
        watch = text_of(client_for(players[4]).get(reverse("lobby")))
        assert "Games to watch" in watch and "Deep mine" in watch
        assert f"{waiting.user.display_name} to decide" in watch


def test_recaps_name_who_played_the_round_after_a_seat_is_taken_over(make_user):
    from games.moderation import tables

    game, p = scenario_game("base/treasure_found_gold_picks_counter_clockwise_skip_saboteur")
    game.refresh_from_db()
    assert game.status == "running" and engine.State.from_json(game.snapshot).rounds_done
    (seat, leaver), (_other, viewer) = list(p.items())[:2]
    old = leaver.display_name
    role = engine.State.from_json(game.snapshot).rounds_done[0]["roles"][str(u_pos(game, leaver))]
    label = "Saboteur" if role == "saboteur" else "Gold digger"
    assert f"{old}: {label}" in recap(game, viewer)  # cached before the takeover
    tables.seat_replace(
        game_id=game.pk, position=u_pos(game, leaver), new_user=make_user("fay"), reason="Gone"
    )
    game.refresh_from_db()
    newcomer = game.seats.live().get(user__username="fay").user.display_name
    for text in (
        recap(game, viewer),
        text_of(client_for(viewer).get(reverse("game", args=[game.pk]))),
    ):
        assert f"{old}: {label}" in text
        assert f"{newcomer}: {label}" not in text
