"""Bad input never causes a server error (issue: NUL bytes and other text PostgreSQL refuses).

Every URL pattern of the resolver (tests/routes.py) is requested with NUL bytes, invalid UTF-8
(what a lone surrogate becomes in a URL), JSON bodies holding a NUL or a lone surrogate (each
refused with the clear 400 before any view), overlong text, line breaks and the traps of
``str.isdigit()`` and ``int()`` (superscripts, circled and other scripts' digits, numbers too
big for the database, a sign, spaces and underscores) in each path parameter,
in the query string and in every posted field (the names are read from the site's own forms),
as a seated player and, for the admin, as staff (logged in again whenever a route such as the
logout ended the session); each answer must be below 500. On PostgreSQL,
which refuses NUL in text; the client reports a view's exception as a 500 instead of raising.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import reverse

from accounts import relations
from accounts.models import Block
from games import engine
from games.models import Challenge, ChatMessage, Game, Move, Report
from games.play import challenges, matchmaking
from games.play.chat import chat_post
from games.play.errors import IdempotencyConflict
from games.play.lobby import game_create, game_start, seat_join
from games.play.matchmaking import Wish
from games.play.moves import move_submit
from saboteur_site.text import ascii_int
from tests.players import create_player
from tests.routes import walk_routes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _health_answers_at_once(settings):
    """The walks ask /health/ many times with no worker of theirs to answer: each ask waited a
    whole second for Celery's replies. Whatever its answer, the walk reads only what it shows."""
    settings.HEALTH_CELERY_SECONDS = 0.05


# As they travel in a URL or a form body (already percent-encoded).
BAD_VALUES = {
    "nul": "a%00b",
    "invalid-utf8": "%ED%A0%80",  # the UTF-8 form of a lone surrogate
    "overlong": "x" * 5000,
    "line-breaks": "a%0D%0Ab",
    # isdigit() is true for these, but int() refuses them (issue 23: /players/²/ was a 500).
    "superscript": "%C2%B2",  # ²
    "circled": "%E2%91%A0",  # ①
    # int() takes these; the site should not: another script's digits, a number beyond any
    # database column, and a sign, spaces and an underscore.
    "arabic-indic": "%D9%A1%D9%A2",  # ١٢
    "huge": "9" * 40,
    "sign-and-underscore": "%20%2B1_0%20",  # " +1_0 "
    "position": "%C2%B2,%D9%A1",  # where "x,y" is read: "²,١"
}
# A JSON body can carry what a form cannot: a real lone surrogate and a NUL escape. Every route
# must refuse these with the clear 400 (issue 36: the push subscription's JSON was a 500).
BAD_JSON = {
    "json-nul": '{"text": "a\\u0000b", "keys": {"auth": "\\u0000"}}',
    "json-surrogate": '{"text": "\\ud800", "keys": {"auth": "x"}, "\\udc00": 1}',
}
FIELD = re.compile(r"""<(?:input|textarea|select)\b[^>]*\bname="([^"]+)\"""")
ALWAYS_TRIED = {"text", "name", "email", "display_name", "login", "password", "key", "q", "next"}
ALWAYS_TRIED |= {"v", "step", "at", "card", "turned", "target", "tool", "part", "version", "value"}


@pytest.fixture
def world():
    ann, bob, cid = (create_player(n) for n in ("ann", "bob", "cid"))
    staff = create_player("sam", is_staff=True, is_superuser=True)
    running = game_create(creator=ann, name="Deep mine", ruleset="base", max_seats=3)
    for user in (bob, cid):
        seat_join(game_id=running.pk, user=user)
    running = game_start(game_id=running.pk, user=ann)
    chat_post(game_id=running.pk, user=ann, text="hello")
    lobby = game_create(creator=ann, name="Lobby", ruleset="base", max_seats=5)
    # Issue 52's pages with something to show: Ann's friends (the challenge form), her forming
    # table (Play now), a challenge to her.
    for other in (bob, cid):
        relations.follow(ann, other)
        relations.follow(other, ann)
    wish = Wish(rulesets=("base",), min_players=3, max_players=5, pace="2d", languages=("en",))
    matchmaking.seek(user=ann, wish=wish)
    challenges.challenge_send(challenger=bob, friends=[ann.pk], ruleset="saboteur2", pace="1d")
    return {"ann": ann, "staff": staff, "running": running, "lobby": lobby}


def client_for(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def field_names(client: Client, urls: list[str]) -> set[str]:
    """Every field name of every form the site shows on these pages."""
    names = set(ALWAYS_TRIED)
    for url in urls:
        response = client.get(url)
        if response.status_code == 200 and "html" in response.get("Content-Type", ""):
            names.update(FIELD.findall(response.content.decode()))
    return names - {"csrfmiddlewaretoken"}


def requests_for(url_with_bad: str, url_plain: str, names: set[str], bad: str):
    body = "&".join(f"{quote(name)}={bad}" for name in sorted(names))
    yield "GET", url_with_bad, {}
    yield "GET", f"{url_plain}?{body}", {}
    yield "POST", url_with_bad, {"data": "", "content_type": "application/x-www-form-urlencoded"}
    form = {"data": body, "content_type": "application/x-www-form-urlencoded"}
    yield "POST", url_plain, form
    yield "POST", url_plain, {**form, "HTTP_HX_REQUEST": "true"}
    for body in BAD_JSON.values():
        yield "POST", url_plain, {"data": body, "content_type": "application/json"}


def refused_clearly(response) -> bool:
    """The guard's 400, as JSON to a JSON request (the push subscription's script reads it)."""
    if response.status_code != 400 or "json" not in response.get("Content-Type", ""):
        return False
    return CANNOT_ACCEPT in response.json().get("error", "")


CANNOT_ACCEPT = "characters the site cannot accept"


@pytest.mark.slow
def test_no_bad_input_reaches_a_server_error_on_any_route(world):
    running, lobby, ann = world["running"], world["lobby"], world["ann"]
    values = {"pk": running.pk, "token": running.invite_token, "url": "no-such-page/"}
    plain_routes = walk_routes(values)
    players = client_for(ann)
    staff = client_for(world["staff"])
    names = field_names(players, [r.url for r in plain_routes if "admin" not in r.text])
    names |= field_names(staff, [f"/admin/games/game/{running.pk}/change/", "/admin/"])
    names |= field_names(players, [f"/games/{lobby.pk}/", "/games/", "/accounts/profile/"])
    challenge = Challenge.objects.get(challenged=ann)
    names |= field_names(players, [reverse("challenge", args=[challenge.token])]) | {"answer"}

    failures, done = [], set()
    for label, bad in BAD_VALUES.items():
        # Integer parameters cannot hold text: they keep real values.
        bad_values = {**values, **{k: bad for k in ("token", "key", "url", "uidb36")}}
        bad_routes = walk_routes(bad_values, must_resolve=False)
        for plain, with_bad in zip(plain_routes, bad_routes, strict=True):
            client, user = (staff, world["staff"]) if "/admin/" in plain.url else (players, ann)
            for method, url, extra in requests_for(with_bad.url, plain.url, names, bad):
                if (method, url, str(extra)) in done:
                    continue  # the same request for another value (no parameter held it)
                done.add((method, url, str(extra)))
                if "_auth_user_id" not in client.session:
                    client.force_login(user)  # a logout route ended the session: log back in
                call = client.get if method == "GET" else client.post
                response = call(url, **extra)
                if response.status_code == 503 and url.startswith("/health/"):
                    continue  # the health check's answer while no Celery worker runs here
                if response.status_code >= 500:
                    failures.append(f"{label}: {method} {url[:120]} -> {response.status_code}")
                elif extra.get("data") in BAD_JSON.values() and not refused_clearly(response):
                    failures.append(f"{label}: JSON to {url[:120]} -> {response.status_code}")
    assert not failures, "\n".join(failures[:40])
    # Nothing the database refuses was stored (the chat takes "²" or a line break as a player's
    # words, and invalid UTF-8 arrives as replacement characters), and no game was made.
    texts = list(ChatMessage.objects.values_list("text", flat=True))
    assert texts[0] == "hello" and len(texts) > 1  # the player stayed logged in to post
    assert not [t for t in texts if "\x00" in t or len(t) > 500]
    assert Game.objects.count() == 4  # running, lobby, forming table, challenge


# -- Numbers in requests: ASCII digits only (issue 23) ---------------------------------------

ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


@pytest.mark.parametrize("key", ["²", "①", "¹²³", "𐩀", "⑳", "9" * 40])
def test_a_digit_like_player_key_is_not_found_rather_than_a_server_error(world, key):
    """``"²".isdigit()`` is true and ``int("²")`` fails: /players/²/ was a 500."""
    response = client_for(world["ann"]).get(f"/players/{quote(key)}/")
    assert response.status_code == 404


def test_a_player_id_is_written_in_ascii_digits_and_other_digits_are_names(world):
    zed = create_player("zed")
    client = client_for(world["ann"])
    page = client.get(f"/players/{zed.pk}/")
    assert page.status_code == 200 and "Zed" in page.content.decode()
    # int() reads all of these as Zed's id; the site reads them as names nobody has.
    spellings = [str(zed.pk).translate(ARABIC_INDIC), str(zed.pk).translate(FULLWIDTH)]
    spellings += [f" {zed.pk}", f"+{zed.pk}", f"{zed.pk}_0"]
    for spelled in spellings:
        assert client.get(f"/players/{quote(spelled)}/").status_code == 404, spelled
    # A name in another script's digits is a name: its player's page.
    named = create_player("yan", display_name="٤٢")
    page = client.get(f"/players/{quote('٤٢')}/")
    assert page.status_code == 200 and page.context["player"] == named


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("42", 42), ("-7", -7), ("007", 7), ("9" * 18, int("9" * 18))],
)
def test_ascii_int_reads_ascii_digits(text, number):
    assert ascii_int(text) == number


@pytest.mark.parametrize(
    "text", [None, "", "²", "①", "١٢", "１", " 1", "1 ", "+1", "1_0", "1.0", "--1", "9" * 19, "0x1"]
)
def test_ascii_int_refuses_everything_else(text):
    assert ascii_int(text) is None


def test_the_replay_and_the_poll_read_only_ascii_numbers(world):
    running = world["running"]
    mover = running.seats.select_related("user").get(position=running.to_move).user
    card = engine.State.from_json(running.snapshot).hands[running.to_move][0]
    move_submit(
        game_id=running.pk, user=mover, move={"move": "pass", "discard": [card]},
        expected_version=0,
    )  # fmt: skip
    running.refresh_from_db()
    client = client_for(world["ann"])
    replay = f"/games/{running.pk}/replay/"
    assert client.get(f"{replay}?step=0").context["page"].step == 0
    # Another script's zero is no step at all (the latest), not step 0.
    for step in ("%D9%A0", "%EF%BC%90", "%C2%B2"):  # ٠, fullwidth 0, ²
        assert client.get(f"{replay}?step={step}").context["page"].step == 1, step
    poll = f"/games/{running.pk}/poll/"
    assert client.get(f"{poll}?v={running.revision}").status_code == 204
    spelled = str(running.revision).translate(ARABIC_INDIC)
    assert client.get(f"{poll}?v={quote(spelled)}").status_code == 200  # not "unchanged"


def test_a_dismissed_guide_goes_back_only_to_a_path_of_the_site(world):
    client = client_for(world["ann"])
    for target, expected in [("/games/", "/games/"), ("abc", "/"), ("²", "/"), ("", "/")]:
        response = client.post(reverse("guide_dismiss"), {"next": target})
        assert (response.status_code, response["Location"]) == (302, expected), target


def test_the_admin_page_of_a_game_that_is_no_id_is_not_a_server_error(world):
    staff = client_for(world["staff"])
    for object_id in ("dummy-key", "%C2%B2", "-1"):
        response = staff.get(f"/admin/games/game/{object_id}/change/")
        assert response.status_code == 302 and response["Location"] == "/admin/", object_id
    page = staff.get(f"/admin/games/game/{world['running'].pk}/change/")
    assert page.status_code == 200 and "/moderate/pause/" in page.content.decode()


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "/players/%00/"),
        ("GET", "/invite/%00/"),
        ("POST", "/invite/abc%00/join/"),
        ("GET", "/games/?q=%00"),
    ],
)
def test_nul_in_a_path_or_query_is_a_clear_400(world, method, url):
    client = client_for(world["ann"])
    response = client.get(url) if method == "GET" else client.post(url)
    assert response.status_code == 400
    assert "characters the site cannot accept" in response.content.decode()


def test_a_chat_message_with_a_nul_byte_is_refused_and_nothing_is_stored(world):
    client = client_for(world["ann"])
    url = f"/games/{world['running'].pk}/chat/"
    response = client.post(url, {"text": "hi\x00there"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["hello"]


def test_an_idempotency_key_reused_for_another_move_is_refused_and_changes_nothing(world):
    running = world["running"]
    mover = running.seats.select_related("user").get(position=running.to_move).user
    client = client_for(mover)
    url = reverse("move", args=[running.pk])
    first = {"version": 0, "key": "k-1", "kind": "pass", "discard": ["0"]}
    assert client.post(url, first, HTTP_HX_REQUEST="true").status_code == 200
    after_first = list(Move.objects.values_list("sequence", "payload"))

    for version in (0, 1):  # the page's old version, or a forged fresh one
        other = {**first, "discard": ["1"], "version": version}
        response = client.post(url, other, HTTP_HX_REQUEST="true")
        assert response.status_code == 409
        assert "already sent a different move" in response.content.decode()
    # The same key with the same move gets the first answer again.
    again = client.post(url, first, HTTP_HX_REQUEST="true")
    assert again.status_code == 200 and "Your move is made." in again.content.decode()
    assert list(Move.objects.values_list("sequence", "payload")) == after_first


def test_the_service_refuses_a_key_reused_for_another_move(world):
    running = world["running"]
    mover = running.seats.select_related("user").get(position=running.to_move).user
    hand = engine.State.from_json(running.snapshot).hands[running.to_move]
    first = {"move": "pass", "discard": [hand[0]]}
    other = next(card for card in hand if card != hand[0])  # a hand may hold two copies
    move_submit(game_id=running.pk, user=mover, move=first, expected_version=0, idempotency_key="k")
    with pytest.raises(IdempotencyConflict):
        move_submit(
            game_id=running.pk, user=mover, move={"move": "pass", "discard": [other]},
            expected_version=1, idempotency_key="k",
        )  # fmt: skip
    again = move_submit(
        game_id=running.pk, user=mover, move=first, expected_version=0, idempotency_key="k"
    )
    assert again.repeated and Move.objects.count() == 1


def test_an_old_invite_link_to_a_started_private_game_shows_no_players(world):
    running = world["running"]
    Game.objects.filter(pk=running.pk).update(visibility=Game.Visibility.INVITE)
    outsider = create_player("oscar")
    page = client_for(outsider).get(reverse("invite", args=[running.invite_token]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "This game has already started." in text
    for user in running.seats.select_related("user"):
        assert user.user.display_name not in text
    assert "3/3" not in text
    # While the game is in its lobby, the link shows who is there (that is its purpose).
    lobby = world["lobby"]
    text = client_for(outsider).get(reverse("invite", args=[lobby.invite_token])).content
    assert b"Ann" in text


# -- Community safety (issue 53): forged ids, over-long words, double clicks -------------------


@pytest.mark.parametrize("number", ["0", "987654321", "9" * 18])
def test_reports_and_blocks_of_forged_ids_are_not_found_and_change_nothing(world, number):
    ann = client_for(world["ann"])
    for kind in ("message", "game", "player"):
        url = f"/report/{kind}/{number}/"
        assert ann.get(url).status_code == 404
        assert ann.post(url, {"reason": "abuse", "player": number}).status_code == 404
    assert ann.get("/report/message/" + "9" * 19 + "/").status_code == 404  # not a route
    for name in ("block", "unblock"):
        assert ann.post(reverse(name, args=[int(number)])).status_code == 404
    assert ann.post(reverse("block", args=[10**30])).status_code == 404
    assert not Report.objects.exists() and not Block.objects.exists()


def test_an_over_long_report_and_a_double_click_store_one_report_or_none(world):
    bob = world["running"].seats.exclude(user=world["ann"]).first().user
    ann = client_for(world["ann"])
    url = reverse("report", args=["player", bob.pk])
    too_long = ann.post(url, {"reason": "abuse", "text": "x" * 501})
    assert too_long.status_code == 422 and not Report.objects.exists()
    unknown = ann.post(url, {"reason": "boredom"})
    assert unknown.status_code == 422 and not Report.objects.exists()
    first = ann.post(url, {"reason": "abuse", "text": "Rude"})
    second = ann.post(url, {"reason": "abuse", "text": "Rude"})
    assert (first.status_code, second.status_code) == (302, 422)
    assert Report.objects.count() == 1
    assert ann.delete(url).status_code == 405
    assert ann.post(reverse("my_reports")).status_code == 405
