"""Small things a player noticed in whole games: plural forms, empty states, durations, the gold
pick in words, the hand's order, the header, language names, and confirming an address in a
fresh browser."""

import re
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import engine
from games.clock import Breaks
from games.engine.cards import CATALOGUE, PATH
from games.models import Game
from games.play.lobby import game_create, game_start, seat_join
from games.read import clock as clocks
from games.read import durations
from games.read.card_names import hand_order
from games.read.log import entries_for
from tests.players import PASSWORD, create_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return [create_player(n) for n in ("ann", "bob", "cid", "dan")]


def start(players):
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=4)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def page_of(user, game) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("game", args=[game.pk])).content.decode()


def passed(count):
    return [(1, [{"kind": "passed", "to": None, "seat": "0", "count": count}], False, 0)]


def test_counts_in_the_log_use_plural_forms():
    names = {"0": "Ann"}
    assert entries_for(passed(1), names, None)[0].text == (
        "Ann passed and discarded 1 card face down."
    )
    assert entries_for(passed(2), names, None)[0].text == (
        "Ann passed and discarded 2 cards face down."
    )
    assert "(s)" not in entries_for(passed(3), names, None)[0].text


def test_an_empty_chat_is_a_sentence_not_a_numbered_item(players):
    game = start(players)
    body = page_of(players[0], game)
    assert '<p class="small" data-testid="chat-empty">No messages yet.</p>' in body
    assert '<ol class="chat">' not in body


def test_durations_never_say_zero_minutes():
    now = timezone.now()
    assert durations.waiting(now - timedelta(seconds=20), now) == "waiting since just now"
    assert durations.waiting(now - timedelta(days=2, hours=3, minutes=5), now) == (
        "waiting for 2\xa0days, 3\xa0hours"
    )
    assert durations.time_left(now + timedelta(seconds=30), now) == (
        "Time left: less than a minute"
    )
    assert durations.time_left(now + timedelta(hours=5, minutes=2), now) == (
        "Time left: 5\xa0hours, 2\xa0minutes"
    )
    assert durations.time_left(now - timedelta(seconds=1), now).startswith("Time is up")
    assert durations.response_time(timedelta(seconds=5)) == "under a minute"


def test_under_a_minute_before_the_time_bank_is_said_as_such():
    """Two hours of bank and 30 seconds of the turn left: not "2 hours, then 2 hours"."""
    now = timezone.now()
    bank = timedelta(hours=2)
    running = clocks.Clock(deadline=now + bank + timedelta(seconds=30), bank=bank, breaks=Breaks())
    with translation.override("en"):
        assert running.text(now) == (
            "Time left: less than a minute, then 2\xa0hours from the time bank"
        )


def test_the_dashboard_says_just_now_and_not_zero_minutes(players):
    game = start(players)
    mover = game.seats.get(position=game.to_move).user
    client = Client()
    client.force_login(mover)
    body = client.get(reverse("home")).content.decode()
    assert "waiting since just now" in body
    assert "0\xa0minutes" not in body and "0 minutes" not in body


def rig_gold_pick(game, *, offer, pickers):
    state = engine.State.from_json(game.snapshot)
    state.decision = engine.PICK_GOLD
    state.offer = list(offer)
    state.pickers = list(pickers)
    state.to_move = pickers[0]
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json(), to_move=pickers[0])
    game.refresh_from_db()
    return state


def test_the_gold_pick_says_what_is_left_who_is_next_and_what_the_others_get(players):
    game = start(players)
    state = rig_gold_pick(game, offer=[3, 2, 1, 1], pickers=[1, 3])
    seats = {s.position: s.user for s in game.seats.select_related("user")}
    picker, others = seats[1], [seats[0], seats[2], seats[3]]
    after = [seats[3].display_name, seats[1].display_name, seats[3].display_name]

    body = page_of(picker, game)
    rest = re.search(r'data-testid="gold-pick-rest">(.*?)</p>', body, re.S).group(1)
    rest = " ".join(rest.split())
    assert "4 gold cards are on offer." in rest
    assert f"the other 3 go on to {', '.join(after)}, in that order." in rest

    for user in others:
        body = page_of(user, game)
        wait = re.search(r'data-testid="gold-pick-wait">(.*?)</span>', body, re.S).group(1)
        assert " ".join(wait.split()) == (
            f"{picker.display_name} is choosing gold (4 of 4 picks left)."
        )
        # The offered values are the picker's alone.
        assert "Keep 3 gold" not in body
    assert state.offer == [3, 2, 1, 1]


def test_the_hand_shows_path_cards_first_then_actions_in_a_stable_order(players):
    game = start(players)
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.get(position=0)
    hand = state.hands[0]
    ordered = hand_order(hand)
    kinds = [CATALOGUE[c].kind == PATH for c in ordered]
    assert kinds == sorted(kinds, reverse=True)  # every path card before every action
    assert hand_order(list(reversed(hand))) == ordered  # stable whatever the dealt order
    body = page_of(seat.user, game)
    shown = re.findall(r'data-card="([^"]+)"', body)
    if shown:  # the mover's playable cards are links carrying their id, in page order
        assert shown == [c for c in ordered if c in shown]


def test_a_long_display_name_is_cut_in_the_header_with_the_full_name_in_its_title(client):
    long = create_player("lon", display_name="Bartholomew the Unbelievably Patient")
    client.force_login(long)
    body = client.get(reverse("lobby")).content.decode()
    link = re.search(r'<a class="site-nav__user"[^>]*>', body).group(0)
    assert 'title="Bartholomew the Unbelievably Patient – your profile"' in link
    css = client.get("/static/css/site.css")
    text = b"".join(css.streaming_content).decode() if css.streaming else css.content.decode()
    rule = re.search(r"\.site-nav__user \{(.*?)\}", text, re.S).group(1)
    assert "text-overflow: ellipsis" in rule and "max-width" in rule


def test_the_profile_and_the_footer_list_languages_by_their_own_names(client):
    ann = create_player("ann")
    client.force_login(ann)
    for language in ("en", "cs"):
        with translation.override(language):
            body = client.get(reverse("profile"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        for name in ("English", "Čeština", "Slovenčina", "Українська", "Română"):
            assert body.count(f">{name}</option>") == 2, (language, name)  # profile and footer


def test_confirming_the_address_in_a_fresh_browser_says_log_in_and_leads_on(players):
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=4)
    invite = reverse("invite", args=[game.invite_token])
    signup = Client()
    response = signup.post(
        f"{reverse('account_signup')}?next={quote(invite)}",
        {
            "display_name": "Gimli",
            "email": "gimli@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": invite,
        },
    )
    assert response.status_code == 302
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", mail.outbox[-1].body)
    url = link.group(1)
    assert "then=" in url

    fresh = Client()  # another device: no session of the sign-up
    page = fresh.get(url)
    assert page.status_code == 200
    form = re.search(r'name="then" value="([^"]+)"', page.content.decode())
    response = fresh.post(url.split("?")[0], {"then": form.group(1).replace("&#x2F;", "/")})
    login = f"{reverse('account_login')}?next={quote(invite, safe='')}"
    assert response.status_code == 302 and response.headers["Location"] == login
    body = fresh.get(response.headers["Location"]).content.decode()
    assert "Your email address is confirmed. Log in to continue where you were." in body
    response = fresh.post(login, {"login": "gimli@example.com", "password": PASSWORD})
    assert response.headers["Location"] == invite


def test_a_then_pointing_at_another_site_is_ignored(players):
    fresh = Client()
    signup = Client()
    signup.post(
        reverse("account_signup"),
        {
            "display_name": "Gimli",
            "email": "gimli@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "https://evil.example/",
        },
    )
    url = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", mail.outbox[-1].body)
    assert "then=" not in url.group(1)
    response = fresh.post(url.group(1), {"then": "https://evil.example/"})
    assert response.headers["Location"] == reverse("account_login")
