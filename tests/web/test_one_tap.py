"""One-tap decisions from the "your turn" email, and the maze and hand in it (issue 15).

The emails are built by the real builder from real outbox rows; the links are followed with
Django's test client with CSRF checks on, logged in or not. Rigged deals (as in the browser tests)
give every link a known outcome.
"""

from __future__ import annotations

import re
import threading
import time
from datetime import timedelta
from functools import partial
from urllib.parse import urlsplit

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.core import signing
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from games import engine
from games.models import Game, Move, Notice
from games.outbox import one_tap as outbox_one_tap
from games.outbox.emails import build_email
from games.play import taps as play_taps
from games.play.errors import StaleVersion
from games.play.lobby import game_create, game_start, seat_join
from games.play.locking import lock_game
from games.play.moves import move_submit
from tests.e2e.deals import BASE_DEAL, SABOTEUR2_DEAL
from tests.players import create_player, seat_in_order
from tests.threads import at_once

pytestmark = pytest.mark.django_db

# Ann (seat 0) starts with action cards: a map, a broken lantern to give, a repair nobody needs
# yet, a rockfall (needs the maze: no link) and two path cards.
ACTION_DEAL = {
    **BASE_DEAL,
    "hands": {
        "0": ["map", "break-lantern", "repair-pickaxe", "rockfall", "cross", "straight-ew"],
        "1": ["map", "cross", "straight-ew", "break-pickaxe", "break-lantern", "rockfall"],
        "2": ["dead-n", "straight-ew", "cross", "curve-nw", "curve-nw", "curve-nw"],
    },
}

# The browser tests' games, move by move, up to the round-end decisions (seat, move).
BASE_TO_GOLD = [
    ("0", {"move": "place", "card": "t-new", "at": [1, 0], "turned": True}),
    ("1", {"move": "action", "card": "map", "goal": "north"}),
    ("2", {"move": "pass", "discard": ["dead-n"]}),
    *(
        (seat, {"move": "place", "card": card, "at": [x, 0], "turned": False})
        for seat, card, x in [
            ("0", "straight-ew", 2),
            ("1", "cross", 3),
            ("2", "straight-ew", 4),
            ("0", "cross", 5),
            ("1", "straight-ew", 6),
            ("2", "cross", 7),
        ]
    ),
]
SABOTEUR2_TO_STEAL = [
    ("0", {"move": "place", "card": "cross", "at": [1, 0], "turned": False}),
    ("1", {"move": "place", "card": "straight-ew", "at": [2, 0], "turned": False}),
    ("2", {"move": "action", "card": "theft", "target": "2"}),
    *(
        (seat, {"move": "place", "card": card, "at": [x, 0], "turned": False})
        for seat, card, x in [
            ("0", "cross", 3),
            ("1", "straight-ew", 4),
            ("2", "door-blue-ew", 5),
            ("0", "t-new", 6),
            ("1", "cross", 7),
        ]
    ),
]


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid")]


def rigged(users, *, deal=ACTION_DEAL, ruleset="base"):
    """A running one-round game with ``users[i]`` at seat i and a rigged deal, its first turn
    notice written (as ``game_start`` does for a real deal)."""
    game = game_create(
        creator=users[0], name="Deep mine", ruleset=ruleset, max_seats=len(users), rounds=1
    )
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game_start(game_id=game.pk, user=users[0])
    game.refresh_from_db()
    seat_in_order(game, users)
    state = engine.new_game(
        ruleset=ruleset,
        seats=[str(i) for i in range(len(users))],
        round_seeds=["rigged-round-1"],
        rounds=1,
        deals=[deal],
    )
    Notice.objects.all().delete()
    Game.objects.filter(pk=game.pk).update(
        snapshot=state.to_json(), version=0, to_move=state.to_move
    )
    game.refresh_from_db()
    from games.outbox.schedule import notices_for_decision

    notices_for_decision(game=game, now=timezone.now())
    return game


def play(game, moves):
    for seat, move in moves:
        game.refresh_from_db()
        user = game.seats.get(position=int(seat)).user
        move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)
    game.refresh_from_db()


def email_for(game, user):
    notice = Notice.objects.filter(kind=Notice.Kind.TURN, game=game, user=user).latest("pk")
    return build_email(notice, user.email)


def links(message) -> dict[str, str]:
    """The one-tap links of an email's text: label -> path (without the number a reply uses)."""
    found = re.findall(r"^- (?:(?:pass )?\d+\. )?(.+?): (http://\S+/tap/\S+/)$", message.body, re.M)
    return {label: urlsplit(url).path for label, url in found}


def csrf_post(client, path):
    """What the confirmation page's button does: POST with the page's CSRF token."""
    page = client.get(path).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    return client.post(path, {"csrfmiddlewaretoken": token.group(1) if token else ""})


def moves_of(game):
    return list(
        Move.objects.filter(game=game).order_by("sequence").values_list("payload", flat=True)
    )


# -- The email ------------------------------------------------------------------------------


def test_the_email_offers_every_decision_that_needs_no_maze(players):
    ann = players[0]
    game = rigged(players)
    message = email_for(game, ann)
    offered = links(message)
    assert set(offered) == {
        "Look at the north goal",
        "Look at the middle goal",
        "Look at the south goal",
        "Break Bob's lantern",
        "Break Cid's lantern",
        *(
            f"Pass, discarding {name}"
            for name in (
                "Map",
                "Broken lantern",
                "Repair pickaxe",
                "Rockfall",
                "Cross",
                "Straight (east-west)",
            )
        ),
    }
    # The useful first; breaking one's own lantern is left to the page, which warns (issue 36:
    # a turn email offered "Break your own tool" first).
    assert list(offered)[:5] == [
        "Look at the north goal",
        "Look at the middle goal",
        "Look at the south goal",
        "Break Bob's lantern",
        "Break Cid's lantern",
    ]
    # Path cards open the game with the card picked; Rockfall needs the maze: no link at all.
    assert f"Cross: http://127.0.0.1:8000/games/{game.pk}/?card=cross" in message.body
    assert "?card=rockfall" not in message.body and "?card=map" not in message.body
    client = Client()
    client.force_login(ann)
    page = client.get(f"/games/{game.pk}/?card=cross").content.decode()
    assert "Selected: Cross" in page
    assert "Your role: Gold digger" in message.body
    hand = (
        "1. Cross, 2. Straight (east-west), 3. Broken lantern, 4. Repair pickaxe, "
        "5. Rockfall, 6. Map"
    )
    assert f"Your hand: {hand}\n" in message.body  # in the order of the game page, numbered
    assert "Decide by " in message.body
    # The reminders carry the same.
    reminder = Notice.objects.filter(kind=Notice.Kind.REMINDER, game=game, user=ann).first()
    reminded = build_email(reminder, ann.email)
    assert reminded.subject.startswith("Reminder") and set(links(reminded)) == set(offered)
    assert [cid for cid, _png in reminded.inline_images][0].startswith("maze-")


def test_the_maze_and_hand_are_inline_pictures_the_html_shows(players):
    ann, bob = players[:2]
    game = rigged(players)
    play(game, [("0", {"move": "place", "card": "cross", "at": [1, 0], "turned": False})])
    play(game, [("1", {"move": "action", "card": "map", "goal": "north"})])
    play(game, [("2", {"move": "pass", "discard": ["dead-n"]})])
    raw = email_for(game, ann).message()
    html_part = raw.get_body(("html",))
    assert html_part.get_content_type() == "text/html"
    related = next(p for p in raw.walk() if p.get_content_type() == "multipart/related")
    images = {
        p["Content-ID"].strip("<>"): p
        for p in related.iter_parts()
        if p.get_content_maintype() == "image"
    }
    html = html_part.get_content()
    maze = next(cid for cid in images if cid.startswith("maze-"))
    for cid, part in images.items():
        assert part.get_content_type() == "image/png"
        assert part.get_content().startswith(b"\x89PNG\r\n\x1a\n")
        assert part.get_content_disposition() == "inline"
        assert f'src="cid:{cid}"' in html
    assert {f"card-{card}@saboteur" for card in ("map", "break-lantern", "straight-ew")} < set(
        images
    )
    # The alt text tells what changed in the maze since Ann's move: Bob's map and Cid's pass
    # changed nothing.
    alt = re.search(rf'<img src="cid:{re.escape(maze)}" alt="([^"]*)"', html).group(1)
    assert alt == "The maze. It has not changed since your last move."
    assert raw.get_body(("plain",)).get_content().startswith("Hello Ann")

    # Bob's email after Ann's next move mentions her card in the alt text.
    play(game, [("0", {"move": "place", "card": "straight-ew", "at": [2, 0], "turned": False})])
    message = email_for(game, bob)
    assert "You saw: the north goal is Stone (north-east curve).\n" in message.body  # his map
    html = message.message().get_body(("html",)).get_content()
    assert (
        'alt="The maze. Since your last move (outlined): Ann placed Straight (east-west) '
        'at column 2, row 0."' in html
    )


def test_players_can_leave_their_hand_and_links_out_of_emails(players):
    ann = players[0]
    ann.email_hand = False
    ann.save()
    game = rigged(players)
    message = email_for(game, ann)
    assert not links(message) and "/tap/" not in message.alternatives[0].content
    assert "Your hand" not in message.body and "Your role" not in message.body
    assert "Gold digger" not in message.body + message.alternatives[0].content
    assert [cid for cid, _png in message.inline_images] == [f"maze-{game.pk}-0@saboteur"]
    assert "Decide by " in message.body  # the deadline stays


def test_the_profile_page_edits_the_preference(players):
    client = Client()
    ann = players[0]
    client.force_login(ann)
    page = client.get("/accounts/profile/").content.decode()
    assert "Show my hand, my role and one-tap moves in emails" in page
    data = {
        "display_name": "Ann",
        "language": "",
        "time_zone": "UTC",
        "email_turns": "on",
        "email_reminders": "on",
    }
    assert client.post("/accounts/profile/", data).status_code in (200, 302)
    ann.refresh_from_db()
    assert ann.email_hand is False


# -- Following a link ---------------------------------------------------------------------


def test_get_changes_nothing_and_the_post_makes_exactly_that_move_without_login(players):
    ann = players[0]
    game = rigged(players)
    path = links(email_for(game, ann))["Break Bob's lantern"]
    client = Client(enforce_csrf_checks=True)  # not logged in
    for _ in range(2):
        response = client.get(path)
        assert response.status_code == 200
        assert response["Cache-Control"].startswith("max-age=0")
        page = response.content.decode()
        assert "Break Bob&#x27;s lantern" in page and 'method="post"' in page
    assert client.head(path).status_code == 200
    game.refresh_from_db()
    assert game.version == 0 and not moves_of(game)

    response = csrf_post(client, path)
    assert response.status_code == 200
    assert "Your move is made." in response.content.decode()
    game.refresh_from_db()
    assert game.version == 1
    assert moves_of(game) == [{"move": "action", "card": "break-lantern", "target": "1"}]
    move = Move.objects.get(game=game)
    assert move.seat.user == ann and move.idempotency_key.startswith("tap:")


def test_a_used_link_answers_the_same_and_the_others_die(players):
    ann = players[0]
    game = rigged(players)
    offered = links(email_for(game, ann))
    client = Client(enforce_csrf_checks=True)
    assert csrf_post(client, offered["Look at the north goal"]).status_code == 200
    # Tapped again: the first answer, no second move.
    again = csrf_post(client, offered["Look at the north goal"])
    assert again.status_code == 200 and "Your move is made." in again.content.decode()
    assert (
        "This move is already made"
        in client.get(offered["Look at the north goal"]).content.decode()
    )
    # Any other link of the same email: Ann has made this decision already.
    stale = csrf_post(client, offered["Break Bob's lantern"])
    assert stale.status_code == 409 and "You have already moved" in stale.content.decode()
    assert f'href="/games/{game.pk}/"' in stale.content.decode()
    game.refresh_from_db()
    assert game.version == 1 and len(moves_of(game)) == 1


def test_a_link_dies_when_the_game_moves_on_or_the_deadline_passes(players):
    ann = players[0]
    game = rigged(players)
    offered = links(email_for(game, ann))
    client = Client(enforce_csrf_checks=True)
    with time_machine.travel(game.deadline + timedelta(seconds=1)):
        for response in (
            client.get(offered["Look at the north goal"]),
            csrf_post(client, offered["Look at the north goal"]),
        ):
            assert response.status_code == 410
            assert "This link has expired" in response.content.decode()
    game.refresh_from_db()
    assert game.version == 0
    # Ann moves on the game page instead: the email's links are stale.
    play(game, [("0", {"move": "pass", "discard": ["rockfall"]})])
    response = csrf_post(client, offered["Look at the middle goal"])
    assert response.status_code == 409
    game.refresh_from_db()
    assert game.version == 1


def test_an_old_signature_expires_whatever_the_game(players):
    ann = players[0]
    game = rigged(players)
    path = links(email_for(game, ann))["Look at the north goal"]
    with time_machine.travel(timezone.now() + outbox_one_tap.MAX_AGE + timedelta(minutes=1)):
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(days=1))
        response = csrf_post(Client(enforce_csrf_checks=True), path)
    assert response.status_code == 410
    game.refresh_from_db()
    assert game.version == 0


def test_tampered_or_foreign_tokens_change_nothing(players):
    ann, bob = players[:2]
    game = rigged(players)
    path = links(email_for(game, ann))["Break Bob's lantern"]
    token = path.split("/")[2]
    tampered = token[:-3] + ("A" if token[-3] != "A" else "B") + token[-2:]
    other_purpose = signing.dumps(
        signing.loads(token, salt=outbox_one_tap.SALT), salt="games.unsubscribe"
    )
    # A token for the right purpose, but naming Bob's seat for Ann: not signed by us.
    forged = token.replace(token.split(":")[0], signing.dumps({"u": bob.pk}).split(":")[0])
    client = Client(enforce_csrf_checks=True)
    for bad in (tampered, other_purpose, forged, "junk", game.invite_token):
        for response in (client.get(f"/tap/{bad}/"), csrf_post(client, f"/tap/{bad}/")):
            assert response.status_code == 400, bad
            assert "This link does not work" in response.content.decode()
    # Bob, logged in, opens Ann's link (a forwarded email): refused, even with the button.
    bob_client = Client(enforce_csrf_checks=True)
    bob_client.force_login(bob)
    response = bob_client.get(path)
    assert response.status_code == 403 and "This link is not yours" in response.content.decode()
    assert "Break" not in response.content.decode()
    anonymous = Client(enforce_csrf_checks=True)
    page = anonymous.get(path).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    bob_client.cookies["csrftoken"] = anonymous.cookies["csrftoken"].value
    response = bob_client.post(path, {"csrfmiddlewaretoken": csrf})
    assert response.status_code == 403
    game.refresh_from_db()
    assert game.version == 0 and not moves_of(game)
    # Ann herself, logged in, may use it.
    ann_client = Client(enforce_csrf_checks=True)
    ann_client.force_login(ann)
    assert csrf_post(ann_client, path).status_code == 200


def test_turning_one_tap_moves_off_kills_every_link_sent_before(players):
    """Issue 23: after Ann unticks the box on her profile, her older links are refused with a
    clear page (GET and the button), and nothing is changed."""
    ann = players[0]
    game = rigged(players)
    offered = links(email_for(game, ann))
    client = Client(enforce_csrf_checks=True)
    ready = client.get(offered["Look at the north goal"]).content.decode()  # the button's page
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', ready).group(1)

    ann_client = Client()
    ann_client.force_login(ann)
    profile = {"display_name": "Ann", "language": "", "time_zone": "UTC", "email_turns": "on"}
    assert ann_client.post("/accounts/profile/", profile).status_code in (200, 302)
    ann.refresh_from_db()
    assert ann.email_hand is False

    for label, path in offered.items():
        page = client.get(path)
        text = page.content.decode()
        assert page.status_code == 403, label
        assert "One-tap moves are turned off" in text and "Nothing was changed." in text
        assert "one-tap-confirm" not in text and label.replace("'", "&#x27;") not in text
        assert 'href="/accounts/profile/"' in text and f'href="/games/{game.pk}/"' in text
        posted = client.post(path, {"csrfmiddlewaretoken": csrf})  # the page opened before
        assert posted.status_code == 403, label
        assert "One-tap moves are turned off" in posted.content.decode()
    game.refresh_from_db()
    assert game.version == 0 and not moves_of(game)
    # Logged in as herself it is the same: the choice is hers, not the session's.
    assert csrf_post(ann_client, offered["Break Bob's lantern"]).status_code == 403
    game.refresh_from_db()
    assert game.version == 0 and not moves_of(game)


def test_a_paused_game_refuses_the_link(players):
    ann = players[0]
    game = rigged(players)
    offered = links(email_for(game, ann))
    Game.objects.filter(pk=game.pk).update(status=Game.Status.PAUSED)
    response = csrf_post(Client(enforce_csrf_checks=True), offered["Look at the north goal"])
    assert response.status_code == 409 and "paused this game" in response.content.decode()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.RUNNING)
    game.refresh_from_db()
    assert game.version == 0


def test_gold_and_theft_decisions_get_links(players):
    ann, bob, cid = players
    game = rigged(players, deal=BASE_DEAL)
    play(game, BASE_TO_GOLD)
    assert engine.State.from_json(game.snapshot).decision == engine.PICK_GOLD
    offered = links(email_for(game, cid))
    assert set(offered) == {"Keep 1 gold", "Keep 2 gold", "Keep 3 gold"}
    response = csrf_post(Client(enforce_csrf_checks=True), offered["Keep 3 gold"])
    assert response.status_code == 200
    assert moves_of(game)[-1] == {"move": "pick-gold", "value": 3}

    steal = rigged(players, deal=SABOTEUR2_DEAL, ruleset="saboteur2")
    play(steal, SABOTEUR2_TO_STEAL)
    offered = links(email_for(steal, cid))
    assert set(offered) == {"Steal from Ann", "Steal nothing"}
    assert csrf_post(Client(enforce_csrf_checks=True), offered["Steal from Ann"]).status_code == 200
    assert moves_of(steal)[-1] == {"move": "steal", "victim": "0"}


@pytest.mark.parametrize("ruleset", ["base", "saboteur2"])
def test_round_end_emails_show_no_secret_of_another_seat(players, ruleset):
    """The gold picker's or thief's email, rebuilt from a twin state that differs in what they
    may not know (other seats' gold, hands, roles, the pile), is byte-identical."""
    deal, moves = {
        "base": (BASE_DEAL, BASE_TO_GOLD),
        "saboteur2": (SABOTEUR2_DEAL, SABOTEUR2_TO_STEAL),
    }[ruleset]
    game = rigged(players, deal=deal, ruleset=ruleset)
    play(game, moves)
    cid = players[2]
    with time_machine.travel(timezone.now(), tick=False):  # the links' signatures carry the time
        original = email_for(game, cid)
        state = engine.State.from_json(game.snapshot)
        for other in (0, 1):
            if ruleset == "base" or state.gold[other]:
                state.gold[other] += 5
        state.hands[0], state.hands[1] = state.hands[1], state.hands[0]
        state.roles[0], state.roles[1] = state.roles[1], state.roles[0]
        state.pile.reverse()
        Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())
        twin = email_for(game, cid)
    texts = lambda m: (m.subject, m.body, m.alternatives, m.inline_images)  # noqa: E731
    assert texts(twin) == texts(original)
    assert links(original)


def test_the_confirmation_page_shows_nothing_another_seat_would_hide(players):
    """Twin states differing in what Ann may not know render the same page for her link."""
    ann = players[0]
    game = rigged(players)
    offered = links(email_for(game, ann))
    client = Client()
    originals = {label: client.get(path).content for label, path in offered.items()}
    state = engine.State.from_json(game.snapshot)
    state.hands[1], state.hands[2] = state.hands[2], state.hands[1]
    state.roles[1], state.roles[2] = state.roles[2], state.roles[1]
    state.pile.reverse()
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())

    def normal(body):
        return re.sub(rb'(value="|nonce="|"X-CSRFToken": ")[^"]*', rb"\1", body)

    for label, path in offered.items():
        assert normal(client.get(path).content) == normal(originals[label]), label


# -- Races ----------------------------------------------------------------------------------


def race(game, ann, tokens) -> list[str]:
    """Tap ``tokens`` and make a move on the page, all at once; the answers."""
    results = []

    def tap(token):
        results.append(play_taps.tap_submit(token=token, viewer=AnonymousUser()).status)

    def page_move():
        try:
            move_submit(
                game_id=game.pk, user=ann, expected_version=0,
                move={"move": "pass", "discard": ["rockfall"]},
            )  # fmt: skip
            results.append("page")
        except StaleVersion:
            results.append("stale")

    at_once([*(partial(tap, token) for token in tokens), page_move], timeout=30)
    return results


@pytest.mark.django_db(transaction=True)
def test_simultaneous_taps_of_one_link_all_answer_done(players):
    """Issue 23: N POSTs of one link at once (each its own request and database connection)
    make one move, and every one of them answers "done" with the move that was made."""
    ann = players[0]
    taps = 8
    for attempt in range(3):
        game = rigged(players)
        path = links(email_for(game, ann))["Break Bob's lantern"]
        answers = []

        def tap(path=path, answers=answers):
            response = Client().post(path)
            done = "Your move is made." in response.content.decode()
            answers.append((response.status_code, done))

        at_once([tap] * taps)
        assert answers == [(200, True)] * taps, (attempt, answers)
        game.refresh_from_db()
        assert game.version == 1
        assert moves_of(game) == [{"move": "action", "card": "break-lantern", "target": "1"}]


def _tap_while_the_game_is_locked(game, path, change) -> tuple[int, str]:
    """POST ``path`` while this test holds the game's row lock, make ``change`` once the tap
    waits for that lock, then let it go: the tap's answer is the game as it is then."""
    answer = {}

    def tap():
        try:
            response = Client().post(path)
            answer["status"], answer["text"] = response.status_code, response.content.decode()
        finally:
            connection.close()

    thread = threading.Thread(target=tap)
    with transaction.atomic():
        lock_game(game.pk)
        thread.start()
        for _ in range(400):  # until the tap's connection waits for this one's lock
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_locks WHERE NOT granted "
                    "AND pg_backend_pid() = ANY(pg_blocking_pids(pid))"
                )
                if cursor.fetchone()[0]:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the tap never waited for the game's lock")
        change()
    thread.join(timeout=30)
    return answer["status"], answer["text"]


@pytest.mark.django_db(transaction=True)
def test_a_tap_is_judged_under_the_game_lock(players):
    """Issue 23: what the link may do is read under the game's row lock, in the move's own
    transaction: what changed while the tap queued for the lock counts (before, the checks ran
    unlocked and the move was made as if nothing had changed)."""
    ann = players[0]
    game = rigged(players)
    path = links(email_for(game, ann))["Look at the north goal"]

    def time_runs_out():
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    status, text = _tap_while_the_game_is_locked(game, path, time_runs_out)
    assert status == 410 and "This link has expired" in text
    game.refresh_from_db()
    assert game.version == 0 and not moves_of(game)

    game = rigged(players)
    path = links(email_for(game, ann))["Look at the north goal"]

    def turned_off():
        type(ann).objects.filter(pk=ann.pk).update(email_hand=False)

    status, text = _tap_while_the_game_is_locked(game, path, turned_off)
    assert status == 403 and "One-tap moves are turned off" in text
    game.refresh_from_db()
    assert game.version == 0 and not moves_of(game)


@pytest.mark.django_db(transaction=True)
def test_a_one_tap_move_racing_another_move_applies_exactly_one(players):
    ann = players[0]
    labels = ("Look at the north goal", "Look at the north goal", "Break Cid's lantern")
    for attempt in range(3):
        game = rigged(players)
        offered = links(email_for(game, ann))
        results = race(game, ann, [offered[label].split("/")[2] for label in labels])
        game.refresh_from_db()
        assert game.version == 1 and len(moves_of(game)) == 1, (attempt, results)
        applied = moves_of(game)[0]
        # A losing tap answers "moved": Ann herself made the decision (issue 22), and the page's
        # losing move is refused as stale.
        if applied["move"] == "pass":
            assert sorted(results) == ["moved", "moved", "moved", "page"]
        elif applied.get("goal") == "north":  # both taps of that link answer "done"
            assert sorted(results) == ["done", "done", "moved", "stale"]
        else:
            assert sorted(results) == ["done", "moved", "moved", "stale"]
