"""Web benchmark (not a test): the site's pages against a bare signed-in Django view, side by side.

    .venv/bin/python bench/web.py                          # this checkout, about 4 minutes
    .venv/bin/python bench/web.py --compare 259da4b HEAD    # two commits, about 9 minutes

Starts gunicorn (2 gthread workers of 2 threads) on a free loopback port against a PostgreSQL
database of its own (``saboteur_bench``, ``BENCH_DATABASE_URL`` names another; emptied and
seeded by this script), with development settings without Redis (the cache and the sessions in
PostgreSQL), persistent database connections and ``bench/bench_settings.py``, which routes
``/bare/``: a signed-in view that answers "ok" (``bench/bench_site.py``), the cost of Django, the
middleware, the session and the user alone. Then ``wrk`` (Debian package ``wrk``)
asks for each page with 8 connections, 4 rounds of 4 s per page, and prints per page its
requests per second as a ratio to bare's (a page's cost relative to the cheapest signed-in
request, on the same machine at the same moment) and the CPU milliseconds per request of the
gunicorn workers plus their PostgreSQL backends (the figure that moves least with the machine's
other load). Rounds alternate their order (a-b-b-a), so a load that drifts hits all pages alike.

The pages (``PAGES``; the goals are issue 49's, as a ratio of requests per second to bare's):

- a game of four 60+ moves in, in its second round: its page for a waiting seat and for the seat
  to move, its play part as htmx asks for it, and its poll while nothing changed (204);
- the lobby with 20 open games; a leaderboard of 100 rated players;
- a finished 12-player, 3-round Saboteur 2 game: a replay step in the middle, round 2's recap;
- the anonymous home page, against a bare page without a session.

``--compare A B`` is the regression guard: a ``git worktree`` of each commit in a temporary
folder, each served by its own gunicorn (this checkout's .venv, the same settings and
environment), on the same game: the database is seeded once with the code of the older commit,
copied for the other (``CREATE DATABASE ... TEMPLATE``) and migrated with its code (seeding
twice would deal other cards: every round's seed is drawn with ``secrets``). Each page is
measured on A and B in turn (a-b, then b-a), and the report prints both ratios, both CPU figures
and B/A. Worktrees, databases and servers are removed on the way out, also on errors and Ctrl-C.

``--moves`` (this checkout only) also measures an htmx move POST, with the script's own Python
client (a move needs the game's state between requests, which wrk cannot read).

See docs/web-performance.md for the figures and their history.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402

WRK_MISSING = (
    "bench/web.py measures with wrk, which is not installed. On Debian: apt-get install -y wrk"
)
CONNECTIONS = 8
LOBBIES = 20
LEADERS = 100
# Development settings as the issue measured them: no Redis (cache and sessions in PostgreSQL),
# Django's persistent connections (long enough that a backend's CPU is counted whole), no pool.
SERVER_ENV = {
    "REDIS_URL": "",
    "DATABASE_POOL": "0",
    "DATABASE_CONN_MAX_AGE": "3600",
    "DJANGO_SECRET_KEY": "bench-only-not-secret",  # the same for every process: sessions hold
}


@dataclass(frozen=True)
class Page:
    label: str
    path: str  # with {game}, {revision}, {long}, {step}: filled in from the seed
    viewer: str | None  # "waiting", "to_move", "ann", "long": whose session; None: anonymous
    baseline: str = "bare"  # the row it is compared with
    goal: float | None = None  # issue 49: requests per second at least this ratio of baseline's
    status: int = 200
    htmx: bool = False
    marker: str = ""  # must be in the answer (the seed and the session worked)


PAGES = [
    Page("bare", "/bare/", "ann", baseline="", marker="ok"),
    Page("game page, waiting seat", "/games/{game}/", "waiting", goal=0.3, marker='id="play"'),
    Page("game page, seat to move", "/games/{game}/", "to_move", marker='id="play"'),
    Page(
        "play part (htmx)",
        "/games/{game}/?part=play",
        "waiting",
        goal=0.3,
        htmx=True,
        marker='id="play"',
    ),  # fmt: skip
    Page("lobby", "/games/", "ann", goal=0.5, marker="Open table 19"),
    Page("replay step", "/games/{long}/replay/?step={step}", "long", goal=0.35),
    Page("round recap", "/games/{long}/rounds/2/", "long", goal=0.35),
    Page("leaderboard", "/leaderboards/base/", "ann", goal=0.5, marker="Rated 000"),
    Page(
        "poll, unchanged (204)", "/games/{game}/poll/?v={revision}", "waiting", status=204, goal=0.9
    ),  # fmt: skip
    Page("bare (anonymous)", "/bare/", None, baseline="", marker="ok"),
    Page("home (anonymous)", "/", None, baseline="bare (anonymous)", goal=0.5),
]


# -- The seed (run with the code of the commit being seeded) -----------------------------------


def seed(*, move_games: int = 0) -> dict:
    """The pages' data, made through the site's services; returns what the pages need: ids,
    the poll's revision, a session cookie per viewer."""
    from games import engine
    from games.play import lobby as play_lobby

    users = [harness.make_user(name) for name in ("ann", "bob", "cid", "dan")]
    creators = iter(range(10**6))

    def started():
        creator = users[next(creators) % 4]  # creators take turns: 10 games an hour each
        game = play_lobby.game_create(creator=creator, name="Bench", ruleset="base", max_seats=4)
        for user in users:
            if user != creator:
                play_lobby.seat_join(game_id=game.pk, user=user)
        return play_lobby.game_start(game_id=game.pk, user=creator)

    rng = random.Random(7)  # noqa: S311 - a benchmark's reproducible choices
    game = started()
    second_round_began = None
    while True:  # 60+ moves, and some into the second round: a maze, a long log, two rounds
        state = engine.State.from_json(game.snapshot)
        if state.round >= 2 and second_round_began is None:
            second_round_began = game.version
        if second_round_began is not None and game.version >= max(60, second_round_began + 6):
            break
        if state.finished or state.round > 2:
            raise RuntimeError("the page's game ended before its second round's sixth move")
        _play_one(game, rng)
        game.refresh_from_db()
    to_move = game.seats.get(position=game.to_move).user
    waiting = next(u for u in users if u != to_move)
    for n in range(LOBBIES):  # open games waiting for players, for the lobby page
        lobby = play_lobby.game_create(
            creator=users[n % 4], name=f"Open table {n}", ruleset="base", max_seats=5
        )
        play_lobby.seat_join(game_id=lobby.pk, user=users[(n + 1) % 4])
    movers = [started() for _ in range(move_games)]
    long_game, long_users = played_to_the_end(rng)
    leaders(rng)
    return {
        "game": game.pk,
        "version": game.version,
        "round": engine.State.from_json(game.snapshot).round,
        "revision": game.revision,
        "long": long_game.pk,
        "step": long_game.version // 2,
        "move_games": [g.pk for g in movers],
        "sessions": {
            "ann": harness.session_cookie(users[0]),
            "waiting": harness.session_cookie(waiting),
            "to_move": harness.session_cookie(to_move),
            "long": harness.session_cookie(long_users[0]),
        },
        "players": {user.pk: harness.session_cookie(user) for user in users},
    }


def _play_one(game, rng) -> None:
    """The player to move places a path card most of the time (a fuller maze), else anything."""
    from games import engine
    from games.play import moves as play_moves

    seat = game.seats.get(position=game.to_move)
    legal = engine.legal_moves(engine.State.from_json(game.snapshot), seat.engine_name)
    places = [m for m in legal if m["move"] == "place"]
    move = rng.choice(places if places and rng.random() < 0.7 else legal)
    play_moves.move_submit(
        game_id=game.pk, user=seat.user, move=move, expected_version=game.version
    )


def played_to_the_end(rng):
    """A 12-player, 3-round Saboteur 2 game played to its end through the services."""
    from games.play import lobby as play_lobby

    users = [harness.make_user(f"long{i}") for i in range(12)]
    game = play_lobby.game_create(creator=users[0], name="Long", ruleset="saboteur2", max_seats=12)
    for user in users[1:]:
        play_lobby.seat_join(game_id=game.pk, user=user)
    game = play_lobby.game_start(game_id=game.pk, user=users[0])
    while game.to_move is not None:
        _play_one(game, rng)
        game.refresh_from_db()
    return game, users


def leaders(rng) -> None:
    """A full leaderboard: 100 players past their provisional rounds. Written directly (100
    players' worth of rated rounds would take the seed many minutes); the page reads only these
    rows and their players."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from games.models import Rating

    rows = []
    for n in range(LEADERS):
        user = get_user_model().objects.create_user(
            username=f"rated{n:03d}", email=f"rated{n:03d}@bench.invalid",
            display_name=f"Rated {n:03d}",
        )  # fmt: skip
        for kind in ("all", "digger", "saboteur"):
            mu, sigma = rng.uniform(20, 35), rng.uniform(2, 5)
            rows.append(
                Rating(
                    user=user,
                    ruleset="base",
                    kind=kind,
                    mu=mu,
                    sigma=sigma,
                    score=mu - 3 * sigma,
                    rounds=rng.randint(10, 60),
                    last_round_at=timezone.now(),
                )  # fmt: skip
            )
    Rating.objects.bulk_create(rows)


# -- Sides: the code served, its database, its server ------------------------------------------


@dataclass
class Side:
    name: str  # "this checkout", or "A" / "B"
    site: Path  # the code it serves
    database_url: str
    commit: str = ""
    started: harness.Server | None = None
    totals: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)

    @property
    def server(self) -> harness.Server:
        if self.started is None:
            raise RuntimeError(f"{self.name}: its server is not running")
        return self.started


def _url_for(name: str) -> str:
    base = harness.DATABASE_URL.rsplit("/", 1)[0]
    query = ""
    if "?" in harness.DATABASE_URL:
        query = "?" + harness.DATABASE_URL.split("?", 1)[1]
    return f"{base}/{name}{query}"


def _env(side: Side) -> dict:
    return {
        **os.environ,
        **harness.ENV,
        **SERVER_ENV,
        "DATABASE_URL": side.database_url,
        "BENCH_DATABASE_URL": side.database_url,
        "BENCH_REDIS_URL": SERVER_ENV["REDIS_URL"],  # harness.ENV's, in the seeding process
        "BENCH_SITE": str(side.site),
    }


def seed_side(side: Side, *, move_games: int, folder: Path) -> dict:
    """Seed ``side``'s database in a process that runs ``side``'s code (this script with
    ``--seed-only``): the services, models and migrations of that commit."""
    out = folder / f"seed-{side.name}.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--seed-only", str(out)]
    command += ["--move-games", str(move_games)]
    subprocess.run(command, cwd=side.site, env=_env(side), check=True)  # noqa: S603
    return json.loads(out.read_text())


def copy_side(source: Side, target: Side) -> None:
    """``target``'s database: a copy of ``source``'s, migrated with ``target``'s code."""
    with harness.postgres() as conn:
        name = harness.database_name(target.database_url)
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        source_name = harness.database_name(source.database_url)
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source_name}"')
    manage = [sys.executable, "manage.py"]
    env = _env(target)
    for command in (["migrate", "--noinput"], ["createcachetable"]):
        subprocess.run([*manage, *command, "-v0"], cwd=target.site, env=env, check=True)  # noqa: S603


def empty_cache(side: Side) -> None:
    """Both sides start from a cold cache: nothing the seeding process (or the other commit's
    code) left in the cache's table is read."""
    with harness.postgres(harness.database_name(side.database_url)) as conn:
        conn.execute("DELETE FROM django_cache")


# -- Measuring ----------------------------------------------------------------------------------


@dataclass
class Target:
    page: Page
    path: str
    cookie: str | None


def targets(seeded: dict) -> list[Target]:
    fill = {key: seeded[key] for key in ("game", "revision", "long", "step")}
    return [
        Target(page, page.path.format(**fill), seeded["sessions"].get(page.viewer or ""))
        for page in PAGES
    ]


def check(side: Side, target: Target) -> None:
    """The answer wrk will count is the page meant: its status, its marker (a session that did
    not hold would redirect to the login page, which wrk would count as a success)."""
    http = harness.Http(side.server.port, target.cookie)
    try:
        status, _, body = http.request("GET", target.path, htmx=target.page.htmx)
    finally:
        http.close()
    text = body.decode(errors="replace")
    if status != target.page.status or target.page.marker not in text:
        raise SystemExit(
            f"{side.name}: {target.page.label} {target.path} answered {status} "
            f"(expected {target.page.status} with {target.page.marker!r}): {text[:200]!r}"
        )
    side.sizes[target.page.label] = len(body)


_WRK_REQUESTS = re.compile(r"(\d+) requests in ([\d.]+)(us|ms|s|m),")
_WRK_P50 = re.compile(r"50%\s+([\d.]+)(us|ms|s|m)\b")
_WRK_ERRORS = re.compile(r"Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)")
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def wrk(port: int, target: Target, seconds: float) -> dict:
    command = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds:g}s", "--latency", "--timeout", "10s"]
    if target.cookie:
        command += ["-H", f"Cookie: sessionid={target.cookie}"]
    if target.page.htmx:
        command += ["-H", "HX-Request: true"]
    command.append(f"http://127.0.0.1:{port}{target.path}")
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout  # noqa: S603
    done = _WRK_REQUESTS.search(output)
    if done is None:
        raise RuntimeError(f"wrk printed no count:\n{output}")
    p50 = _WRK_P50.search(output)
    return {
        "requests": int(done[1]),
        "seconds": float(done[2]) * _SECONDS[done[3]],
        "p50": float(p50[1]) * _SECONDS[p50[2]] if p50 else 0.0,
        "errors": [m[0] for m in _WRK_ERRORS.finditer(output)],
    }


def measure(side: Side, target: Target, seconds: float) -> None:
    before = side.server.cpu()
    result = wrk(side.server.port, target, seconds)
    cpu = harness.cpu_used(before, side.server.cpu())
    total = side.totals.setdefault(
        target.page.label, {"requests": 0, "seconds": 0.0, "cpu": 0.0, "p50": [], "errors": []}
    )
    total["requests"] += result["requests"]
    total["seconds"] += result["seconds"]
    total["cpu"] += cpu
    total["p50"].append(result["p50"])
    total["errors"] += result["errors"]


def run_rounds(sides: list[Side], pages: list[Target], rounds: int, seconds: float) -> None:
    """Every page on every side, ``rounds`` times; odd rounds in the reverse order (pages and
    sides), so each page and side sees a drifting load from both ends (a-b-b-a)."""
    for number in range(rounds):
        order = [(target, side) for target in pages for side in sides]
        if number % 2:
            order.reverse()
        for target, side in order:
            measure(side, target, seconds)
        print(f"  round {number + 1} of {rounds} done; load average {os.getloadavg()[0]:.1f}")


# -- The report ----------------------------------------------------------------------------------


def figures(side: Side) -> dict:
    rows = {}
    for label, total in side.totals.items():
        rows[label] = {
            "rps": total["requests"] / total["seconds"],
            "cpu_ms": total["cpu"] * 1000 / max(total["requests"], 1),
            "p50_ms": sorted(total["p50"])[len(total["p50"]) // 2] * 1000,
            "errors": total["errors"],
        }
    for page in PAGES:
        row, base = rows[page.label], rows.get(page.baseline)
        row["ratio"] = row["rps"] / base["rps"] if base else None
        row["cpu_ratio"] = base["cpu_ms"] / row["cpu_ms"] if base else None
    return rows


def _verdict(page: Page, ratio: float | None) -> str:
    if page.goal is None or ratio is None:
        return ""
    return f">= {page.goal}: " + ("met" if ratio >= page.goal else "MISSED")


def _cell(value: float | None, width: int, digits: int = 3) -> str:
    return f"{'':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def report(sides: list[Side]) -> int:
    rows = [figures(side) for side in sides]
    failed = False
    if len(sides) == 1:
        print(
            f"{'page':<26}{'req/s':>7}{'ratio':>7}{'CPU ratio':>10}{'CPU ms/req':>11}"
            f"{'p50 ms':>8}{'KB':>6}  goal (ratio of req/s)"
        )
        for page in PAGES:
            row = rows[0][page.label]
            print(
                f"{page.label:<26}{row['rps']:>7.0f}{_cell(row['ratio'], 7)}"
                f"{_cell(row['cpu_ratio'], 10)}{row['cpu_ms']:>11.2f}"
                f"{row['p50_ms']:>8.1f}{sides[0].sizes[page.label] / 1000:>6.1f}"
                f"  {_verdict(page, row['ratio'])}"
            )
    else:
        a, b = rows
        print(
            f"{'page':<26}{'A req/s':>8}{'B req/s':>8}{'A ratio':>8}{'B ratio':>8}"
            f"{'A CPU r':>8}{'B CPU r':>8}{'A CPU ms':>9}{'B CPU ms':>9}{'B/A CPU':>8}"
            f"{'A KB':>6}{'B KB':>6}  goal: B"
        )
        for page in PAGES:
            ra, rb = a[page.label], b[page.label]
            print(
                f"{page.label:<26}{ra['rps']:>8.0f}{rb['rps']:>8.0f}"
                + "".join(_cell(r["ratio"], 8) for r in (ra, rb))
                + "".join(_cell(r["cpu_ratio"], 8) for r in (ra, rb))
                + f"{ra['cpu_ms']:>9.2f}{rb['cpu_ms']:>9.2f}{rb['cpu_ms'] / ra['cpu_ms']:>8.2f}"
                + "".join(f"{side.sizes[page.label] / 1000:>6.1f}" for side in sides)
                + f"  {_verdict(page, rb['ratio'])}"
            )
    for side, side_rows in zip(sides, rows, strict=True):
        for label, row in side_rows.items():
            if row["errors"]:
                failed = True
                print(f"  {side.name}, {label}: wrk reported {row['errors']}")
    print(
        "ratio: requests per second over the baseline's (bare; the anonymous home over the"
        " anonymous bare page). CPU ms/req: gunicorn workers plus their PostgreSQL backends."
        " CPU ratio (CPU r): the baseline's CPU ms/req over the page's, the same ratio as the"
        " CPU sees it (steadier on a shared machine)."
    )
    if len(sides) == 2:
        print("B/A CPU: B's CPU ms per request over A's (under 1: B is cheaper).")
    return 1 if failed else 0


# -- Moves (this checkout only; the script's own client) -----------------------------------------


def measure_moves(side: Side, seeded: dict, threads: int, seconds: float, rounds: int) -> None:
    """An htmx move POST by the seat to move of games of its own per client thread, through the
    whole move pipeline, answered with the fresh play area (a pass when there is one)."""
    import django

    os.environ.update(_env(side))
    django.setup()
    from django.db import connection

    from games import engine
    from games.models import Game, Seat

    games, lock = list(seeded["move_games"]), threading.Lock()
    playing = [games.pop() for _ in range(threads)]  # each thread's game, kept between rounds
    sessions = {int(pk): cookie for pk, cookie in seeded["players"].items()}
    totals = {"requests": 0, "seconds": 0.0, "cpu": 0.0, "failures": []}

    def play(index, deadline, https):
        count, failures = 0, []
        seats = {}
        while time.monotonic() < deadline:
            game_id = playing[index]
            if not seats:
                seats = dict(
                    Seat.objects.filter(game_id=game_id).values_list("position", "user_id")
                )
            version, to_move, snapshot = Game.objects.values_list(
                "version", "to_move", "snapshot"
            ).get(pk=game_id)
            if to_move is None:  # finished: take a fresh game
                with lock:
                    playing[index], seats = games.pop(), {}
                continue
            state = engine.State.from_json(snapshot)
            legal = engine.legal_moves(state, str(to_move))
            move = next((m for m in legal if m["move"] == "pass"), legal[0])
            fields = harness.move_fields(move, state.hands[to_move])
            fields.update(version=version, key=secrets.token_hex(8))
            status, _, _ = https[seats[to_move]].request(
                "POST", f"/games/{game_id}/move/", fields=fields, htmx=True
            )
            count += 1
            if status != 200:
                failures.append(status)
        connection.close()
        return count, failures

    for _ in range(rounds):
        results: list = [None] * threads
        https = [
            {pk: harness.Http(side.server.port, cookie) for pk, cookie in sessions.items()}
            for _ in range(threads)
        ]
        before, began = side.server.cpu(), time.monotonic()
        deadline = began + seconds
        pool = [
            threading.Thread(target=_into, args=(results, i, play, i, deadline, https[i]))
            for i in range(threads)
        ]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        totals["seconds"] += time.monotonic() - began
        totals["cpu"] += harness.cpu_used(before, side.server.cpu())
        for count, failures in results:
            totals["requests"] += count
            totals["failures"] += failures
        for connections in https:
            for http in connections.values():
                http.close()
    rps = totals["requests"] / totals["seconds"]
    cpu_ms = totals["cpu"] * 1000 / max(totals["requests"], 1)
    print(f"move (htmx POST, {threads} client threads): {rps:.0f} req/s, {cpu_ms:.2f} CPU ms/req")
    if totals["failures"]:
        print(f"  unexpected statuses: {sorted(set(totals['failures']))}")


def _into(results: list, index: int, work, *args) -> None:
    results[index] = work(*args)


# -- Running it ----------------------------------------------------------------------------------


def _git(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    command = ["git", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=check)  # noqa: S603, S607


def _commit(name: str) -> str:
    try:
        return _git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").stdout.strip()
    except subprocess.CalledProcessError:
        raise SystemExit(f"--compare: {name!r} is not a commit of this repository") from None


@contextlib.contextmanager
def worktree(folder: Path, commit: str):
    _git("worktree", "add", "--detach", "--quiet", str(folder), commit)
    try:
        yield folder
    finally:
        _git("worktree", "remove", "--force", str(folder), check=False)


@contextlib.contextmanager
def side_database(side: Side):
    """A database of the run's own, dropped on the way out."""
    try:
        yield
    finally:
        with harness.postgres() as conn:
            name = harness.database_name(side.database_url)
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _raise_on_sigterm(signum, frame):
    raise KeyboardInterrupt  # so that every ``finally`` cleans up, as on Ctrl-C


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two commits side by side")
    parser.add_argument("--seconds", type=float, default=4.0, help="per page, side and round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of every page")
    parser.add_argument("--worker-class", choices=["sync", "gthread"], default="gthread")
    parser.add_argument("--worker-threads", type=int, default=2, help="threads per gthread worker")
    parser.add_argument("--only", help="measure only the pages whose label contains this text")
    parser.add_argument(
        "--moves", action="store_true", help="also an htmx move POST (no --compare)"
    )
    parser.add_argument("--threads", type=int, default=6, help="client threads of --moves")
    parser.add_argument("--seed-only", metavar="JSON", help=argparse.SUPPRESS)
    parser.add_argument("--move-games", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.seed_only:  # the seeding process of one side (seed_side): that side's code
        site = Path(os.environ.get("BENCH_SITE", str(ROOT)))
        sys.path.insert(0, str(site))
        harness.setup_django()
        import games

        if not Path(games.__file__).is_relative_to(site):  # not the editable install's
            raise SystemExit(f"the seed would run {games.__file__}, not {site}'s code")
        Path(args.seed_only).write_text(json.dumps(seed(move_games=args.move_games)))
        return 0
    if shutil.which("wrk") is None:
        print(WRK_MISSING, file=sys.stderr)
        return 2
    if args.compare and args.moves:
        parser.error("--moves measures this checkout only; leave out --compare")
    if args.only and not any(args.only in page.label for page in PAGES):
        parser.error(f"--only: no page's name holds {args.only!r}: {[p.label for p in PAGES]}")
    signal.signal(signal.SIGTERM, _raise_on_sigterm)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="saboteur-bench-")))
        if args.compare:
            sides = []
            for name, commit in zip("AB", map(_commit, args.compare), strict=True):
                site = stack.enter_context(worktree(folder / name, commit))
                # Of this run alone (two runs at once must not drop each other's).
                base = harness.database_name(harness.DATABASE_URL)
                database = f"{base}_{os.getpid()}_{name.lower()}"
                side = Side(name, site, _url_for(database), commit=commit)
                stack.enter_context(side_database(side))
                sides.append(side)
            a, b = sides
            # Seeded with the older commit's code, migrated forward for the other.
            older = b if _is_ancestor(b.commit, a.commit) and a.commit != b.commit else a
            newer = b if older is a else a
            for side in sides:
                subject = _git("log", "-1", "--format=%s", side.commit).stdout.strip()
                print(f"{side.name}: {side.commit[:10]} {subject[:70]}")
        else:
            older = Side(
                "this checkout", ROOT, harness.DATABASE_URL, commit=_git("rev-parse", "HEAD")
            )
            sides, newer = [older], None
        move_games = args.threads * 3 if args.moves else 0  # spares for games that end
        print(f"seeding with {older.name}'s code ...")
        seeded = seed_side(older, move_games=move_games, folder=folder)
        if newer is not None:
            print(f"copying the database for {newer.name} and migrating it with its code ...")
            copy_side(older, newer)
        for side in sides:
            empty_cache(side)
        print(
            f"the game: {seeded['version']} moves, round {seeded['round']}; wrk: {CONNECTIONS}"
            f" connections; gunicorn: 2 {args.worker_class} workers"
            + (f" x {args.worker_threads} threads" if args.worker_class == "gthread" else "")
            + f" per side; {args.rounds} rounds x {args.seconds:g} s per page and side"
            + f"; {os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.1f}"
        )
        for side in sides:
            side.started = stack.enter_context(
                harness.gunicorn(
                    worker_class=args.worker_class,
                    threads=args.worker_threads,
                    site=side.site,
                    database_url=side.database_url,
                    extra_env=SERVER_ENV,
                    # How Server.cpu finds its backends: of this run and side alone.
                    app_name=f"saboteur-bench-{os.getpid()}-{side.name.split()[0].lower()}",
                )  # fmt: skip
            )
        pages = [t for t in targets(seeded) if _measured(t.page, args.only)]
        for side in sides:
            for target in pages:
                check(side, target)
                wrk(side.server.port, target, 1)  # warms both workers' caches
        run_rounds(sides, pages, args.rounds, args.seconds)
        for side in sides:
            for target in pages:
                check(side, target)  # the sessions held to the end
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        PAGES[:] = [page for page in PAGES if page.label in {t.page.label for t in pages}]
        failed = report(sides)
        if args.moves:
            measure_moves(older, seeded, args.threads, args.seconds, args.rounds)
    return failed


def _measured(page: Page, only: str | None) -> bool:
    """``--only``: the pages asked for, and the rows they are compared with."""
    if not only:
        return True
    wanted = [p for p in PAGES if only in p.label]
    return page in wanted or any(page.label == p.baseline for p in wanted)


def _is_ancestor(older: str, newer: str) -> bool:
    return _git("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: servers, worktrees and databases removed", file=sys.stderr)
        sys.exit(130)
