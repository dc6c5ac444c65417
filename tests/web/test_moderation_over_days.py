"""Bans, seat takeovers, admin-made accounts and the admin's game page (issue 11)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import Ban
from games import engine
from games.models import Game, Notice, Seat
from games.moderation import players as moderation_players
from games.moderation import tables
from games.play.errors import ServiceError
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from saboteur_site.celery import app
from tests.web.test_admin import run_action

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def eager_celery():
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan", "fay")]


def start_game(users, name="Deep mine"):
    game = game_create(creator=users[0], name=name, ruleset="base", max_seats=len(users))
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game_start(game_id=game.pk, user=users[0])
    game.refresh_from_db()
    return game


def seat_of(game, user):
    return game.seats.live().get(user=user)


# -- 5. Bans ------------------------------------------------------------------------------------


def test_a_ban_is_recorded_marks_live_seats_absent_and_tells_the_tables(
    admin_client, root, players, django_capture_on_commit_callbacks
):
    ann, bob, cid, dan, _fay = players
    one = start_game([ann, bob, cid], name="Deep mine")
    two = start_game([bob, cid, dan], name="Gold rush")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = run_action(admin_client, get_user_model(), "ban", [cid.pk], reason="Cheating")
    assert response.status_code == 302
    ban = Ban.objects.get(user=cid)
    assert ban.by == root and ban.reason == "Cheating" and ban.created_at is not None
    cid.refresh_from_db()
    assert cid.is_active is False
    for game in (one, two):
        assert game.seats.get(user=cid).state == Seat.State.ABSENT
    told = sorted(m.to[0] for m in mail.outbox if "cid" not in m.to[0] and "absent" in m.subject)
    assert told == sorted(
        ["ann@example.com", "bob@example.com", "bob@example.com", "dan@example.com"]
    )
    assert "removed Cid from the site" in mail.outbox[-1].body
    # The confirmation lists the running games, each with a link to replace the seat.
    page = admin_client.get(response.url).content.decode()
    for game in (one, two):
        position = game.seats.get(user=cid).position
        link = reverse("admin:games_game_moderate", args=[game.pk, "replace_seat"])
        assert f"{link}?position={position}" in page
        assert f"replace their seat in {game.name}" in page
    # The link opens the replace form with that seat chosen and marked.
    position = one.seats.get(user=cid).position
    link = reverse("admin:games_game_moderate", args=[one.pk, "replace_seat"])
    form = admin_client.get(link, {"position": position}).content.decode()
    assert f'value="{position}" selected' in form
    assert "Cid (absent, banned)" in form


def test_deactivation_is_not_a_ban(admin_client, players):
    run_action(admin_client, get_user_model(), "deactivate", [players[2].pk], reason="Asked to")
    assert not Ban.objects.exists()


def test_reactivating_lifts_the_ban_and_keeps_its_record(admin_client, root, players):
    moderation_players.user_ban(user=players[2], by=root, reason="Spam")
    run_action(admin_client, get_user_model(), "reactivate", [players[2].pk], reason="Appeal")
    ban = Ban.objects.get()
    assert ban.lifted_at is not None


# -- 6. Replacing a seat ------------------------------------------------------------------------


def test_the_newcomer_is_briefed_the_old_player_told_and_the_log_keeps_names(
    admin_client, players, django_capture_on_commit_callbacks
):
    ann, bob, cid, _dan, fay = players
    game = start_game([ann, bob, cid])
    # The first player passes: the log line is theirs.
    mover = game.seats.select_related("user").get(position=game.to_move)
    state = engine.State.from_json(game.snapshot)
    move = next(m for m in engine.legal_moves(state, mover.engine_name) if m["move"] == "pass")
    move_submit(game_id=game.pk, user=mover.user, move=move, expected_version=0)
    old_name = mover.user.display_name
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        run_action(
            admin_client, Game, "replace_seat", [game.pk],
            position=mover.position, new_user="fay", reason="Left the site",
        )  # fmt: skip
    [briefing] = [m for m in mail.outbox if m.to == [fay.email]]
    assert briefing.subject == "You have a seat in Deep mine"
    assert f"you take over from {old_name}" in briefing.body
    [told] = [m for m in mail.outbox if m.to == [mover.user.email]]
    assert told.subject == "Your seat in Deep mine was taken over"
    assert "Fay" in told.body and "Left the site" in told.body
    # The newcomer's first visit: a panel with role, hand and what the seat knew.
    client = Client()
    client.force_login(fay)
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert 'data-testid="briefing"' in page
    assert f"You took over {old_name}" in page and "Your hand:" in page
    assert f"{old_name} passed and discarded 1 card" in page
    assert "Fay passed" not in page
    again = client.get(reverse("game", args=[game.pk])).content.decode()
    assert 'data-testid="briefing"' not in again


# -- 7. Accounts made by admins -----------------------------------------------------------------


def test_an_account_made_in_the_admin_has_a_verified_address(admin_client):
    response = admin_client.post(
        reverse("admin:accounts_user_add"),
        {
            "username": "gus",
            "email": "gus@example.com",
            "display_name": "Gus",
            "password1": "a-long-pass-phrase-42",
            "password2": "a-long-pass-phrase-42",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    assert EmailAddress.objects.get(email="gus@example.com").verified


def test_seating_an_unverified_account_is_refused_clearly(admin_client, players, make_user):
    game = start_game(players[:3])
    make_user("hal", verified=False)
    response = run_action(
        admin_client, Game, "replace_seat", [game.pk],
        position=0, new_user="hal", reason="Stand-in",
    )  # fmt: skip
    assert "no verified email address" in response.content.decode()
    hal = get_user_model().objects.get(username="hal")
    assert not game.seats.filter(user=hal).exists()
    with pytest.raises(ServiceError, match="no verified email address"):
        tables.seat_replace(game_id=game.pk, position=0, new_user=hal)


# -- 10. The admin's game page ------------------------------------------------------------------


def test_moderation_buttons_on_a_games_own_page(admin_client, players):
    game = start_game(players[:3])
    page = admin_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    pause = reverse("admin:games_game_moderate", args=[game.pk, "pause"])
    assert pause in page
    form = admin_client.get(pause)
    assert b'name="moderation-reason"' in form.content
    response = admin_client.post(pause, {"moderation-reason": "A dispute", "moderation-apply": "1"})
    assert response.status_code == 302
    assert response.url == reverse("admin:games_game_change", args=[game.pk])
    assert Game.objects.get(pk=game.pk).status == Game.Status.PAUSED
    assert (
        admin_client.get(reverse("admin:games_game_moderate", args=[game.pk, "delete"])).status_code
        == 403
    )
    assert not Notice.objects.filter(kind="nothing").exists()


def test_the_games_list_shows_turn_round_deadline_and_absent_seats(admin_client, players):
    game = start_game(players[:3])
    mover = game.seats.select_related("user").get(position=game.to_move)
    other = game.seats.exclude(pk=mover.pk).select_related("user").first()
    Seat.objects.filter(pk=other.pk).update(state=Seat.State.ABSENT)
    page = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    row = page[page.index("field-whose_turn") :]
    assert row.split("</td>")[0].endswith(f"{mover.user} (seat {mover.position + 1} of 3)")
    assert '<td class="field-round_number">1 / 3</td>' in page
    assert f'<td class="field-absent_seats">{other.user}</td>' in page
    assert "field-deadline" in page


def test_running_games_cannot_be_deleted(admin_client, players):
    game = start_game(players[:3])
    delete = reverse("admin:games_game_delete", args=[game.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "delete_selected", "_selected_action": [game.pk], "post": "yes"},
    )
    assert Game.objects.filter(pk=game.pk).exists()
    tables.game_abort(game_id=game.pk, reason="Test")
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not Game.objects.filter(pk=game.pk).exists()


def test_games_can_be_searched_by_a_players_email(admin_client, players):
    start_game(players[:3], name="Deep mine")
    start_game(players[2:5], name="Gold rush")
    url = reverse("admin:games_game_changelist")
    page = admin_client.get(url, {"q": "ann@example.com"}).content.decode()
    assert "Deep mine" in page and "Gold rush" not in page


def test_a_users_page_shows_seats_addresses_and_outbox(admin_client, players):
    game = start_game(players[:3])
    ann = players[0]
    page = admin_client.get(reverse("admin:accounts_user_change", args=[ann.pk])).content.decode()
    assert "ann@example.com" in page and "seats and games" in page.lower()
    assert game.name in page
    assert "email outbox" in page.lower()
    assert Notice.objects.filter(user=ann).exists()
    kind = Notice.objects.filter(user=ann).first().get_kind_display()
    assert kind in page


def test_the_outbox_shows_reasons_filters_errors_and_clears_them_on_resend(
    admin_client, players, django_capture_on_commit_callbacks
):
    game = start_game(players[:3])
    notice = Notice.objects.filter(game=game, kind="turn").get()
    Notice.objects.filter(pk=notice.pk).update(status="failed", last_error="421 try later")
    skipped = Notice.objects.filter(game=game, kind="started").first()
    Notice.objects.filter(pk=skipped.pk).update(status="skipped", reason="quiet hours")
    url = reverse("admin:games_notice_changelist")
    page = admin_client.get(url).content.decode()
    assert "quiet hours" in page
    errors = admin_client.get(url, {"has_error": "yes"}).content.decode()
    assert "421 try later" in errors and errors.count('name="_selected_action"') == 1
    with django_capture_on_commit_callbacks(execute=True):
        response = run_action(admin_client, Notice, "resend", [notice.pk], reason="SMTP back")
    notice.refresh_from_db()
    assert notice.status == "sent" and notice.last_error == ""
    listing = admin_client.get(response.url).content.decode()
    assert notice.key not in listing  # messages name the email, not its internal key


def test_resume_message_shows_a_formatted_time(admin_client, players):
    game = start_game(players[:3])
    tables.game_pause(game_id=game.pk)
    response = run_action(admin_client, Game, "resume", [game.pk], reason="Settled")
    page = admin_client.get(response.url).content.decode()
    assert "Resumed the game; deadline" in page
    deadline = Game.objects.get(pk=game.pk).deadline
    assert deadline.isoformat()[:16] not in page


def test_one_accounts_section_in_the_admin_index(admin_client):
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert page.count(">Accounts<") == 1
