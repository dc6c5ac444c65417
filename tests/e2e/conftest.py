import os

import pytest
from django.conf import settings
from django.test import Client

from tests import chromium
from tests.redis_space import clear_run_cache

# Playwright's sync API keeps an event loop in this thread; the Django calls made here
# (fixtures, outbox) are synchronous and safe. The test script sets this as well.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# The browsers: the headless shell, the full Chromium for the tests marked full_chromium.
browser_type_launch_args = chromium.browser_type_launch_args
full_chromium = chromium.full_chromium
browser = chromium.browser


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_run_cache()  # this run's keys only (tests/redis_space.py)
    yield
    clear_run_cache()


class CspWatcher:
    """Collects the browser's CSP violation reports from the console."""

    def __init__(self):
        self.violations: list[str] = []

    def attach(self, page):
        page.on("console", self._on_console)
        return page

    def _on_console(self, message):
        if "Content Security Policy" in message.text:
            self.violations.append(message.text)


@pytest.fixture
def csp_watcher():
    return CspWatcher()


@pytest.fixture
def new_page(browser, csp_watcher):
    contexts = []

    def make():
        context = browser.new_context()
        context.set_default_timeout(15_000)
        contexts.append(context)
        return csp_watcher.attach(context.new_page())

    yield make
    for context in contexts:
        context.close()


# -- Playing games in the browser ------------------------------------------------------------

PLAYER_PASSWORD = "a-long-and-unusual-password"


@pytest.fixture
def make_player(db):
    """A verified user who can log in with PLAYER_PASSWORD; display name = name capitalized."""
    from tests.players import create_player

    def make(name):
        return create_player(name, password=PLAYER_PASSWORD)

    return make


@pytest.fixture
def rigged_game(db):
    """A running game of ``users`` (1 round unless ``rounds`` says more) with a rigged deal
    for its first round.

    ``users[i]`` sits at position i, so engine seat ``str(i)`` is ``users[i]``; ``deal`` is a
    deal as in docs/scenarios.md written with those seat names ("0", "1", ...).
    """
    from games import engine
    from games.models import Game
    from games.play import lobby

    def make(users, *, ruleset, deal, name="Rigged game", rounds=1):
        game = lobby.game_create(
            creator=users[0], name=name, ruleset=ruleset, max_seats=len(users), rounds=rounds
        )
        for user in users[1:]:
            lobby.seat_join(game_id=game.pk, user=user)
        lobby.game_start(game_id=game.pk, user=users[0])
        game.refresh_from_db()
        seats = {seat.user_id: seat for seat in game.seats.all()}
        for seat in seats.values():  # free the positions first (unique per game)
            seat.position = None
            seat.save(update_fields=["position"])
        for position, user in enumerate(users):
            seats[user.pk].position = position
            seats[user.pk].save(update_fields=["position"])
        state = engine.new_game(
            ruleset=ruleset,
            seats=[str(position) for position in range(len(users))],
            round_seeds=[f"e2e-rigged-round-{n}" for n in range(1, rounds + 1)],
            rounds=rounds,
            deals=[deal],
        )
        game.snapshot = state.to_json()
        game.version = 0
        game.to_move = state.to_move
        game.revision += 1
        game.save()
        assert game.status == Game.Status.RUNNING
        return game

    return make


class BrowserProblems:
    """Console errors, CSP violations and uncaught page errors, from every watched page."""

    def __init__(self):
        self.problems: list[str] = []

    def attach(self, page, label=""):
        def on_console(message):
            if message.type == "error" or "Content Security Policy" in message.text:
                self.problems.append(f"{label} console {message.type}: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.problems.append(f"{label} pageerror: {error}"))
        return page


@pytest.fixture
def browser_problems():
    return BrowserProblems()


@pytest.fixture
def player_page(browser, live_server, browser_problems):
    """``player_page(user, **context_options)``: a page in its own context, logged in, on the
    home page, watched for console errors, CSP violations and page errors.

    Logged in by cookie: a session made as Django's test client logs in (``force_login``), its
    cookie given to the browser, then the home page loaded, where the login form would have led.
    Going through the form took about a second a page on a busy machine, and the browser tests
    open about a hundred (the same 59 tests: 291 s -> 267 s); the form itself is the subject of
    test_signup_flow.py (and of the production suite)."""
    contexts = []

    def make(user, **context_options):
        context = browser.new_context(**context_options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        client = Client()
        client.force_login(user)
        name = settings.SESSION_COOKIE_NAME
        context.add_cookies(
            [
                {
                    "name": name,
                    "value": client.cookies[name].value,
                    "url": live_server.url,
                    "httpOnly": True,
                    "sameSite": "Lax",
                }
            ]
        )
        page = browser_problems.attach(context.new_page(), label=user.display_name)
        response = page.goto(f"{live_server.url}/")
        assert response is not None and response.ok, response
        return page

    yield make
    for context in contexts:
        context.close()
