"""Every POST a page can send is rate-limited (issue 48; README, "Rate limits";
saboteur_site/ratelimits.py): one request too many is answered 429 with Retry-After, says in
the player's language when to try again, and changes nothing.

Each route of ``LIMITS`` is exercised for real over HTTP, against the real cache (Redis): a
sender posts as many requests as a window allows, then one that would change something (a
legal move, a new seed, a real message); that one is refused and the database is as it was;
once Retry-After has passed, the same request is taken. The clock is frozen (time-machine), so
every request falls in one window whatever the machine's speed.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from django.apps import apps
from django.core import mail
from django.test import Client
from django.test.utils import override_settings
from django.urls import resolve, reverse
from django.utils import translation

from accounts import devices, relations
from accounts.models import ApiToken, Block, PushSubscription
from accounts.tokens import token_create
from games import engine
from games.models import Challenge, Game, Report, TableWish
from games.outbox import links
from games.outbox.one_tap import tap_token
from games.play import challenges, lobby, matchmaking, vacations
from games.read import lists
from saboteur_site import ratelimits
from saboteur_site.ratelimits import LIMITS, Limit, wait_for, wait_message
from tests.players import PASSWORD, create_player
from tests.push_service import PushService
from tests.routes import walk_routes

pytestmark = pytest.mark.django_db

# Five seconds into a minute (and an hour): a minute's window ends in 55 s.
START = datetime(2026, 11, 2, 10, 0, 5, tzinfo=UTC)
HTMX = {"HX-Request": "true"}


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def database() -> dict[str, list[dict]]:
    """Every row of the site's own tables: what a refused request must leave as it was."""
    rows = {}
    for model in apps.get_models():
        if model._meta.app_label in {"games", "accounts", "account"}:
            rows[model._meta.label] = list(model.objects.order_by("pk").values())
    return rows


def state() -> dict[str, Any]:
    """The database, the emails sent and the lobby list's version (its live updates)."""
    return {"rows": database(), "emails": len(mail.outbox), "lobbies": lists.open_lobbies_version()}


def logged_in(user) -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(user)
    return client


@dataclass
class Case:
    """How to exercise one route: ``sent(i)`` is the i-th request of a full window (taken,
    or refused by the view, as may be); ``prepare`` then makes ``last`` a request that would
    change something; ``changed`` says (after the window) that it did."""

    client: Client
    url: str
    last: dict
    changed: Callable[[], bool]
    sent: Callable[[int], dict] = lambda i: {}
    prepare: Callable[[], None] = lambda: None
    headers: dict = field(default_factory=dict)
    json_body: bool = False

    def post(self, data: dict):
        if self.json_body:
            return self.client.post(
                self.url, json.dumps(data), content_type="application/json", headers=self.headers
            )
        return self.client.post(self.url, data, headers=self.headers)


class World:
    """Ann, Bob and Cid at a running table (Ann's lobby beside it, Bob seated), Dan outside."""

    def __init__(self):
        self.ann, self.bob, self.cid, self.dan = (
            create_player(name) for name in ("ann", "bob", "cid", "dan")
        )
        self.table = lobby.game_create(creator=self.ann, name="Table", ruleset="base", max_seats=4)
        for user in (self.bob, self.cid):
            lobby.seat_join(game_id=self.table.pk, user=user)
        self.table = lobby.game_start(game_id=self.table.pk, user=self.ann)
        self.lobby = lobby.game_create(creator=self.ann, name="Lobby", ruleset="base", max_seats=6)
        lobby.seat_join(game_id=self.lobby.pk, user=self.bob)

    def mover(self):
        """The seat to move at the table, its user, and a legal pass (engine and form)."""
        game = Game.objects.get(pk=self.table.pk)
        seat = game.seats.select_related("user").get(position=game.to_move)
        state = engine.State.from_json(game.snapshot)
        move = next(m for m in engine.legal_moves(state, seat.engine_name) if m["move"] == "pass")
        return game, seat, move

    def seat_of(self, game, user):
        return game.seats.get(user=user)


def refresh(obj):
    obj.refresh_from_db()
    return obj


# -- One case per route ------------------------------------------------------------------------


def case_move(w: World) -> Case:
    game, seat, move = w.mover()
    fields = {"version": game.version, "kind": "pass", "discard": ["0"]}
    return Case(
        logged_in(seat.user),
        reverse("move", args=[game.pk]),
        sent=lambda i: {"kind": "dig"},  # not a move: 422
        last=fields,
        changed=lambda: refresh(game).version == fields["version"] + 1,
    )


def case_one_tap(w: World) -> Case:
    game, seat, move = w.mover()
    version = game.version
    token = tap_token(
        user_id=seat.user_id, game_id=game.pk, seat_id=seat.pk, version=version, move=move
    )
    # Paused by the moderators: the link is refused; resumed, it makes its move.
    Game.objects.filter(pk=game.pk).update(status=Game.Status.PAUSED)
    return Case(
        Client(),  # a link of an email: no login needed
        reverse("one_tap", args=[token]),
        last={},
        prepare=lambda: Game.objects.filter(pk=game.pk).update(status=Game.Status.RUNNING),
        changed=lambda: Game.objects.get(pk=game.pk).version == version + 1,
    )


def case_chat(w: World) -> Case:
    game = w.table
    return Case(
        logged_in(w.ann),
        reverse("chat", args=[game.pk]),
        sent=lambda i: {"text": "  "},  # empty: refused, and not counted by the chat itself
        last={"text": "Who broke my lantern?"},
        changed=lambda: game.chat.filter(text="Who broke my lantern?").exists(),
        headers=HTMX,
    )


def case_mark(w: World) -> Case:
    game, bob = w.table, w.seat_of(w.table, w.bob).engine_name
    return Case(
        logged_in(w.ann),
        reverse("mark", args=[game.pk]),
        sent=lambda i: {"seat": bob, "mark": ("digger", "unsure")[i % 2]},
        last={"seat": bob, "mark": "saboteur"},
        changed=lambda: "saboteur" in json.dumps(w.seat_of(game, w.ann).marks),
        headers=HTMX,
    )


def case_note(w: World) -> Case:
    game = w.table
    return Case(
        logged_in(w.ann),
        reverse("note", args=[game.pk]),
        sent=lambda i: {"text": f"Bob is odd ({i})"},
        last={"text": "Bob is the saboteur"},
        changed=lambda: "Bob is the saboteur" in str(database()),
        headers=HTMX,
    )


def case_seed(w: World) -> Case:
    game = w.lobby
    return Case(
        logged_in(w.bob),
        reverse("seed", args=[game.pk]),
        sent=lambda i: {"seed": f"seed{i}"},
        last={"seed": "the-last-seed"},
        changed=lambda: w.seat_of(game, w.bob).seed == "the-last-seed",
    )


def case_join(w: World) -> Case:
    game = w.lobby
    return Case(
        logged_in(w.dan),
        reverse("join", args=[game.pk]),
        last={},
        # Dan joins at the first, then is told he is seated; he leaves.
        prepare=lambda: lobby.seat_leave(game_id=game.pk, user=w.dan),
        changed=lambda: game.seats.filter(user=w.dan).live().exists(),
    )


def case_invite_accept(w: World) -> Case:
    game = w.lobby
    return Case(
        logged_in(w.dan),
        reverse("invite_accept", args=[game.invite_token]),
        last={},
        prepare=lambda: lobby.seat_leave(game_id=game.pk, user=w.dan),
        changed=lambda: game.seats.filter(user=w.dan).live().exists(),
    )


def case_leave(w: World) -> Case:
    game = w.lobby
    return Case(
        logged_in(w.bob),
        reverse("leave", args=[game.pk]),
        last={},
        prepare=lambda: lobby.seat_join(game_id=game.pk, user=w.bob),
        changed=lambda: not game.seats.filter(user=w.bob).live().exists(),
    )


def case_start(w: World) -> Case:
    game = w.lobby  # two players: too few to start
    return Case(
        logged_in(w.ann),
        reverse("start", args=[game.pk]),
        last={},
        prepare=lambda: lobby.seat_join(game_id=game.pk, user=w.cid),
        changed=lambda: refresh(game).status == Game.Status.RUNNING,
    )


def case_invitation_create(w: World) -> Case:
    game = w.lobby
    return Case(
        logged_in(w.ann),
        reverse("invitation_create", args=[game.pk]),
        sent=lambda i: {"email": f"friend{i}@example.com"},  # each one sent
        last={"email": "last@example.com"},
        changed=lambda: game.invitations.filter(email="last@example.com").exists(),
    )


def case_rematch(w: World) -> Case:
    game = w.table  # not over yet: refused
    return Case(
        logged_in(w.ann),
        reverse("rematch", args=[game.pk]),
        last={},
        prepare=lambda: Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED),
        changed=lambda: game.rematches.exists(),
    )


def _creation(name: str) -> dict:
    return {"name": name, "ruleset": "base", "max_seats": 4, "visibility": "open"} | {
        "turn_limit": "86400"
    }


def case_game_create(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("game_create"),
        sent=lambda i: _creation(""),  # no name: 422
        last=_creation("Dan's mine"),
        changed=lambda: Game.objects.filter(name="Dan's mine").exists(),
    )


def case_practice_create(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("practice_create"),
        sent=lambda i: {"practice-ruleset": "base", "practice-bots": "99"},  # 422
        last={"practice-ruleset": "base", "practice-bots": "2", "practice-rounds": "1"},
        changed=lambda: Game.objects.filter(creator=w.dan, practice=True).exists(),
    )


PLAY_NOW = {"rulesets": ["base"], "min_players": "3", "max_players": "5", "pace": "2d",
            "languages": ["en"]}  # fmt: skip


def _wish():
    return matchmaking.Wish(
        rulesets=("base",), min_players=3, max_players=5, pace="2d", languages=("en",)
    )


def case_play_now(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("play_now"),
        sent=lambda i: {**PLAY_NOW, "min_players": "1"},  # 422
        last=PLAY_NOW,
        changed=lambda: TableWish.objects.filter(user=w.dan, waiting=True).exists(),
    )


def case_play_leave(w: World) -> Case:
    table = matchmaking.seek(user=w.cid, wish=_wish()).table  # Cid stays: the table forms on
    matchmaking.seek(user=w.dan, wish=_wish())
    return Case(
        logged_in(w.dan),
        reverse("play_leave", args=[table.pk]),
        last={},
        # Dan leaves at the first, then is told he does not wait there; he asks again.
        prepare=lambda: matchmaking.seek(user=w.dan, wish=_wish()),
        changed=lambda: not TableWish.objects.filter(user=w.dan, waiting=True).exists(),
    )


def case_follow(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("follow", args=[w.ann.pk]),
        last={},
        prepare=lambda: relations.unfollow(w.dan, w.ann),
        changed=lambda: relations.follows(w.dan, w.ann),
    )


def case_unfollow(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("unfollow", args=[w.ann.pk]),
        last={},
        prepare=lambda: relations.follow(w.dan, w.ann),
        changed=lambda: not relations.follows(w.dan, w.ann),
    )


def case_follower_remove(w: World) -> Case:
    return Case(
        logged_in(w.ann),
        reverse("follower_remove", args=[w.dan.pk]),
        last={},
        prepare=lambda: relations.follow(w.dan, w.ann),
        changed=lambda: not relations.follows(w.dan, w.ann),
    )


def _friends(user, *others):
    for other in others:
        relations.follow(user, other)
        relations.follow(other, user)


def case_challenge_create(w: World) -> Case:
    _friends(w.dan, w.bob, w.cid)
    fields = {"friends": [str(w.bob.pk), str(w.cid.pk)], "ruleset": "base", "pace": "2d",
              "rounds": "3"}  # fmt: skip
    return Case(
        logged_in(w.dan),
        reverse("challenge_create"),
        sent=lambda i: {**fields, "pace": "never"},  # 422
        last=fields,
        changed=lambda: Challenge.objects.filter(challenger=w.dan).exists(),
    )


def case_challenge(w: World) -> Case:
    _friends(w.dan, w.bob, w.cid)
    game = challenges.challenge_send(
        challenger=w.dan, friends=[w.bob.pk, w.cid.pk], ruleset="base", pace="2d"
    )
    challenge = Challenge.objects.get(game=game, challenged=w.bob)
    return Case(
        logged_in(w.bob),
        reverse("challenge", args=[challenge.token]),
        sent=lambda i: {"answer": "maybe"},  # neither: nothing changes
        last={"answer": "accept"},
        changed=lambda: refresh(challenge).state == Challenge.State.ACCEPTED,
    )


def case_vacation(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("vacation"),
        sent=lambda i: {"days": "0"},  # 422
        last={"days": "3"},
        changed=lambda: w.dan.vacations.exists(),
    )


def case_vacation_end(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("vacation_end"),  # no vacation to end: refused
        last={},
        prepare=lambda: vacations.vacation_declare(user=w.dan, days=3),
        changed=lambda: w.dan.vacations.filter(ended_at__isnull=False).exists(),
    )


def _profile(user, **changes) -> dict:
    data = {"display_name": user.display_name, "language": user.language}
    data |= {"time_zone": user.time_zone, "quiet_from": "", "quiet_until": ""}
    return data | changes


def case_profile(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("profile"),
        sent=lambda i: _profile(w.dan, time_zone="Mars/Olympus"),  # 422
        last=_profile(w.dan, display_name="Daniel"),
        changed=lambda: refresh(w.dan).display_name == "Daniel",
    )


def case_account_delete(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("account_delete"),
        sent=lambda i: {"password": f"guess-{i}"},
        last={"password": PASSWORD},
        changed=lambda: not type(w.dan).objects.filter(email="dan@example.com").exists(),
    )


def case_guide_dismiss(w: World) -> Case:
    def again():
        w.ann.guide_dismissed = False
        w.ann.save(update_fields=["guide_dismissed"])

    return Case(
        logged_in(w.ann),
        reverse("guide_dismiss"),
        last={},
        prepare=again,
        changed=lambda: refresh(w.ann).guide_dismissed,
        headers=HTMX,
    )


def case_push_subscribe(w: World) -> Case:
    with PushService() as service:
        good = service.subscribe().json()
    return Case(
        logged_in(w.dan),
        reverse("push_subscribe"),
        sent=lambda i: {"endpoint": "javascript:alert(1)"},  # 400
        last=good,
        changed=lambda: PushSubscription.objects.filter(user=w.dan).exists(),
        json_body=True,
    )


def case_device_remove(w: World) -> Case:
    with PushService() as service:
        good = service.subscribe().json()
    device = devices.device_subscribe(user=w.dan, subscription=good)
    client = logged_in(w.dan)
    case = Case(
        client,
        reverse("device_remove", args=[device.pk + 1000]),  # not a device: 404
        last={},
        changed=lambda: not PushSubscription.objects.filter(pk=device.pk).exists(),
    )

    def aim():
        case.url = reverse("device_remove", args=[device.pk])

    case.prepare = aim
    return case


def case_set_language(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("set_language"),
        sent=lambda i: {"language": "xx", "next": "/"},  # not a language: nothing set
        last={"language": "cs", "next": "/"},
        changed=lambda: refresh(w.dan).language == "cs",
    )


def case_unsubscribe(w: World) -> Case:
    def subscribe_again():
        w.dan.email_turns = True
        w.dan.save(update_fields=["email_turns"])

    return Case(
        Client(),  # posted by a mail service, without cookies
        reverse("unsubscribe", args=[links.unsubscribe_token(w.dan, "turns")]),
        last={},
        prepare=subscribe_again,
        changed=lambda: not refresh(w.dan).email_turns,
    )


def case_block(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("block", args=[w.ann.pk]),
        last={},
        prepare=lambda: Block.objects.all().delete(),  # the window's blocks, undone
        changed=lambda: Block.objects.filter(blocker=w.dan, blocked=w.ann).exists(),
    )


def case_unblock(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("unblock", args=[w.ann.pk]),  # nothing to unblock yet
        last={},
        prepare=lambda: Block.objects.create(blocker=w.dan, blocked=w.ann),
        changed=lambda: not Block.objects.filter(blocker=w.dan, blocked=w.ann).exists(),
    )


def case_report(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("report", args=["player", w.ann.pk]),
        sent=lambda i: {"reason": "not-a-reason"},  # refused by the form: nothing stored
        last={"reason": "abuse", "text": "Rude"},
        changed=lambda: Report.objects.filter(reporter=w.dan).exists(),
    )


def case_api_tokens(w: World) -> Case:
    return Case(
        logged_in(w.dan),
        reverse("api_tokens"),
        sent=lambda i: {"name": "", "scopes": ["read"]},  # no name: refused, nothing made
        last={"name": "my bot", "scopes": ["read"]},
        changed=lambda: ApiToken.objects.filter(user=w.dan).exists(),
    )


def case_api_token_revoke(w: World) -> Case:
    token, _text = token_create(user=w.dan, name="t", scopes=["read"])
    case = Case(
        logged_in(w.dan),
        reverse("api_token_revoke", args=[token.pk + 1000]),  # not a token: 404
        last={},
        changed=lambda: refresh(token).revoked_at is not None,
    )

    def aim():
        case.url = reverse("api_token_revoke", args=[token.pk])

    case.prepare = aim
    return case


def case_bot_account(w: World) -> Case:
    eve = create_player("eve")
    lobby.seat_join(game_id=w.lobby.pk, user=eve)  # has sat at a table: refused

    return Case(
        logged_in(eve),
        reverse("bot_account"),
        last={},
        prepare=lambda: lobby.seat_leave(game_id=w.lobby.pk, user=eve),
        changed=lambda: refresh(eve).is_bot,
    )


CASES: dict[str, Callable[[World], Case]] = {
    name.removeprefix("case_"): value for name, value in globals().items() if name[:5] == "case_"
}


def test_every_limited_route_has_a_case():
    assert sorted(CASES) == sorted(LIMITS)


@pytest.mark.parametrize("route", sorted(LIMITS))
def test_one_request_too_many_is_refused_and_changes_nothing(route, clock):
    world = World()
    case = CASES[route](world)
    count, _period = LIMITS[route].windows()[0]
    for i in range(count):
        response = case.post(case.sent(i))
        assert response.status_code != 429, (i, response.content.decode()[:300])
    case.prepare()
    assert not case.changed()
    before = state()

    refused = case.post(case.last)

    assert refused.status_code == 429
    assert refused["Retry-After"] == "55"  # the minute's window ends at 10:01:00
    text = refused.content.decode()
    assert "try again in 55 seconds" in (json.loads(text)["error"] if case.json_body else text)
    assert state() == before
    assert not case.changed()

    clock.shift(55)
    taken = case.post(case.last)
    assert taken.status_code != 429
    assert case.changed(), taken.content.decode()[:500]


# -- Every POST route of the site is in the table ------------------------------------------------

# Routes that take POSTs and are not the site's to limit (saboteur_site/ratelimits.py says why):
# allauth's own (its ACCOUNT_RATE_LIMITS), the admin's (staff only), the mail webhooks.
NOT_OURS = ("allauth.", "games.web.inbound")


def test_every_route_that_takes_a_post_counts_in_the_table(clock):
    """A new POST route without a limit fails here: each route of the URL resolver either
    counts its POSTs under its own name in ``LIMITS``, or answers a POST 405."""
    world = World()
    values = {"pk": world.lobby.pk, "token": world.lobby.invite_token, "number": 0}
    client = logged_in(world.ann)
    unlimited, checked = [], 0
    for route in walk_routes(values):
        match = resolve(route.url)
        if route.module.startswith(NOT_OURS) or route.text.startswith("admin/"):
            continue
        if route.text.startswith("api/"):
            continue  # the public API counts per token (games/web/api/site.py, test_api.py)
        name = getattr(match.func, "rate_limit", None)
        if name is not None:
            assert name == match.url_name, f"{route.text} counts as {name!r}"
            checked += 1
        elif client.post(route.url).status_code != 405:
            unlimited.append(route.text)
    assert not unlimited, f"POST routes without a rate limit: {unlimited}"
    assert checked == len(LIMITS)


# -- What a refusal leaves, and what it says ------------------------------------------------------


def test_a_refused_seed_save_bumps_no_revision_and_tells_no_open_page(
    clock, django_capture_on_commit_callbacks
):
    """The hostile probe's 40 seed saves in 3 s were 40 live updates to every open lobby page."""
    world = World()
    bob, url = logged_in(world.bob), reverse("seed", args=[world.lobby.pk])
    revision = refresh(world.lobby).revision
    for i in range(10):
        with django_capture_on_commit_callbacks() as told:
            assert bob.post(url, {"seed": f"seed{i}"}).status_code == 302
        assert told  # each saved seed: a live update to the lobby's pages
    assert refresh(world.lobby).revision == revision + 10
    with django_capture_on_commit_callbacks() as told:
        refused = bob.post(url, {"seed": "seed-of-too-many"})
    assert refused.status_code == 429
    assert told == []  # no live update, no email: nothing after a commit
    assert refresh(world.lobby).revision == revision + 10
    assert world.seat_of(world.lobby, world.bob).seed == "seed9"
    assert wait_message(55) in refused.content.decode()  # the lobby's page says when


def _over_the_limit(case: Case, route: str):
    for i in range(LIMITS[route].windows()[0][0]):
        assert case.post(case.sent(i)).status_code != 429
    return case.post(case.last)


def test_htmx_gets_the_part_it_asked_for_with_the_message(clock):
    world = World()
    refused = _over_the_limit(case_mark(world), "mark")
    body = refused.content.decode()
    assert refused.status_code == 429
    assert body.startswith('<div id="play"') or 'id="play"' in body[:300]
    assert "<html" not in body  # the play area only: htmx swaps it in (429 swaps: base.html)
    assert wait_message(55) in body

    refused = _over_the_limit(case_note(world), "note")
    assert refused.content.decode() == (
        f'<span class="error">{wait_message(55)}</span>'
    )  # beside the note's button; the box with the note is not touched

    refused = _over_the_limit(case_chat(world), "chat")
    assert 'data-testid="chat-error"' in refused.content.decode()  # under the message box


def test_a_refused_form_comes_back_as_it_was_typed(clock):
    world = World()
    refused = _over_the_limit(case_game_create(world), "game_create")
    body = refused.content.decode()
    assert refused.status_code == 429
    assert 'value="Dan\'s mine"' in html.unescape(body) and wait_message(55) in body

    refused = _over_the_limit(case_profile(world), "profile")
    assert 'value="Daniel"' in refused.content.decode()

    refused = _over_the_limit(case_push_subscribe(world), "push_subscribe")
    assert refused.json() == {"error": wait_message(55)}  # the page's script shows it


def test_the_refusal_speaks_the_players_language(clock):
    world = World()
    world.bob.language = "uk"
    world.bob.save(update_fields=["language"])
    refused = _over_the_limit(case_seed(world), "seed")
    with translation.override("uk"):
        assert wait_message(55) in refused.content.decode()
    assert refused["Content-Language"] == "uk"

    # An email's link, opened without logging in: its page speaks the player's language.
    seat = world.mover()[1]
    seat.user.language = "ro"
    seat.user.save(update_fields=["language"])
    refused = _over_the_limit(case_one_tap(world), "one_tap")
    with translation.override("ro"):
        assert wait_message(55) in refused.content.decode()
    assert refused["Content-Language"] == "ro"


# -- The counters ---------------------------------------------------------------------------------


def test_each_rate_of_a_route_counts_and_refusals_do_not(monkeypatch):
    monkeypatch.setitem(LIMITS, "seed", Limit("2/m,3/h"))
    start = START.timestamp()
    assert [wait_for("seed", "u1", now=start) for _ in range(2)] == [0, 0]
    # Hammering while refused does not push the next window back.
    assert {wait_for("seed", "u1", now=start + s / 100) for s in range(100)} == {55}
    assert wait_for("seed", "u2", now=start) == 0  # each sender has their own
    assert wait_for("seed", "u1", now=start + 55) == 0  # a new minute: the hour's third
    hour_left = 3600 - 5 - 55
    assert wait_for("seed", "u1", now=start + 55) == hour_left
    assert "try again in 59 minutes" in wait_message(hour_left)  # minutes beyond two
    assert wait_for("seed", "u1", now=start + 3595) == 0  # the next hour


def test_with_redis_away_the_limits_count_nothing(settings):
    """As allauth's limits (saboteur_site/cache.py): a Redis restart must not refuse the site."""
    if not settings.CACHES["default"]["BACKEND"].endswith("RedisCache"):
        pytest.skip("the cache is not Redis")
    caches = {**settings.CACHES, "default": {**settings.CACHES["default"]}}
    caches["default"]["LOCATION"] = "redis://127.0.0.1:1/0"  # nothing listens there
    with override_settings(CACHES=caches):
        assert {wait_for("seed", "u1") for _ in range(20)} == {0}


def test_every_limit_reads_as_rates():
    for route, limit in LIMITS.items():
        assert limit.per in {"user", "token"}, route
        assert all(count > 0 and period >= 60 for count, period in limit.windows()), route


def test_no_limit_is_named_twice_or_for_a_route_that_does_not_exist():
    for route in LIMITS:
        reverse(route, kwargs=_kwargs_of(route))
    with pytest.raises(KeyError):
        ratelimits.rate_limited("no-such-route")


def _kwargs_of(route: str) -> dict:
    for pattern in walk_routes({"pk": 1, "token": "t", "number": 0}):
        match = resolve(pattern.url)
        if match.url_name == route and not match.namespace:  # the API's names are its own
            return match.kwargs
    raise AssertionError(f"{route} is not a route")
