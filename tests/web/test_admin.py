"""The admins' tools: every action, its audit log entry, the rules it sets, and secrecy.

No admin page may show a running game's secrets: a twin snapshot that differs only in hands,
pile order, roles, goal cards, peeks and gold renders byte-identical admin pages.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from unittest import mock

import pytest
import time_machine
from django.contrib import admin
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import engine, tasks
from games.models import ChatMessage, Game, Move, Notice, Seat, TableEvent
from games.moderation import players as moderation_players
from games.play.chat import chat_post
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit, turn_timeout
from tests.web.conftest import PASSWORD

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan", "eve")]


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def start_game(users, *, rounds=3, name="Deep mine"):
    game = game_create(
        creator=users[0], name=name, ruleset="base", max_seats=len(users), rounds=rounds
    )
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=users[0])
    game.refresh_from_db()
    return game


def to_move(game):
    game.refresh_from_db()
    seat = game.seats.select_related("user").exclude(state=Seat.State.REPLACED)
    seat = seat.get(position=game.to_move)
    return seat, engine.State.from_json(game.snapshot)


def a_pass(state, seat) -> dict:
    return next(m for m in engine.legal_moves(state, seat.engine_name) if m["move"] == "pass")


def run_action(client, model, action, pks, *, query="", **fields):
    """The two steps of an admin action: the reason page, then the confirmed form (``query``:
    the changelist's filters, as its page posts them)."""
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist") + query
    first = client.post(url, {"action": action, "_selected_action": pks, "index": 0})
    assert first.status_code == 200, first.content[:500]
    assert b'name="moderation-reason"' in first.content
    data = {"action": action, "_selected_action": pks, "moderation-apply": "Confirm"}
    data.update({f"moderation-{k}": v for k, v in fields.items()})
    return client.post(url, data)


def log_for(obj) -> list[str]:
    content_type = ContentType.objects.get_for_model(type(obj))
    entries = LogEntry.objects.filter(
        content_type=content_type, object_id=str(obj.pk), action_flag=CHANGE
    )
    return [entry.change_message for entry in entries.order_by("pk")]


# -- Users -----------------------------------------------------------------------------------


def test_users_are_found_by_email_display_name_and_username(admin_client, players):
    url = reverse("admin:accounts_user_changelist")
    for query in ("bob@example.com", "Bob", "bob"):
        body = admin_client.get(url, {"q": query}).content.decode()
        assert "bob@example.com" in body and "cid@example.com" not in body


def test_ban_asks_for_a_reason_ends_sessions_refuses_login_and_leaves_lobbies(
    admin_client, players
):
    ann, bob, cid, dan, _eve = players
    own_alone = game_create(creator=bob, name="Bob alone", ruleset="base", max_seats=3)
    own_shared = game_create(creator=bob, name="Bob's table", ruleset="base", max_seats=4)
    seat_join(game_id=own_shared.pk, user=dan)
    seat_join(game_id=own_shared.pk, user=cid)
    chat_post(game_id=own_shared.pk, user=bob, text="hello lobby")
    other = game_create(creator=ann, name="Ann's table", ruleset="base", max_seats=3)
    seat_join(game_id=other.pk, user=bob)
    running = start_game([cid, bob, dan])

    bob_client = Client()
    assert bob_client.login(username="bob", password=PASSWORD)
    assert bob_client.get(reverse("lobby")).status_code == 200
    session_key = bob_client.session.session_key

    # Without a reason nothing happens.
    url = reverse("admin:accounts_user_changelist")
    refused = admin_client.post(
        url, {"action": "ban", "_selected_action": [bob.pk], "moderation-apply": "Confirm"}
    )
    assert refused.status_code == 200 and b"This field is required" in refused.content
    bob.refresh_from_db()
    assert bob.is_active

    response = run_action(admin_client, get_user_model(), "ban", [bob.pk], reason="Spam in chat")
    assert response.status_code == 302
    bob.refresh_from_db()
    assert not bob.is_active
    [message] = log_for(bob)
    assert "Banned." in message and "Reason: Spam in chat" in message
    assert "Bob's table" in message

    # The open session is gone; a new login fails.
    assert not Session.objects.filter(session_key=session_key).exists()
    assert bob_client.get(reverse("lobby")).status_code == 302
    fresh = Client()
    fresh.post(reverse("account_login"), {"login": "bob@example.com", "password": PASSWORD})
    assert "_auth_user_id" not in fresh.session
    assert not fresh.login(username="bob", password=PASSWORD)

    # Lobbies: alone -> deleted; shared -> handed to the first to join after him; other -> left.
    assert not Game.objects.filter(pk=own_alone.pk).exists()
    own_shared.refresh_from_db()
    assert own_shared.creator == dan
    assert set(own_shared.seats.values_list("user__username", flat=True)) == {"dan", "cid"}
    assert not ChatMessage.objects.filter(game=own_shared).exists()
    assert not other.seats.filter(user=bob).exists()
    # A running game keeps his seat, marked absent at once (the admins may hand it over).
    assert running.seats.filter(user=bob, state=Seat.State.ABSENT).exists()


def test_an_inactive_users_remaining_session_does_not_authenticate(admin_client, players):
    """Even if a session survived (another session engine), is_active is checked per request."""
    bob = players[1]
    bob_client = Client()
    assert bob_client.login(username="bob", password=PASSWORD)
    with mock.patch.object(moderation_players, "end_sessions", return_value=0):
        run_action(admin_client, get_user_model(), "ban", [bob.pk], reason="Abuse")
    assert Session.objects.filter(session_key=bob_client.session.session_key).exists()
    response = bob_client.get(reverse("lobby"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]
    assert bob_client.get(reverse("home")).context["user"].is_anonymous


def test_deactivate_and_reactivate_are_logged_with_their_reason(admin_client, players):
    cid = players[2]
    run_action(admin_client, get_user_model(), "deactivate", [cid.pk], reason="Asked to leave")
    cid.refresh_from_db()
    assert not cid.is_active
    run_action(admin_client, get_user_model(), "reactivate", [cid.pk], reason="Came back")
    cid.refresh_from_db()
    assert cid.is_active
    assert Client().login(username="cid", password=PASSWORD)
    deactivated, reactivated = log_for(cid)
    assert deactivated.startswith("Deactivated.") and "Reason: Asked to leave" in deactivated
    assert reactivated == "Reactivated. Reason: Came back"


def test_an_admin_cannot_ban_themselves(admin_client, root):
    run_action(admin_client, get_user_model(), "ban", [root.pk], reason="oops")
    root.refresh_from_db()
    assert root.is_active and log_for(root) == []


def test_the_active_checkbox_is_read_only_in_the_user_form(admin_client, players):
    body = admin_client.get(reverse("admin:accounts_user_change", args=[players[1].pk]))
    assert b'name="is_active"' not in body.content


# -- Games: pause, resume, extend, abort ---------------------------------------------------------


def test_games_are_listed_with_a_status_filter(admin_client, players):
    running = start_game(players[:3], name="Running one")
    game_create(creator=players[3], name="Lobby one", ruleset="base", max_seats=3)
    url = reverse("admin:games_game_changelist")
    body = admin_client.get(url, {"status__exact": "running"}).content.decode()
    assert "Running one" in body and "Lobby one" not in body
    assert admin_client.get(url, {"status__exact": "lobby"}).status_code == 200
    assert running.pk


def test_pause_stops_the_clock_refuses_moves_and_resume_restores_the_time(admin_client, players):
    start = timezone.now().replace(microsecond=0)
    with time_machine.travel(start, tick=False) as clock:
        game = start_game(players[:3])
        clock.shift(timedelta(hours=5))
        run_action(admin_client, Game, "pause", [game.pk], reason="Dispute under review")
        game.refresh_from_db()
        assert game.status == Game.Status.PAUSED and game.deadline is None
        assert game.paused_remaining == game.turn_limit - timedelta(hours=5)
        assert "Paused the game. Reason: Dispute under review" in log_for(game)

        seat, state = to_move(game)
        response = logged_in(seat.user).post(
            reverse("move", args=[game.pk]),
            {"version": game.version, "kind": "pass", "discard": ["0"]},
            headers=HTMX,
        )
        assert response.status_code == 422
        assert b"paused this game" in response.content
        assert game.moves.count() == 0

        # Long after the old deadline: the sweep and the timeout leave the paused game alone.
        clock.shift(game.turn_limit * 3)
        assert tasks.sweep()["timeouts"] == 0
        assert turn_timeout(game_id=game.pk) is None
        assert game.moves.count() == 0

        resumed_at = timezone.now()
        run_action(admin_client, Game, "resume", [game.pk], reason="Settled")
        game.refresh_from_db()
        assert game.status == Game.Status.RUNNING
        assert game.deadline == resumed_at + game.turn_limit - timedelta(hours=5)
        assert game.paused_remaining is None
        assert any(m.startswith("Resumed the game") and "Settled" in m for m in log_for(game))
        move_submit(game_id=game.pk, user=seat.user, move=a_pass(state, seat), expected_version=0)
    kinds = list(TableEvent.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds == ["paused", "resumed"]


def test_pause_and_resume_refuse_the_wrong_status_and_log_nothing(admin_client, players):
    lobby = game_create(creator=players[0], name="Lobby", ruleset="base", max_seats=3)
    response = run_action(admin_client, Game, "resume", [lobby.pk], reason="x")
    assert response.status_code == 302
    run_action(admin_client, Game, "pause", [lobby.pk], reason="x")
    lobby.refresh_from_db()
    assert lobby.status == Game.Status.LOBBY and log_for(lobby) == []


def test_extend_moves_the_deadline_or_the_paused_remaining_time(admin_client, players):
    game = start_game(players[:3])
    before = game.deadline
    run_action(admin_client, Game, "extend_deadline", [game.pk], hours=12, reason="Holiday")
    game.refresh_from_db()
    assert game.deadline == before + timedelta(hours=12)
    assert "Extended the deadline by 12 hours. Reason: Holiday" in log_for(game)
    run_action(admin_client, Game, "pause", [game.pk], reason="Wait")
    game.refresh_from_db()
    remaining = game.paused_remaining
    run_action(admin_client, Game, "extend_deadline", [game.pk], hours=2, reason="More")
    game.refresh_from_db()
    assert game.paused_remaining == remaining + timedelta(hours=2)
    bad = run_action(admin_client, Game, "extend_deadline", [game.pk], hours=0, reason="x")
    assert bad.status_code == 200  # the form again, with its error


def test_abort_refuses_moves_and_reveals_the_moves_to_the_admins(admin_client, players):
    game = start_game(players[:3])
    seat, state = to_move(game)
    move = a_pass(state, seat)
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=0)
    record = game.moves.get()
    move_url = reverse("admin:games_move_change", args=[record.pk])
    assert move["discard"][0] not in admin_client.get(move_url).content.decode()

    run_action(admin_client, Game, "abort", [game.pk], reason="Cheating ring")
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and game.deadline is None
    assert "Aborted the game. Reason: Cheating ring" in log_for(game)
    seat, state = to_move(game)
    response = logged_in(seat.user).post(
        reverse("move", args=[game.pk]),
        {"version": game.version, "kind": "pass", "discard": ["0"]},
        headers=HTMX,
    )
    assert response.status_code == 422 and b"stopped this game" in response.content
    assert game.moves.count() == 1
    # Over: the discard (face down for the table) is shown to the admins now.
    assert move["discard"][0] in admin_client.get(move_url).content.decode()
    page = logged_in(players[0]).get(reverse("game", args=[game.pk])).content.decode()
    assert "The moderators stopped the game: Cheating ring" in page


# -- Replacing a seat's player --------------------------------------------------------------------


def test_replace_seat_hands_the_hand_to_the_newcomer_and_tells_the_table(admin_client, players):
    game = start_game(players[:3])
    old_seat, state = to_move(game)
    newcomer = players[4]
    position = old_seat.position
    response = run_action(
        admin_client, Game, "replace_seat", [game.pk],
        position=position, new_user="eve@example.com", reason="Bob left the site",
    )  # fmt: skip
    assert response.status_code == 302
    old_seat.refresh_from_db()
    assert old_seat.state == Seat.State.REPLACED
    seat = game.seats.get(user=newcomer)
    assert seat.position == position and seat.state == Seat.State.ACTIVE
    [message] = log_for(game)
    old_name = old_seat.user.display_name
    assert f"Seat {position + 1} of 3: Eve took over from {old_name}." in message
    assert "Reason: Bob left the site" in message

    # The newcomer sees that seat's hand on the normal page, and can move.
    page = logged_in(newcomer).get(reverse("game", args=[game.pk])).content.decode()
    from games.read.card_names import card_name

    for card in state.hands[state.seat_index(seat.engine_name)]:
        assert f'<span class="hand-card__label">{card_name(card)}</span>' in page
    assert f"Eve took over from {old_name}." in page
    # The old player is refused; the newcomer's move goes through.
    move = a_pass(state, seat)
    fields = {"version": 0, "kind": "pass", "discard": ["0"]}
    old = logged_in(old_seat.user).post(reverse("move", args=[game.pk]), fields, headers=HTMX)
    assert old.status_code == 403 and b"You do not play in this game" in old.content
    move_submit(game_id=game.pk, user=newcomer, move=move, expected_version=0)
    assert game.moves.get().seat == seat

    # The rest of the table sees only the takeover line.
    someone = game.seats.exclude(position=position).exclude(state="replaced").first().user
    table = logged_in(someone).get(reverse("game", args=[game.pk])).content.decode()
    assert f"Eve took over from {old_name}." in table


def test_replace_seat_refuses_a_player_already_at_the_table(admin_client, players):
    game = start_game(players[:3])
    seat, _state = to_move(game)
    other = game.seats.exclude(pk=seat.pk).first().user
    response = run_action(
        admin_client, Game, "replace_seat", [game.pk],
        position=seat.position, new_user=other.username, reason="x",
    )  # fmt: skip
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.state == Seat.State.ACTIVE and log_for(game) == []
    unknown = run_action(
        admin_client, Game, "replace_seat", [game.pk],
        position=seat.position, new_user="nobody", reason="x",
    )  # fmt: skip
    assert unknown.status_code == 200 and b"No account has that name" in unknown.content


# -- Moves and the outbox -------------------------------------------------------------------------


def test_moves_are_read_only(admin_client, players):
    game = start_game(players[:3])
    seat, state = to_move(game)
    move_submit(game_id=game.pk, user=seat.user, move=a_pass(state, seat), expected_version=0)
    record = Move.objects.get()
    assert admin_client.get(reverse("admin:games_move_add")).status_code == 403
    page = admin_client.get(reverse("admin:games_move_change", args=[record.pk]))
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert b"hidden until the game is over" in page.content
    assert (
        admin_client.post(reverse("admin:games_move_delete", args=[record.pk])).status_code == 403
    )


def test_resend_makes_notices_pending_now_and_enqueues_them(
    admin_client, players, monkeypatch, django_capture_on_commit_callbacks
):
    game = start_game(players[:3])
    notice = Notice.objects.get(kind=Notice.Kind.TURN, game=game)
    Notice.objects.filter(pk=notice.pk).update(
        status=Notice.Status.FAILED, due_at=timezone.now() + timedelta(days=3), last_error="421"
    )
    url = reverse("admin:games_notice_changelist")
    body = admin_client.get(url, {"status__exact": "failed"}).content.decode()
    assert "421" in body
    queued = []
    monkeypatch.setattr(
        tasks.send_notice, "apply_async", lambda args, **options: queued.append(args[0])
    )
    with django_capture_on_commit_callbacks(execute=True):
        run_action(admin_client, Notice, "resend", [notice.pk], reason="SMTP was down")
    notice.refresh_from_db()
    assert notice.status == Notice.Status.PENDING
    assert notice.due_at <= timezone.now()
    assert queued == [notice.pk]
    assert "Queued the email again. Reason: SMTP was down" in log_for(notice)
    # The minute sweep covers it too (with the start's "has started" emails).
    assert tasks.sweep()["sent"] == 3
    assert len([m for m in mail.outbox if "Your turn" in m.subject]) == 1


# -- Secrecy ------------------------------------------------------------------------------------


NORMALISE = (
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1"),
    (re.compile(r'(nonce=")[^"]*'), r"\1"),
    (re.compile(r'(csrfToken|csrftoken)[^;"\s]*'), r"\1"),
)


def normalised(text: str) -> str:
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def admin_urls() -> list[str]:
    urls = []
    for model, _model_admin in admin.site._registry.items():
        opts = model._meta
        urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        for obj in model._default_manager.all()[:3]:
            urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
    return urls


def twin(state: engine.State, rng: random.Random) -> engine.State:
    """The same game as far as anyone outside may know: other hands, pile order, roles, goal
    cards, peeks and gold all differ."""
    twin = state.clone()
    pool = [card for hand in twin.hands for card in hand] + twin.pile
    rng.shuffle(pool)
    for hand in twin.hands:
        size = len(hand)
        hand[:], pool = pool[:size], pool[size:]
    twin.pile = pool
    twin.roles = twin.roles[1:] + twin.roles[:1]
    if twin.greedy is not None:
        twin.greedy = None
    goals = [twin.board[pos] for pos in twin.goals.values() if twin.board[pos].face_down]
    cards = [placed.card for placed in goals]
    for placed, card in zip(goals, cards[1:] + cards[:1], strict=True):
        placed.card = card
    twin.peeks = [{name: "gold" for name in twin.goals} for _ in twin.seats]
    twin.gold = [value + 5 for value in twin.gold]
    return twin


def test_no_admin_page_shows_a_running_games_secrets(admin_client, players, root):
    game = start_game(players[:4])
    seat, state = to_move(game)
    move_submit(game_id=game.pk, user=seat.user, move=a_pass(state, seat), expected_version=0)
    chat_post(game_id=game.pk, user=players[0], text="good luck")
    run_action(admin_client, Game, "extend_deadline", [game.pk], hours=1, reason="Audit")
    admin_client.get(reverse("admin:index"))  # shows (and so uses up) the success message
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    assert game.status == Game.Status.RUNNING

    urls = admin_urls()
    assert any("/games/game/" in u and str(game.pk) in u for u in urls)
    assert any("/games/move/" in u for u in urls) and any("/accounts/user/" in u for u in urls)
    pages = {}
    for url in urls:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        pages[url] = normalised(response.content.decode())
    seed = state.config.round_seeds[state.round - 1]
    for url, body in pages.items():
        for secret in state.config.round_seeds:
            assert secret not in body, f"{url} shows a round seed"
        for secret in game.server_seeds:  # the committed seeds (issue 39)
            assert secret not in body, f"{url} shows a server seed"
        assert state.config.gold_seed not in body, url
        assert "snapshot" not in body.lower(), url
        assert seed not in body

    twin_state = twin(state, random.Random(7))
    assert twin_state.to_json() != state.to_json()
    Game.objects.filter(pk=game.pk).update(snapshot=twin_state.to_json())
    for url, body in pages.items():
        again = normalised(admin_client.get(url).content.decode())
        assert again == body, f"{url} differs for a twin snapshot"


def test_a_finished_game_shows_its_final_state(admin_client, players):
    game = start_game(players[:3], rounds=1)
    rng = random.Random(3)
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        seat, state = to_move(game)
        move = rng.choice(engine.legal_moves(state, seat.engine_name))
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    state = engine.State.from_json(game.snapshot)
    body = admin_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert 'data-testid="final-state"' in body and "Gold totals" in body
    for seat in game.seats.select_related("user"):
        gold = state.gold[state.seat_index(seat.engine_name)]
        assert f"<li>{seat.user.display_name}: {gold}</li>" in body
    move = game.moves.first()
    page = admin_client.get(reverse("admin:games_move_change", args=[move.pk])).content
    assert b"hidden until the game is over" not in page
