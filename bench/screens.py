"""Screenshots of the game table for review (not a test): ``.venv/bin/python bench/screens.py``.

Seeds a database of its own (``SCREENS_DATABASE_URL``, default ``saboteur_screens``: created,
migrated and emptied here), plays games through the real move pipeline (bots choose every move,
the bots' seats through ``bot_move``), starts gunicorn on a loopback port and has Debian's
chromium photograph the game page of one player at 1366x768, 1920x1080 and a 390x844 phone:

- ``base-turn``: a base game against 3 bots, the player's turn with a path card chosen;
- ``base-round-end``: the same game when its first round is over (the gold pick);
- ``saboteur2-turn``: Saboteur 2 against 5 bots, an action card chosen (its targets);
- ``saboteur2-pass``: the same turn with the Pass card choice open;
- ``base-round-result``: the base game's next round, the last round's result still in view;
- ``base-game-over``: the base game played to its end: the scoring view.

The PNGs go to ``docs/screens/`` (``--out``), reduced to a 96-colour palette to stay small.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault(
    "BENCH_DATABASE_URL",
    os.environ.get("SCREENS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/saboteur_screens"),
)
os.environ.setdefault(
    "BENCH_REDIS_URL", os.environ.get("SCREENS_REDIS_URL", "redis://127.0.0.1:6379/14")
)
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop in this thread

from bench import harness  # noqa: E402

SIZES = {"1366x768": (1366, 768), "1920x1080": (1920, 1080), "phone-390x844": (390, 844)}
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


def _play_until(game, me, stop, rng, limit=400):
    """Play moves (bots choose them, for every seat) until ``stop(game, state)`` holds."""
    from games import bots, engine
    from games.play import moves

    for _ in range(limit):
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
        if stop(game, state) or state.finished:
            return game
        seat = game.seats.live().get(position=game.to_move)
        if seat.bot is not None:
            moves.bot_move(game_id=game.pk, version=game.version)
            continue
        name = seat.engine_name
        move = bots.choose_move(
            engine.view_for(state, name), engine.legal_moves(state, name), rng, []
        )
        moves.move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    raise RuntimeError("the game did not reach the wanted state")


def _my_turn(me, *, after=0):
    from games import engine

    def stop(game, state):
        seat = game.seats.live().get(user=me)
        return (
            state.version >= after
            and state.decision == engine.TURN
            and game.to_move == seat.position
        )

    return stop


def _round_over(game, state):
    from games import engine

    return state.decision in (engine.PICK_GOLD, engine.STEAL)


def _next_round(game, state):
    return state.round >= 2 and not _round_over(game, state)


def _never(game, state):
    return False  # to the game's end


# What to play on to before a picture (the pictures are taken in order, of games played on).
PLAY_ON = {None: _round_over, "next-round": _next_round, "game-over": _never}


def _card(game, me, kinds):
    """A card of ``me``'s hand that has a legal move of one of ``kinds``."""
    from games import engine

    state = engine.State.from_json(game.snapshot)
    name = game.seats.live().get(user=me).engine_name
    for move in engine.legal_moves(state, name):
        if move["move"] in kinds and "card" in move:
            return move["card"]
    return None


def seed() -> list[tuple[str, object, object, str]]:
    """(name, player, game, query) of each screenshot."""
    from games.play import lobby

    ann = harness.make_user("ann")
    rng = random.Random(25)  # noqa: S311 - reproducible pictures, not secrets
    shots = []

    base = lobby.practice_create(creator=ann, ruleset="base", bots=3)
    _play_until(base, ann, _my_turn(ann, after=14), rng)
    card = _card(base, ann, ("place",))
    shots.append(("base-turn", ann, base, f"?card={card}" if card else ""))
    shots.append(("base-round-end", ann, base, None))  # played on after the first pictures

    two = lobby.practice_create(creator=ann, ruleset="saboteur2", bots=5)
    _play_until(two, ann, _my_turn(ann, after=18), rng)
    card = _card(two, ann, ("action",))
    shots.append(("saboteur2-turn", ann, two, f"?card={card}" if card else ""))
    shots.append(("saboteur2-pass", ann, two, "#pass"))
    shots.append(("base-round-result", ann, base, "next-round"))
    shots.append(("base-game-over", ann, base, "game-over"))
    return shots


def _small_png(data: bytes) -> bytes:
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    small = image.quantize(colors=96, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue()


def photograph(shots, port: int, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            for name, user, game, query in shots:
                if query in PLAY_ON:  # play on to the round's end, the next round, the end
                    _play_until(game, user, PLAY_ON[query], random.Random(7))  # noqa: S311
                    query = ""
                cookie = harness.session_cookie(user)
                for size, (width, height) in SIZES.items():
                    context = browser.new_context(
                        viewport={"width": width, "height": height},
                        device_scale_factor=1,
                        is_mobile=size.startswith("phone"),
                        has_touch=size.startswith("phone"),
                    )
                    context.add_cookies(
                        [{"name": "sessionid", "value": cookie, "url": f"http://127.0.0.1:{port}"}]
                    )
                    page = context.new_page()
                    url = f"http://127.0.0.1:{port}/games/{game.pk}/"
                    # Not "networkidle": the page polls every 10 seconds.
                    page.goto(url + query.replace("#pass", ""), wait_until="load")
                    page.get_by_test_id("turn-line").wait_for()
                    guide = page.get_by_test_id("guide-dismiss")
                    if guide.count():  # at the page's foot: the click scrolls down to it
                        guide.click()
                        guide.wait_for(state="detached")
                        page.evaluate("window.scrollTo(0, 0)")
                    if query == "#pass":
                        page.locator('[data-testid="pass-choice"] > summary').click()
                    page.wait_for_timeout(1800)  # the newest move's short animation
                    path = out / f"{name}-{size}.png"
                    path.write_bytes(_small_png(page.screenshot()))
                    written.append(path)
                    context.close()
        finally:
            browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    harness.ENV["DJANGO_DEBUG"] = "1"  # static files from their source folders
    # No live streams under gunicorn (as in production): each would hold one of its threads
    # until its next heartbeat after the picture's browser closed; the pages poll instead.
    harness.ENV["LIVE_WSGI_STREAMS"] = "0"
    harness.ENV["DATABASE_URL"] = harness.DATABASE_URL
    harness.setup_django()
    shots = seed()
    with harness.gunicorn(workers=1, threads=4) as server:
        for path in photograph(shots, server.port, out):
            print(
                f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
                f"  {path.stat().st_size // 1024} KB"
            )


if __name__ == "__main__":
    main()
