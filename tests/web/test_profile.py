"""Profile, language, email change with reauthentication, account deletion and player pages."""

from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from allauth.account.internal.flows.login import AUTHENTICATION_METHODS_SESSION_KEY
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts import services as accounts
from games import engine
from games.models import ChatMessage, Game, Move, Seat
from games.play.chat import chat_post
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit, turn_timeout
from games.read import stats

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db
User = get_user_model()
COOKIE = settings.LANGUAGE_COOKIE_NAME


def profile_data(user, **changes):
    data = {
        "display_name": user.display_name,
        "language": user.language,
        "time_zone": user.time_zone,
        "quiet_from": "",
        "quiet_until": "",
    }
    for name in ("email_turns", "email_reminders", "email_digest", "email_mentions"):
        if getattr(user, name):
            data[name] = "on"
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def log_in(client, user):
    """A real allauth login (it records the authentication in the session)."""
    response = client.post(reverse("account_login"), {"login": user.email, "password": PASSWORD})
    assert response.status_code == 302, response.content
    return response


# -- Profile ------------------------------------------------------------------------------------


def test_profile_needs_login(client):
    response = client.get(reverse("profile"))
    assert response.status_code == 302
    assert response.headers["Location"].startswith(reverse("account_login"))


def test_profile_update_saves_every_field(client, user):
    client.force_login(user)
    page = client.get(reverse("profile"))
    assert page.status_code == 200
    assert 'value="Europe/Prague"' in page.content.decode()  # the time zone select
    response = client.post(
        reverse("profile"),
        profile_data(
            user,
            display_name="  Ann   the Bold ",
            time_zone="Europe/Prague",
            email_turns=None,  # unticked
            email_digest="on",
            quiet_from="22:00",
            quiet_until="07:30",
        ),
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_name == "Ann the Bold"
    assert user.time_zone == "Europe/Prague"
    assert (user.email_turns, user.email_digest) == (False, True)
    assert (user.quiet_from, user.quiet_until) == (time(22, 0), time(7, 30))
    assert "Your profile is saved." in client.get(response.headers["Location"]).content.decode()


def test_display_name_taken_by_someone_else_in_any_case_is_refused(client, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    client.force_login(bob)
    response = client.post(reverse("profile"), profile_data(bob, display_name="ANN"))
    assert response.status_code == 422
    assert "This display name is taken" in response.content.decode()
    bob.refresh_from_db()
    assert bob.display_name == "Bob"
    # Changing only the case of one's own name is fine.
    response = client.post(reverse("profile"), profile_data(bob, display_name="BOB"))
    assert response.status_code == 302
    # The service checks the rule too (views are not the only caller).
    with pytest.raises(ValidationError) as refusal:
        accounts.profile_update(user=bob, display_name="aNn")
    assert "display_name" in refusal.value.message_dict
    assert ann.display_name == "Ann"
    with pytest.raises(ValidationError):
        accounts.profile_update(user=bob, display_name="x" * 41)


def test_unknown_time_zone_and_language_are_refused(client, user):
    client.force_login(user)
    response = client.post(reverse("profile"), profile_data(user, time_zone="Mars/Olympus"))
    assert response.status_code == 422
    assert "time_zone" in response.context["form"].errors
    with pytest.raises(ValidationError) as refusal:
        accounts.profile_update(user=user, time_zone="Mars/Olympus", language="xx")
    assert set(refusal.value.message_dict) == {"time_zone", "language"}
    user.refresh_from_db()
    assert user.time_zone == "UTC"


def test_quiet_hours_need_both_ends_or_neither(client, user):
    client.force_login(user)
    response = client.post(reverse("profile"), profile_data(user, quiet_from="22:00"))
    assert response.status_code == 422
    assert "both ends of your quiet hours" in response.content.decode()
    with pytest.raises(ValidationError):
        accounts.profile_update(user=user, quiet_until=time(7))
    with pytest.raises(ValidationError):
        accounts.profile_update(user=user, quiet_from=time(7), quiet_until=time(7))
    accounts.profile_update(user=user, quiet_from=time(22), quiet_until=time(7))
    accounts.profile_update(user=user, quiet_from=None, quiet_until=None)
    user.refresh_from_db()
    assert user.quiet_from is None and user.quiet_until is None


# -- Language -----------------------------------------------------------------------------------


def test_saving_a_language_switches_the_site_and_sets_the_cookie(client, user):
    client.force_login(user)
    response = client.post(reverse("profile"), profile_data(user, language="cs"))
    assert response.status_code == 302
    assert response.cookies[COOKIE].value == "cs"
    page = client.get(reverse("profile"))
    assert '<html lang="cs">' in page.content.decode()
    user.refresh_from_db()
    assert user.language == "cs"


def test_profile_language_wins_over_the_browser_and_is_set_at_login(client, user):
    user.language = "sk"
    user.save()
    response = log_in(client, user)
    assert response.cookies[COOKIE].value == "sk"
    client.cookies.pop(COOKIE)
    page = client.get(reverse("home"), headers={"accept-language": "ro"})
    assert '<html lang="sk">' in page.content.decode()


def test_footer_switcher_while_logged_in_updates_the_profile(client, user):
    user.language = "sk"
    user.save()
    client.force_login(user)
    response = client.post(reverse("set_language"), {"language": "uk", "next": "/"})
    assert response.cookies[COOKIE].value == "uk"
    user.refresh_from_db()
    assert user.language == "uk"
    assert '<html lang="uk">' in client.get("/").content.decode()


# -- Email change needs reauthentication ---------------------------------------------------------


def change_email(client, email):
    return client.post(reverse("account_email"), {"action_add": "", "email": email})


def test_email_change_asks_for_the_password_again(client, user):
    log_in(client, user)
    # allauth 65: logging in is not a reauthentication; only confirming the password is.
    response = change_email(client, "ann.new@example.com")
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(reverse("account_reauthenticate"))
    assert "next=" in location
    assert not EmailAddress.objects.filter(email="ann.new@example.com").exists()
    page = client.get(location)
    assert page.status_code == 200
    assert 'class="site-header"' in page.content.decode()  # inside our layout

    # Confirming the password resumes the suspended change.
    response = client.post(location, {"password": PASSWORD})
    assert response.status_code == 302
    new = EmailAddress.objects.get(email="ann.new@example.com")
    assert not new.verified and new.user == user
    user.refresh_from_db()
    assert user.email == "ann@example.com"  # until the new address is verified

    # A recent confirmation counts: another change goes straight through.
    response = change_email(client, "ann.other@example.com")
    assert response.headers["Location"] == reverse("account_email")
    assert EmailAddress.objects.filter(email="ann.other@example.com").exists()

    # An old one does not (allauth keeps the time of each authentication in the session).
    session = client.session
    records = session[AUTHENTICATION_METHODS_SESSION_KEY]
    for record in records:
        record["at"] -= 3600
    session[AUTHENTICATION_METHODS_SESSION_KEY] = records
    session.save()
    response = change_email(client, "ann.third@example.com")
    assert response.headers["Location"].startswith(reverse("account_reauthenticate"))
    assert not EmailAddress.objects.filter(email="ann.third@example.com").exists()


def test_wrong_password_does_not_reauthenticate(client, user):
    log_in(client, user)
    location = change_email(client, "ann.new@example.com").headers["Location"]
    response = client.post(location, {"password": "wrong"})
    assert response.status_code == 200
    assert not EmailAddress.objects.filter(email="ann.new@example.com").exists()


# -- Games for the deletion and statistics tests -------------------------------------------------


@pytest.fixture
def trio(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid")]


SABOTEUR_THIRD = {"0": "gold-digger", "1": "gold-digger", "2": "saboteur"}


def started_game(players, *, rounds=1, seed="seed-0"):
    """A running base game whose round seeds are fixed, seat "2" the first round's saboteur."""
    game = game_create(
        creator=players[0], name="Deep mine", ruleset="base", max_seats=3, rounds=rounds
    )
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=players[0])
    state = engine.new_game(
        ruleset="base",
        seats=["0", "1", "2"],
        round_seeds=[f"{seed}-{n}" if n else seed for n in range(rounds)],
        rounds=rounds,
        deals=[{"roles": SABOTEUR_THIRD}],
    )
    assert state.roles[2] == "saboteur"
    game.snapshot = state.to_json()
    game.to_move = state.to_move
    game.save()
    return game


def pass_until(game, done, *, clock=None, step=timedelta(minutes=1)):
    """Every player passes (discarding their first card) until ``done(state)``."""
    while True:
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
        if game.status != Game.Status.RUNNING or done(state):
            return game
        seat = game.seats.get(position=game.to_move)
        move = next(m for m in engine.legal_moves(state, seat.engine_name) if m["move"] == "pass")
        if clock is not None:
            clock.shift(step)
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)


# -- Account deletion --------------------------------------------------------------------------


def test_a_running_game_goes_on_for_the_others_after_a_deletion(client, trio):
    """Issue 53: deleting an account while a game runs leaves the seat absent, the site plays
    it, and the others finish the game; the seat shows "deleted player"."""
    game = started_game(trio)
    bob = trio[1]
    Seat.objects.filter(game=game, user=bob).update(note="Ann has the lamp", marks={"0": "x"})
    client.force_login(bob)
    body = client.get(reverse("account_delete")).content.decode()
    assert 'data-testid="delete-running"' in body and game.name in body
    response = client.post(reverse("account_delete"), {"password": PASSWORD})
    assert response.status_code == 302
    assert not User.objects.filter(pk=bob.pk).exists()
    seat = game.seats.get(user=None)
    assert seat.state == Seat.State.ABSENT and (seat.note, seat.marks) == ("", {})
    # The others play on: the site decides for the deleted player's seat at its turn.
    for _ in range(12):
        game.refresh_from_db()
        mover = game.seats.get(position=game.to_move)
        if mover.user is None:
            assert game.deadline is not None
            turn_timeout(game_id=game.pk, now=game.deadline)
            continue
        state = engine.State.from_json(game.snapshot)
        move = next(m for m in engine.legal_moves(state, mover.engine_name) if m["move"] == "pass")
        move_submit(game_id=game.pk, user=mover.user, move=move, expected_version=game.version)
    game.refresh_from_db()
    assert game.version >= 12 and game.status == Game.Status.RUNNING
    assert Move.objects.filter(seat=seat, automatic=True).exists()
    client.force_login(trio[0])
    assert "deleted player" in client.get(reverse("game", args=[game.pk])).content.decode()


def test_wrong_password_does_not_delete(client, user):
    client.force_login(user)
    response = client.post(reverse("account_delete"), {"password": "nope"})
    assert response.status_code == 422
    assert "The password is not correct." in response.content.decode()
    assert User.objects.filter(pk=user.pk).exists()


def test_deletion_leaves_lobbies_and_deletes_own_lobbies(client, trio):
    ann, bob, cid = trio
    theirs = game_create(creator=ann, name="Ann's table", ruleset="base", max_seats=5)
    seat_join(game_id=theirs.pk, user=bob)
    chat_post(game_id=theirs.pk, user=bob, text="Hello!")  # chat from a lobby seat
    own = game_create(creator=bob, name="Bob's table", ruleset="base", max_seats=5)
    seat_join(game_id=own.pk, user=cid)
    chat_post(game_id=own.pk, user=cid, text="Shall we start?")
    client.force_login(bob)
    page = client.get(reverse("account_delete")).content.decode()
    assert "Ann&#x27;s table" in page and "Bob&#x27;s table" in page
    revision = Game.objects.get(pk=theirs.pk).revision

    response = client.post(reverse("account_delete"), {"password": PASSWORD})
    assert response.status_code == 302
    assert not User.objects.filter(pk=bob.pk).exists()
    assert "_auth_user_id" not in client.session
    assert not Game.objects.filter(pk=own.pk).exists()
    theirs.refresh_from_db()
    assert list(theirs.seats.values_list("user__username", flat=True)) == ["ann"]
    assert theirs.revision > revision
    assert not ChatMessage.objects.filter(game=theirs).exists()
    assert EmailAddress.objects.filter(email="bob@example.com").count() == 0


def test_finished_game_shows_the_deleted_player(client, trio):
    game = pass_until(started_game(trio), lambda state: state.finished)
    assert game.status == Game.Status.FINISHED
    bob = trio[1]
    bob_seat = game.seats.get(user=bob)
    client.force_login(bob)
    assert client.post(reverse("account_delete"), {"password": PASSWORD}).status_code == 302

    bob_seat.refresh_from_db()
    assert bob_seat.user is None  # SET_NULL: the seat and its moves stay
    assert Move.objects.filter(seat=bob_seat).exists()
    client.force_login(trio[0])
    page = client.get(reverse("game", args=[game.pk]))
    assert page.status_code == 200
    assert "deleted player" in page.content.decode()
    # No player page for a deleted player, by name or by id.
    assert client.get(reverse("player", args=["Bob"])).status_code == 404
    assert client.get(reverse("player", args=[str(bob.pk)])).status_code == 404


# -- Player pages ------------------------------------------------------------------------------


def test_player_page_numbers_after_a_finished_game(client, trio):
    start = datetime(2030, 1, 6, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = started_game(trio)
        Game.objects.filter(pk=game.pk).update(started_at=start)
        # A few passes, then one default move made by the site at the deadline ...
        game = pass_until(game, lambda state: state.version >= 4, clock=clock)
        late = game.seats.get(position=game.to_move)
        clock.shift(timedelta(days=3))
        assert turn_timeout(game_id=game.pk).automatic
        # ... then everyone passes to the end of the only round.
        game = pass_until(game, lambda state: state.finished, clock=clock)
    assert game.status == Game.Status.FINISHED
    state = engine.State.from_json(game.snapshot)
    assert state.rounds_done[0]["winners"] == ["2"]  # the saboteur: nobody reached the gold

    for user in trio:
        seat = game.seats.get(user=user)
        mine = Move.objects.filter(seat=seat)
        numbers = stats.player_stats(user)
        assert numbers.games_played == numbers.games_finished == 1
        assert numbers.rounds_won == (1 if seat.position == 2 else 0)
        assert numbers.gold == state.gold[seat.position]
        assert numbers.moves == mine.count()
        assert numbers.moves_in_time == mine.filter(automatic=False).count()
        if seat == late:
            assert numbers.moves_in_time == numbers.moves - 1
        else:
            assert numbers.reliability == 1
            # Every move came one minute after the move before it (or the start).
            assert numbers.median_response == timedelta(minutes=1)
    saboteur = game.seats.get(position=2).user
    assert stats.player_stats(saboteur).gold == 4

    client.force_login(trio[0])
    # By display name in any case, or by id.
    for key in (saboteur.display_name.upper(), str(saboteur.pk)):
        page = client.get(reverse("player", args=[key]))
        assert page.status_code == 200
        body = page.content.decode()
        assert saboteur.display_name in body
        assert 'data-testid="gold">4<' in body
        assert 'data-testid="rounds-won">1<' in body
    assert client.get(reverse("player", args=["nobody"])).status_code == 404
    assert stats.player_url(saboteur) == f"/players/{saboteur.display_name}/"


def test_player_page_shows_no_gold_of_a_running_game(client, trio):
    # Two rounds: after the first, the saboteur holds 4 secret gold cards.
    game = started_game(trio, rounds=2)
    game = pass_until(game, lambda state: state.round == 2)
    assert game.status == Game.Status.RUNNING
    state = engine.State.from_json(game.snapshot)
    assert state.gold[2] == 4
    saboteur = game.seats.get(position=2).user
    numbers = stats.player_stats(saboteur)
    assert (numbers.games_played, numbers.games_finished) == (1, 0)
    assert (numbers.gold, numbers.rounds_won) == (0, 0)
    client.force_login(trio[0])
    body = client.get(reverse("player", args=[saboteur.display_name])).content.decode()
    assert 'data-testid="gold">0<' in body
    assert 'data-testid="rounds-won">0<' in body


def test_player_page_needs_login(client, user):
    response = client.get(reverse("player", args=[user.display_name]))
    assert response.status_code == 302


def test_seats_of_lobbies_count_for_nothing(trio):
    game = game_create(creator=trio[0], name="x", ruleset="base", max_seats=3)
    assert Seat.objects.filter(game=game).count() == 1
    numbers = stats.player_stats(trio[0])
    assert numbers.games_played == 0 and numbers.reliability is None


# -- allauth pages in our layout -----------------------------------------------------------------

ANONYMOUS_PAGES = [
    "account_login",
    "account_signup",
    "account_reset_password",
    "account_reset_password_done",
    "account_email_verification_sent",
    "account_inactive",
]
MEMBER_PAGES = [
    "account_email",
    "account_change_password",
    "account_logout",
    "account_reauthenticate",
    "profile",
    "account_delete",
]


def assert_our_layout(response):
    assert response.status_code == 200
    body = response.content.decode()
    assert 'class="site-header"' in body and "css/site.css" in body
    assert 'name="viewport"' in body
    assert "style=" not in body  # the CSP forbids inline styles


@pytest.mark.parametrize("name", ANONYMOUS_PAGES)
def test_allauth_pages_for_visitors_use_our_layout(client, name):
    assert_our_layout(client.get(reverse(name)))


@pytest.mark.parametrize("name", MEMBER_PAGES)
def test_account_pages_use_our_layout_with_the_account_menu(client, user, name):
    client.force_login(user)
    response = client.get(reverse(name))
    assert_our_layout(response)
    assert 'class="account-nav"' in response.content.decode() or name == "account_reauthenticate"


def test_pages_behind_emailed_keys_use_our_layout(client, user):
    assert_our_layout(client.get(reverse("account_confirm_email", args=["bad-key"])))
    response = client.get(reverse("account_reset_password_from_key", args=["x", "bad-key"]))
    assert_our_layout(response)
