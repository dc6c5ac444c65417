"""Leak tests for the web layer (docs/rules.md 8; docs/architecture.md, "Secrets"). No browser.

1. A route walker lists every URL pattern of the root resolver (includes, allauth, admin, i18n), so
   a route added later is requested too, as every seat, an outsider, anonymous and a superuser.
2. Random games of both rule sets are played through ``services.move_submit``; at several
   checkpoints (start, mid-round, a gold pick or steal decision, after a round ends, game end):
   - no round seed that is not yet public appears in any body, header or cookie;
   - in round 1, the name of a role held by exactly one other seat appears nowhere the viewer
     looks unless the viewer knows it;
   - structurally: a twin snapshot differing only in what the viewer may not know (other hands,
     pile order, discards, other roles, set-aside cards, unpeeked goals, other gold, offers, later
     seeds, other seats' peeks) renders byte-identical responses for that viewer.
3. Templates of game pages and partials get the per-seat view, never a ``Game``, ``Seat``, engine
   ``State`` or the raw snapshot.
4. Error pages (404, and 405 for GET on POST-only routes) are part of the walk.
5. Push payloads (games/outbox/push.py) of every notice a seated viewer has about the game, and of
   their current "your turn", go through the same token and twin checks as the pages
   (``push:`` pseudo-URLs below).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core import signing
from django.core.cache import caches
from django.test import Client
from django.test.utils import ContextList
from django.urls import get_resolver
from django.utils import timezone

from accounts import relations
from accounts.tokens import scopes_for, token_create
from games import engine
from games.engine.cards import GOLD_DIGGER, ROLES
from games.models import ChatMessage, ChatMute, Game, Invitation, Move, Notice, Report, Seat
from games.moderation.reports import report_create
from games.outbox import one_tap, push
from games.play import matchmaking
from games.play.chat import chat_post
from games.play.lobby import game_create, game_start, seat_join
from games.play.matchmaking import Wish
from games.play.moves import move_submit
from games.read import lists, ratings
from games.read.card_names import role_name
from tests.routes import Route, _patterns, walk_routes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _health_answers_at_once(settings):
    """The walks ask /health/ many times with no worker of theirs to answer: each ask waited a
    whole second for Celery's replies. Whatever its answer, the walk reads only what it shows."""
    settings.HEALTH_CELERY_SECONDS = 0.05
    # Each viewer asks the API's streams again for every twin: far beyond what one token may
    # open in a minute (games/web/api/site.py), whose 429 would hide what a twin shows.
    settings.RATE_LIMITS_SCALE = 1000


HTMX = {"HX-Request": "true"}
NAMES = ("ann", "bob", "cid", "dan", "eve", "fay")


def test_the_walker_sees_every_route_including_includes(players):
    game = start_game(players)
    routes = walk_routes(route_values(game, players[0]))
    urls = {r.url for r in routes}
    assert f"/games/{game.pk}/" in urls and f"/games/{game.pk}/poll/" in urls
    assert f"/invite/{game.invite_token}/join/" in urls
    assert "/accounts/login/" in urls and "/accounts/confirm-email/dummy-key/" in urls
    assert "/admin/" in urls and "/admin/auth/" in urls and "/i18n/setlang/" in urls
    patterns = {"".join(str(p) for p in pieces) for pieces, _ in _patterns(get_resolver())}
    assert len(routes) == len(patterns)


# -- Games, viewers and requests -------------------------------------------------------------


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in NAMES]


@pytest.fixture
def outsider(make_user):
    return make_user("otto")


@pytest.fixture
def staff(make_user):
    user = make_user("root")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


def start_game(players, *, count=4, ruleset="base", rounds=3, rng=None):
    """A game started through the services; with ``rng``, dealt again from seeds drawn from it
    (the same 32 hex digits as real seeds), so that the random game below is reproducible."""
    game = game_create(
        creator=players[0], name="Deep mine", ruleset=ruleset, max_seats=count, rounds=rounds
    )
    for user in players[1:count]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=players[0])
    if rng is not None:
        config = engine.State.from_json(game.snapshot).config
        state = engine.new_game(
            ruleset=config.ruleset,
            seats=config.seats,
            variants=config.variants,
            rounds=config.rounds,
            round_seeds=[f"{rng.getrandbits(128):032x}" for _ in range(config.rounds)],
        )
        put_snapshot(game, state)
        game.refresh_from_db()
    return game


def route_values(game, user) -> dict:
    ct = ContentType.objects.get_for_model(type(user))
    return {
        "pk": game.pk,
        "game_id": game.pk,  # the API's routes (games/web/api/)
        "token": game.invite_token,
        "key": "dummy-key",
        "uidb36": "1",
        "id": user.pk,
        "object_id": user.pk,
        "content_type_id": ct.pk,
        "url": "no-such-page/",
    }


def state_of(game) -> engine.State:
    game.refresh_from_db()
    return engine.State.from_json(game.snapshot)


@dataclass
class Viewer:
    label: str
    client: Client
    seat: int | None = None  # the engine seat index, None for anyone not seated
    user: object = None


def logged_in(user) -> Client:
    """A client logged in as ``user``, whose every request also carries an API token of theirs
    with every scope (issue 54): the walk asks the API's routes as it asks the pages."""
    client = Client()
    client.force_login(user)
    _token, text = token_create(user=user, name="walk", scopes=scopes_for(user))
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {text}"
    return client


def viewers_for(game, outsider, staff) -> list[Viewer]:
    viewers = []
    for seat in game.seats.select_related("user").order_by("position"):
        client = logged_in(seat.user)
        viewers.append(Viewer(f"seat {seat.position}", client, seat.position, seat.user))
    for label, user in (("outsider", outsider), ("staff", staff)):
        client = logged_in(user)
        viewers.append(Viewer(label, client, None, user))
    viewers.append(Viewer("anonymous", Client()))
    return viewers


@dataclass
class Fetched:
    url: str
    hx: bool
    status: int
    text: str  # body, headers and cookies
    contexts: list = field(default_factory=list)


def fetch(client: Client, url: str, *, hx: bool = False) -> Fetched:
    if url.startswith("push:"):
        return fetch_push(url)
    response = client.get(url, headers=HTMX if hx else {})
    if response.streaming:
        body = b"".join(response.streaming_content)
    else:
        body = response.content
    headers = "\n".join(f"{k}: {v}" for k, v in sorted(response.items()))
    text = f"{body.decode(errors='replace')}\n--headers--\n{headers}\n--cookies--\n"
    text += response.cookies.output()
    contexts = response.context
    if contexts is None:
        contexts = []
    elif not isinstance(contexts, ContextList):
        contexts = [contexts]
    return Fetched(url, hx, response.status_code, text, contexts)


def fetch_push(url: str) -> Fetched:
    """``push:<user>:<game>``: the push payloads of the user's notices about the game, and of a
    "your turn" for their seat as it is now. A one-tap link's signature carries the time it was
    made: it is replaced by what it signs (the move, the version), so twins compare equal."""
    _scheme, user_pk, game_pk = url.split(":")
    user = get_user_model().objects.get(pk=user_pk)
    game = Game.objects.get(pk=game_pk)
    notices = list(
        Notice.objects.filter(game=game, user=user, kind__in=push.PUSHED_KINDS)
        .select_related("user", "game", "seat")
        .order_by("pk")
    )
    seat = game.seats.live().filter(user=user).first()
    if seat is not None:
        probe = Notice(kind=Notice.Kind.TURN, user=user, game=game, seat=seat, data={})
        notices.append(probe)
    payloads = []
    for notice in notices:
        payload = push.payload(notice)
        for action in payload["actions"]:
            token = action["url"].rstrip("/").rsplit("/", 1)[-1]
            action["url"] = signing.loads(token, salt=one_tap.SALT)
        payloads.append(payload)
    return Fetched(url, False, 200, json.dumps(payloads, ensure_ascii=False, sort_keys=True))


def requests_for(routes: list[Route], viewer: Viewer, state: engine.State, game) -> list:
    """(url, hx, gate) triples: every route as a plain GET; a route of a game that answers that
    GET with 200 also as each htmx partial, with ``v=-1`` (a poll that must answer in full);
    ``gate`` is the plain URL. The seat to move also with selected hand cards; a missing game."""
    pairs = []
    for route in routes:
        pairs.append((route.url, False, None))
        if "pk" in route.kwargs:
            for query in ("?part=play&v=-1", "?part=chat&v=-1"):
                pairs.append((route.url + query, True, route.url))
    game_url = f"/games/{game.pk}/"
    if viewer.seat is not None and state.to_move == viewer.seat and not state.finished:
        legal = engine.legal_moves(state, state.seats[viewer.seat])
        cards = sorted({m["card"] for m in legal if m["move"] in ("place", "action")})
        for card in cards[:4]:
            pairs.append((f"{game_url}?part=play&card={card}&turned=1", True, None))
            pairs.append((f"{game_url}?card={card}", False, None))
    # Every round's deal document and check page (the walker's dummy asks for round 1 only).
    for number in range(state.config.rounds + 1):
        pairs.append((f"{game_url}deals/{number}/", False, None))
        pairs.append((f"{game_url}deals/{number}.json", False, None))
        pairs.append((f"/api/v1/games/{game.pk}/deals/{number}", False, None))
    pairs.append((f"/api/v1/games/{game.pk}/log?since=0", False, None))
    pairs.append(("/api/v1/games?finished=true", False, None))
    # Replay steps before the latest one (the walker requests the latest): the deal and mid-way.
    for step in sorted({0, state.version // 2}):
        pairs.append((f"{game_url}replay/?step={step}", False, None))
    if viewer.user is not None and viewer.seat is not None:
        pairs.append((f"push:{viewer.user.pk}:{game.pk}", False, None))
    # Community safety (issue 53): reporting the game and each of its chat lines, one's reports
    # and one's data; for the staff, the moderators' queue and each report's page.
    pairs.append((f"/report/game/{game.pk}/", False, None))
    for line in ChatMessage.objects.filter(game=game).order_by("pk"):
        pairs.append((f"/report/message/{line.pk}/", False, None))
    pairs += [("/reports/", False, None), ("/accounts/data/", False, None)]
    if viewer.label == "staff":
        pairs.append(("/admin/games/report/", False, None))
        for report in Report.objects.filter(game=game).order_by("pk"):
            pairs.append((f"/admin/games/report/{report.pk}/change/", False, None))
    pairs.append(("/no-such-page/", False, None))
    pairs.append((f"/games/{game.pk + 10**6}/", False, None))
    pairs.append((f"/games/{game.pk + 10**6}/poll/?v=-1", True, None))
    return pairs


def game_routes(routes: list[Route]) -> list[Route]:
    """The routes that can show anything about a game: the games app's own, and any route that
    takes a game's pk or invite token."""
    return [
        r
        for r in routes
        if r.module.startswith("games.") or r.kwargs & {"pk", "token"} or r.url.startswith("/api/")
    ]


# -- Secrets as tokens ------------------------------------------------------------------------


def secret_tokens(game, state: engine.State, viewer: Viewer) -> dict[str, str]:
    """Strings this viewer may not see now: seeds of rounds not yet over, and in round 1 the names
    of roles held by exactly one other seat that the viewer has not learnt."""
    tokens = {
        f"seed of round {i + 1}": seed
        for i, seed in enumerate(state.config.round_seeds)
        if i >= len(state.rounds_done)
    }
    # The site's committed seeds (issue 39): a round's secret until it ends, round 0's (the
    # seating, the gold supply) and the gold seed until the game is over.
    for number, seed in enumerate(game.server_seeds):
        if number > len(state.rounds_done) or (number == 0 and not state.finished):
            tokens[f"server seed {number}"] = seed
    if not state.finished:
        tokens["gold seed"] = state.config.gold_seed
    if state.round != 1 or state.rounds_done or state.decision != engine.TURN:
        return tokens
    me = viewer.seat
    known = set()
    if me is not None:
        name = state.seats[me]
        known = {state.roles[me], *state.inspections[me].values()}
        for events in game.moves.values_list("events", flat=True):
            known |= {e["role"] for e in events if e.get("to") == name and "role" in e}
    chrome = " ".join(str(label) for label in Game.Ruleset.labels) + " Saboteur"
    for role in ROLES[state.ruleset]:
        holders = [i for i, r in enumerate(state.roles) if r == role]
        word = role_name(role)
        if len(holders) == 1 and holders[0] != me and role not in known:
            if not re.search(rf"\b{re.escape(word)}\b", chrome):
                tokens[f"role {role} of seat {holders[0]}"] = word
    return tokens


# Pages of fixed text, the same for every viewer and game: the rules page names every role and
# card (tests/web/test_learn.py checks that it depends on no game).
FIXED_TEXT = ("/rules/",)


def assert_no_tokens(fetched: list[Fetched], tokens: dict[str, str], viewer: Viewer, where: str):
    for item in fetched:
        if item.url.split("?")[0] in FIXED_TEXT:
            continue
        for label, token in tokens.items():
            pattern = re.escape(token) if len(token) > 20 else rf"\b{re.escape(token)}\b"
            assert not re.search(pattern, item.text), (
                f"{label} ({token!r}) shown to {viewer.label} at {where}: GET {item.url} "
                f"(htmx={item.hx}, status {item.status})"
            )


# -- Templates see only the view --------------------------------------------------------------

FORBIDDEN_TYPES = (Game, Seat, Move, ChatMessage, Invitation, engine.State, engine.Config)


def forbidden_in(value, snapshot: dict, walked: dict, depth: int = 0):
    """Where a Game/Seat/State object or a snapshot-like dict is inside ``value``: (the keys on
    the way, what was found), or None. Only plain containers and dataclasses are entered
    (``type()``, so lazy objects stay lazy), to a depth of 12.

    ``walked`` holds the containers already entered (id: the object, kept alive so that no id is
    reused, and the depth it was entered at): the templates of one response, and the responses of
    one viewer, share most of their objects, and each is walked once unless it is met again nearer
    the top (where the depth limit lets the walk go further below it)."""
    kind = type(value)
    if issubclass(kind, FORBIDDEN_TYPES):
        return [], kind.__name__
    if depth > 12:
        return None
    entered = walked.get(id(value))
    if entered is not None and entered[1] <= depth:
        return None
    if kind is dict:
        if value == snapshot or {"hands", "pile"} <= value.keys() or "round_seeds" in value:
            return [], "the snapshot"
        items = value.items()
    elif kind in (list, tuple, set, frozenset):
        items = enumerate(value)
    elif dataclasses.is_dataclass(kind):
        items = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    else:
        return None
    walked[id(value)] = (value, depth)
    for key, item in items:
        found = forbidden_in(item, snapshot, walked, depth + 1)
        if found is not None:
            return [key, *found[0]], found[1]
    return None


def assert_templates_see_only_views(fetched: list[Fetched], snapshot: dict):
    walked: dict = {}
    for item in fetched:
        for context in item.contexts:
            found = forbidden_in(context.flatten(), snapshot, walked)
            if found is not None:
                where = ".".join(["context", *map(str, found[0])])
                raise AssertionError(f"GET {item.url} (htmx={item.hx}) renders {where}: {found[1]}")


# -- Twins: the structural test ---------------------------------------------------------------


def _others(state, me):
    return [i for i in range(len(state.seats)) if i != me]


def _round_running(state):
    return not state.finished and state.decision == engine.TURN


def _swap_with_pile(cards: list[str], state, rng) -> bool:
    """One card of ``cards`` exchanged with a different card of the pile."""
    for a in rng.sample(range(len(cards)), len(cards)):
        spots = [b for b, other in enumerate(state.pile) if other != cards[a]]
        if spots:
            b = rng.choice(spots)
            cards[a], state.pile[b] = state.pile[b], cards[a]
            return True
    return False


def edit_hands(state, me, rng):
    """In every other hand, a card exchanged with a different card of the pile."""
    return any([_swap_with_pile(state.hands[i], state, rng) for i in _others(state, me)])


def edit_pile(state, me, rng):
    if len(set(state.pile)) < 2:
        return False
    before = list(state.pile)
    while state.pile == before:
        rng.shuffle(state.pile)
    return True


def edit_discards(state, me, rng):
    """Face-down discards and the cards removed unseen: one each exchanged with the pile."""
    return any([_swap_with_pile(cards, state, rng) for cards in (state.discard, state.removed)])


def edit_roles(state, me, rng):
    """The other seats' roles rotated among them (the greedy dwarf stays a gold digger)."""
    seats = _others(state, me)
    roles = [state.roles[i] for i in seats]
    if not _round_running(state) or len(set(roles)) < 2:
        return False
    for i, role in zip(seats, roles[1:] + roles[:1], strict=True):
        state.roles[i] = role
    if state.greedy is not None and state.greedy != me:
        diggers = [i for i in seats if state.roles[i] == GOLD_DIGGER]
        state.greedy = diggers[0] if diggers else None
    return True


def edit_set_aside(state, me, rng):
    """The set-aside dwarf cards reversed, and one exchanged with another seat's role."""
    if not _round_running(state) or not (state.set_aside or state.role_discards):
        return False
    changed = False
    for pool in (state.set_aside, state.role_discards):
        if len(set(pool)) > 1:
            pool.reverse()
            changed = True
        for a, role in enumerate(pool):
            for i in _others(state, me):
                if state.roles[i] != role and state.greedy != i:
                    pool[a], state.roles[i] = state.roles[i], role
                    return True
    return changed


def edit_goals(state, me, rng):
    """The face-down goals the viewer has not peeked at: their cards rotated."""
    if not _round_running(state):
        return False
    seen = state.peeks[me] if me is not None else {}
    names = [n for n, pos in state.goals.items() if state.board[pos].face_down and n not in seen]
    cards = [state.board[state.goals[n]].card for n in names]
    if len(set(cards)) < 2:
        return False
    for n, card in zip(names, cards[1:] + cards[:1], strict=True):
        state.board[state.goals[n]].card = card
    for peeks in state.peeks:  # the other seats' maps stay truthful
        for n in names:
            if n in peeks:
                peeks[n] = state.board[state.goals[n]].card
    return True


def edit_gold(state, me, rng):
    """Other seats' gold: secret in base, only zero/non-zero public in saboteur2."""
    if state.finished:
        return False
    for i in _others(state, me):
        if state.ruleset == "base":
            state.gold[i] += 7
        elif state.gold[i] > 0:
            state.gold[i] += 5
    return True


def edit_offer(state, me, rng):
    """The gold cards offered to another picker (only their count is public)."""
    if state.decision != engine.PICK_GOLD or state.to_move == me or not state.offer:
        return False
    state.offer = [1 if v != 1 else 3 for v in state.offer]
    return True


def edit_knowledge(state, me, rng):
    """Other seats' peeks and inspections."""
    for i in _others(state, me):
        state.peeks[i] = {name: "gold" for name in state.goals}
        state.inspections[i] = {s: "saboteur" for s in state.seats}
    return bool(_others(state, me))


def edit_later_seeds(state, me, rng):
    seeds = list(state.config.round_seeds)
    if len(seeds) <= state.round:
        return False
    seeds[state.round :] = [f"{rng.getrandbits(128):032x}" for _ in seeds[state.round :]]
    state.config = dataclasses.replace(state.config, round_seeds=seeds)
    return True


EDITS = (
    edit_hands,
    edit_pile,
    edit_discards,
    edit_roles,
    edit_set_aside,
    edit_goals,
    edit_gold,
    edit_offer,
    edit_knowledge,
    edit_later_seeds,
)

NORMALISE = (
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1"),
    (re.compile(r'("X-CSRFToken": ")[^"]*'), r"\1"),
    (re.compile(r'(nonce=")[^"]*'), r"\1"),
    (re.compile(r"('nonce-)[^']*"), r"\1"),
    (re.compile(r'(name="key" value=")[^"]*'), r"\1"),
    (re.compile(r"([?;]p=)[\w-]+"), r"\1"),  # a page's own token (games/web/live_parts.py)
    (re.compile(r"(csrftoken=)[^;\s]*"), r"\1"),
    (re.compile(r"(Time left: )[^<]*"), r"\1"),
    (re.compile(r"(waiting for )[^<]*"), r"\1"),
    (re.compile(r"^(Content-Length|Date|Expires|Last-Modified): .*$", re.M), ""),
    (re.compile(r"(expires=)[^;]*"), r"\1"),
)


def normalised(text: str) -> str:
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def same(a: Fetched, b: Fetched) -> bool:
    return a.status == b.status and normalised(a.text) == normalised(b.text)


def render(viewer: Viewer, pairs) -> list[Fetched]:
    fetched, status = [], {}
    for url, hx, gate in pairs:
        if gate is None or status.get(gate) == 200:
            fetched.append(fetch(viewer.client, url, hx=hx))
            status.setdefault(url, fetched[-1].status)
    return fetched


def rendered_again(viewer: Viewer, originals: list[Fetched]) -> list[Fetched]:
    """The same requests again; answers that cannot depend on the snapshot (redirects, 405,
    404) are only re-requested when they were 2xx, the others are kept."""
    return [
        fetch(viewer.client, item.url, hx=item.hx) if 200 <= item.status < 300 else item
        for item in originals
    ]


def put_snapshot(game, state: engine.State) -> None:
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())


def assert_twin_renders_the_same(game, state, viewer, pairs, originals, rng, where):
    """The viewer's responses for a twin state equal the originals; on a difference, each edit
    alone names the culprit."""
    twin, applied = state.clone(), []
    for edit in EDITS:
        if edit(twin, viewer.seat, rng):
            applied.append(edit)
    if not applied:
        return
    try:
        put_snapshot(game, twin)
        again = rendered_again(viewer, originals)
        if all(same(a, b) for a, b in zip(originals, again, strict=True)):
            return
        culprits = []
        for edit in applied:
            single = state.clone()
            edit(single, viewer.seat, random.Random(rng.random()))
            put_snapshot(game, single)
            for a, b in zip(originals, rendered_again(viewer, originals), strict=True):
                if not same(a, b):
                    culprits.append(f"{edit.__name__}: GET {a.url} (htmx={a.hx})")
                    break
        first = next((a, b) for a, b in zip(originals, again, strict=True) if not same(a, b))
        diff = _first_difference(normalised(first[0].text), normalised(first[1].text))
        raise AssertionError(
            f"{viewer.label} at {where} can tell twin states apart: "
            f"{culprits or [e.__name__ for e in applied]}; "
            f"GET {first[0].url}: {diff}"
        )
    finally:
        put_snapshot(game, state)


def _first_difference(a: str, b: str) -> str:
    pairs = enumerate(zip(a, b, strict=False))
    at = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
    return f"...{a[max(0, at - 80) : at + 80]!r} vs ...{b[max(0, at - 80) : at + 80]!r}"


# -- Playing the games -----------------------------------------------------------------------


def choose(state: engine.State, rng: random.Random) -> dict:
    """Mostly dig toward the face-down goals (so treasures get found and gold gets picked or
    stolen), avoid hostile cards; otherwise any legal move."""
    moves = engine.legal_moves(state, state.seats[state.to_move])
    if rng.random() < 0.85:
        hidden = [pos for pos in state.goals.values() if state.board[pos].face_down]
        places = [m for m in moves if m["move"] == "place" and "dead" not in m["card"]]
        if places and hidden:

            def distance(m):
                return min(abs(m["at"][0] - x) + abs(m["at"][1] - y) for x, y in hidden)

            best = min(map(distance, places))
            return rng.choice([m for m in places if distance(m) == best])
    return rng.choice(moves)


def advance(game, rng: random.Random) -> engine.State:
    state = state_of(game)
    seat = game.seats.get(position=state.to_move)
    move_submit(
        game_id=game.pk, user=seat.user, move=choose(state, rng), expected_version=game.version
    )
    return state_of(game)


def checkpoints(game, rng: random.Random, *, mid_moves: int = 9):
    """Play the game to its end, yielding (label, state) at the interesting moments."""
    state = state_of(game)
    yield "start", state
    for _ in range(mid_moves):
        state = advance(game, rng)
    yield "mid-round 1", state
    seen = set()
    while not state.finished:
        state = advance(game, rng)
        if state.decision in (engine.PICK_GOLD, engine.STEAL) and "decision" not in seen:
            seen.add("decision")
            yield f"{state.decision} decision in round {state.round}", state
        if state.rounds_done and "round-end" not in seen and state.decision == engine.TURN:
            seen.add("round-end")
            yield f"round {state.round} start, after a round ended", state
    yield "game end", state


def forget_timed_lists() -> None:
    """Drop the per-process lists kept for a time rather than under their data's version."""
    languages = [code for code, _name in settings.LANGUAGES]
    keys = [lists.watch_key(code) for code in languages]
    keys += [ratings.leaderboard_key(r, code) for r in Game.Ruleset.values for code in languages]
    caches["local"].delete_many(keys)


def check_checkpoint(game, state, viewers, routes, rng, where, *, full_walk=False):
    per_game = game_routes(routes)
    for viewer in viewers:
        if viewer.label == "staff" and not full_walk:
            continue  # a spectator like the outsider, but for the admin pages of the full walk
        # The full walk adds every other route (the staff user, skipped at the checkpoints, walks
        # them all); the game's own routes are checked, with twins, at every checkpoint.
        walked = per_game
        if full_walk:
            walked = routes if viewer.label == "staff" else [r for r in routes if r not in per_game]
        pairs = requests_for(walked, viewer, state, game)
        # What is kept for some seconds rather than under its data (the lobby's games to watch,
        # the leaderboards) may be an earlier checkpoint's: built afresh now, so originals and
        # twins see the same. Every other part the process keeps stays, as in production: a
        # viewer may be shown what another viewer's request kept, and must still see only theirs.
        forget_timed_lists()
        originals = render(viewer, pairs)
        assert_no_tokens(originals, secret_tokens(game, state, viewer), viewer, where)
        of_this_game = [
            f
            for f in originals
            if f.url.startswith(f"/games/{game.pk}/") or game.invite_token in f.url
        ]
        assert_templates_see_only_views(of_this_game, game.snapshot)
        if full_walk:
            continue  # the twin comparison runs on the game routes (below and at every checkpoint)
        assert_twin_renders_the_same(game, state, viewer, pairs, originals, rng, where)


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "count", "seed"), [("base", 4, 1), ("saboteur2", 5, 6)])
def test_no_secret_reaches_any_viewer_through_a_whole_game(
    ruleset, count, seed, players, outsider, staff
):
    rng = random.Random(seed)
    game = start_game(players, count=count, ruleset=ruleset, rng=rng)
    line = chat_post(game_id=game.pk, user=players[1], text="Dig east!")
    # A report, a mute and a block at the table: none may tell anyone what they may not know.
    report_create(reporter=players[0], reason="cheating", message_id=line.pk)
    report_create(reporter=players[2], reason="cheating", game_id=game.pk, user_id=players[1].pk)
    ChatMute.objects.create(user=players[2], until=timezone.now() + timedelta(days=30))
    relations.block(players[0], players[1])
    # Issue 52's pages: the outsider is a friend of a player (the friends page lists the game in
    # progress) and waits at a forming table (Play now, the home page).
    relations.follow(outsider, players[0])
    relations.follow(players[0], outsider)
    wish = Wish(rulesets=("base",), min_players=3, max_players=5, pace="2d", languages=("en",))
    matchmaking.seek(user=outsider, wish=wish)
    viewers = viewers_for(game, outsider, staff)
    routes = walk_routes(route_values(game, players[1]))
    reached = []
    twins = random.Random(-seed)  # its own stream: the game stays the same whatever twins draw
    for where, state in checkpoints(game, rng):
        reached.append(where)
        game.refresh_from_db()
        check_checkpoint(game, state, viewers, routes, twins, where)
        if where == "mid-round 1":
            check_checkpoint(game, state, viewers, routes, twins, where, full_walk=True)
    assert reached[0] == "start" and reached[-1] == "game end"
    assert any("after a round ended" in w for w in reached), reached
    print(ruleset, reached)


def test_list_pages_get_rows_not_game_objects(players):
    running = start_game(players)
    game_create(creator=players[0], name="Next mine", ruleset="base", max_seats=4)
    client = Client()
    client.force_login(players[0])
    fetched = [fetch(client, "/"), fetch(client, "/games/")]
    assert all(f.status == 200 for f in fetched)
    assert_templates_see_only_views(fetched, running.snapshot)


# -- Ratings and hidden roles (issue 28) ------------------------------------------------------

RATING_MARKS = re.compile(
    r'<span class="rating" data-testid="rating">[^<]*</span>(?: <span class="small">\([^)]*\)'
    r"</span>)?|unrated|data-testid=\"rated-rounds\">\d+<|data-testid=\"no-ratings\""
)


def ratings_shown(client, urls) -> list[tuple[str, list[str]]]:
    """Every rating figure the pages show, in order (the rest of a page, like reliability,
    moves with every turn and is public)."""
    shown = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        shown.append((url, RATING_MARKS.findall(response.content.decode())))
    return shown


@pytest.mark.slow
def test_ratings_shown_during_a_running_game_change_only_when_a_round_ends(players, outsider):
    """A rating that moved mid-round would tell who plays which role (a saboteur's rating as a
    saboteur, say). Through rated rounds, the player pages, the leaderboard and the lobby (where
    the players also sit at an open table) show the same figures after every move of a round, to
    anyone, and change only with the move that completes it; a twin game whose other seats hold
    other roles shows the same figures mid-round."""
    rng = random.Random(28)
    table = game_create(creator=players[0], name="Next mine", ruleset="base", max_seats=5)
    seat_join(game_id=table.pk, user=players[1])
    client = Client()
    client.force_login(outsider)
    seated = Client()
    seated.force_login(players[2])
    urls = [f"/players/{user.display_name}/" for user in players[:4]]
    urls += ["/leaderboards/base/", "/games/"]

    def everything():
        caches["local"].clear()  # the lobby's markup: only its version may keep it
        return ratings_shown(client, urls), ratings_shown(seated, urls[:4])

    changed_at = []
    for _attempt in range(4):  # until a round teaches something (seats and deals are random)
        game = start_game(players, count=4, rounds=2, rng=rng)
        before = everything()
        while True:
            state = state_of(game)
            if state.finished:
                break
            done = len(state.rounds_done)
            if done == 1 and state.decision == engine.TURN and state.version % 7 == 0:
                # Mid-round 2: the other seats' roles rotated, the pages show the same figures.
                for me in (None, 2):
                    twin = state.clone()
                    if edit_roles(twin, me, rng):
                        put_snapshot(game, twin)
                        assert everything() == before, "the figures depend on hidden roles"
                        put_snapshot(game, state)
            state = advance(game, rng)
            now = everything()
            if now != before:
                assert len(state.rounds_done) == done + 1, f"ratings moved inside round {done + 1}"
                changed_at.append(done + 1)
            before = now
        assert changed_at == sorted(game.rated_rounds.values_list("number", flat=True))
        if changed_at:
            break
    assert changed_at
