"""Web benchmark (not a test): ``.venv/bin/python bench/web.py``.

Starts gunicorn (2 gthread workers of 2 threads; ``--worker-class sync`` to compare) on a free
loopback port against a dedicated PostgreSQL database
(``saboteur_bench``, emptied and seeded by this script), then measures requests per second, with
logged-in sessions and a few client threads, for:

- ``bare``: a view returning "ok" (``bench/bench_site.py``, only in the bench URLconf): the cost
  of Django, the middleware and the session alone; the baseline of the ratios;
- ``poll``: ``/games/<pk>/poll/?v=<revision>`` while nothing changed (204);
- ``lobby``: ``/games/``, the open games (20 lobbies waiting for players) and the creation form;
- ``page``: the game page ``/games/<pk>/`` of a game 60 moves in, for the seat to move (legal
  moves, hand) and for a waiting seat;
- ``move``: an htmx ``POST /games/<pk>/move/`` of a legal move (a pass when there is one), by the
  seat to move, answered with the fresh play area. Each client thread plays its own game; the
  version, whose turn and the mover's hand are read from the database between requests.

- ``replay step``: ``/games/<pk>/replay/?step=<n>`` of a finished 12-player, 3-round Saboteur 2
  game (every hand and role revealed), a step in the middle, for one of its players;
- ``recap``: ``/games/<pk>/rounds/2/``, the recap of that game's second round.

Then (``--live-pages``, 50 by default) uvicorn serves that many live streams of the game page's
game, and the cost of the idle open pages is printed (memory, threads, CPU per page and minute,
connections; ``bench/live.py`` has the details and the delays).

Goals: poll at least 0.5 of bare, lobby at least 0.4, the game page at least 0.2, replay step
and recap at least 0.15 of bare. See docs/web-performance.md.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness  # noqa: E402

GOALS = {
    "poll": 0.5,
    "lobby": 0.4,
    "page (seat to move)": 0.2,
    "page (waiting seat)": 0.2,
    "replay step": 0.15,
    "recap": 0.15,
}
LOBBIES = 20


def seed(threads: int):
    """Four players, one game 60 moves in for the page and poll, one fresh game per thread."""
    from games import engine
    from games.play import lobby as play_lobby
    from games.play import moves as play_moves

    users = [harness.make_user(name) for name in ("ann", "bob", "cid", "dan")]

    creators = iter(range(10**6))

    def started():
        # Creators take turns: a player may create 10 games an hour.
        creator = users[next(creators) % 4]
        game = play_lobby.game_create(creator=creator, name="Bench", ruleset="base", max_seats=4)
        for user in users:
            if user != creator:
                play_lobby.seat_join(game_id=game.pk, user=user)
        return play_lobby.game_start(game_id=game.pk, user=creator)

    page_game = started()
    rng = random.Random(7)  # noqa: S311 - a benchmark's reproducible choices
    for _ in range(60):  # a 60-move game: cards in the maze, a long move log, smaller hands
        page_game.refresh_from_db()
        seat = page_game.seats.get(position=page_game.to_move)
        state = engine.State.from_json(page_game.snapshot)
        move = rng.choice(engine.legal_moves(state, seat.engine_name))
        play_moves.move_submit(
            game_id=page_game.pk, user=seat.user, move=move, expected_version=page_game.version
        )
    page_game.refresh_from_db()
    for n in range(LOBBIES):  # open games waiting for players, for the lobby page
        lobby = play_lobby.game_create(
            creator=users[n % 4], name=f"Open table {n}", ruleset="base", max_seats=5
        )
        play_lobby.seat_join(game_id=lobby.pk, user=users[(n + 1) % 4])
    move_games = [started() for _ in range(threads * 2)]
    long_game, long_users = played_to_the_end(rng)
    sessions = {user.pk: harness.session_cookie(user) for user in users + long_users}
    return users, page_game, move_games, sessions, long_game, long_users


def played_to_the_end(rng):
    """A 12-player, 3-round Saboteur 2 game played to its end through the services."""
    from games import engine
    from games.play import lobby as play_lobby
    from games.play import moves as play_moves

    users = [harness.make_user(f"long{i}") for i in range(12)]
    game = play_lobby.game_create(creator=users[0], name="Long", ruleset="saboteur2", max_seats=12)
    for user in users[1:]:
        play_lobby.seat_join(game_id=game.pk, user=user)
    game = play_lobby.game_start(game_id=game.pk, user=users[0])
    seats = {s.position: s.user for s in game.seats.all()}
    while game.to_move is not None:
        state = engine.State.from_json(game.snapshot)
        legal = engine.legal_moves(state, str(game.to_move))
        places = [m for m in legal if m["move"] == "place"]
        move = rng.choice(places if places and rng.random() < 0.7 else legal)
        play_moves.move_submit(
            game_id=game.pk, user=seats[game.to_move], move=move, expected_version=game.version
        )
        game.refresh_from_db()
    return game, users


def run(threads: int, seconds: float, make_worker):
    """Run ``threads`` workers for ``seconds``; each returns (count, latencies, failures)."""
    results = [None] * threads
    start_line = threading.Barrier(threads + 1)

    def body(index):
        work = make_worker(index)
        start_line.wait()
        results[index] = work(time.monotonic() + seconds)

    pool = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    start_line.wait()
    began = time.monotonic()
    for thread in pool:
        thread.join()
    elapsed = time.monotonic() - began
    return {
        "requests": sum(r[0] for r in results),
        "seconds": elapsed,
        "latencies": [x for r in results for x in r[1]],
        "failures": [x for r in results for x in r[2]],
    }


def _percentile(values, q):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def getter(port, path, session_for, expected):
    def make(index):
        http = harness.Http(port, session_for(index))

        def work(deadline):
            count, latencies, failures = 0, [], []
            while time.monotonic() < deadline:
                began = time.perf_counter()
                status, _, _ = http.request("GET", path)
                latencies.append(time.perf_counter() - began)
                count += 1
                if status != expected:
                    failures.append(status)
            http.close()
            return count, latencies, failures

        return work

    return make


def mover(port, games, sessions, spare_games, lock):
    """Each thread plays its own game: a pass (or another legal move) by whoever is to move."""
    from django.db import connection

    from games import engine
    from games.models import Game, Seat

    def make(index):
        https = {pk: harness.Http(port, session) for pk, session in sessions.items()}
        game_id = games[index].pk

        def work(deadline):
            nonlocal game_id
            count, latencies, failures = 0, [], []
            seats = dict(Seat.objects.filter(game_id=game_id).values_list("position", "user_id"))
            while time.monotonic() < deadline:
                version, to_move, snapshot = Game.objects.values_list(
                    "version", "to_move", "snapshot"
                ).get(pk=game_id)
                if to_move is None:  # finished: take a fresh game
                    with lock:
                        game_id = spare_games.pop().pk
                    seats = dict(
                        Seat.objects.filter(game_id=game_id).values_list("position", "user_id")
                    )
                    continue
                state = engine.State.from_json(snapshot)
                seat = str(to_move)
                legal = engine.legal_moves(state, seat)
                passes = [m for m in legal if m["move"] == "pass"]
                move = passes[0] if passes else legal[0]
                fields = harness.move_fields(move, state.hands[to_move])
                fields.update(version=version, key=secrets.token_hex(8))
                began = time.perf_counter()
                status, _, _ = https[seats[to_move]].request(
                    "POST", f"/games/{game_id}/move/", fields=fields, htmx=True
                )
                latencies.append(time.perf_counter() - began)
                count += 1
                if status != 200:
                    failures.append(status)
            for http in https.values():
                http.close()
            connection.close()
            return count, latencies, failures

        return work

    return make


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per measurement and round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of all measurements")
    parser.add_argument("--threads", type=int, default=6, help="client threads")
    parser.add_argument("--worker-class", choices=["sync", "gthread"], default="gthread")
    parser.add_argument("--worker-threads", type=int, default=2, help="threads per gthread worker")
    parser.add_argument(
        "--live-pages", type=int, default=50, help="open live streams for the idle cost (0: none)"
    )
    parser.add_argument("--live-idle", type=float, default=15.0, help="seconds of idle streams")
    args = parser.parse_args()

    harness.setup_django()
    users, page_game, move_games, sessions, long_game, long_users = seed(args.threads)
    to_move_user = page_game.seats.get(position=page_game.to_move).user_id
    waiting_user = next(u.pk for u in users if u.pk != to_move_user)
    game_path = f"/games/{page_game.pk}/"
    poll_path = f"{game_path}poll/?v={page_game.revision}"
    gets = {
        "bare": ("/bare/", lambda i: sessions[users[0].pk], 200),
        "bare (anonymous)": ("/bare/", lambda i: None, 200),
        "poll": (poll_path, lambda i: sessions[users[i % 4].pk], 204),
        "lobby": ("/games/", lambda i: sessions[users[i % 4].pk], 200),
        "page (seat to move)": (game_path, lambda i: sessions[to_move_user], 200),
        "page (waiting seat)": (game_path, lambda i: sessions[waiting_user], 200),
        "replay step": (
            f"/games/{long_game.pk}/replay/?step={long_game.version // 2}",
            lambda i: sessions[long_users[i % 12].pk],
            200,
        ),
        "recap": (
            f"/games/{long_game.pk}/rounds/2/",
            lambda i: sessions[long_users[i % 12].pk],
            200,
        ),
    }
    labels = [*gets, "move (htmx POST)"]

    print(
        f"gunicorn: 2 {args.worker_class} workers"
        + (f" x {args.worker_threads} threads" if args.worker_class == "gthread" else "")
        + f"; {args.threads} client threads; {args.rounds} x {args.seconds:g} s per measurement"
        + f"; load average before: {os.getloadavg()[0]:.1f}"
    )
    totals = {
        label: {"requests": 0, "seconds": 0.0, "cpu": 0.0, "latencies": [], "failures": []}
        for label in labels
    }
    spare, lock = move_games[args.threads :], threading.Lock()
    with harness.gunicorn(worker_class=args.worker_class, threads=args.worker_threads) as server:
        for path, session_for, expected in gets.values():  # warm up every worker
            run(args.threads, 0.5, getter(server.port, path, session_for, expected))
        for _ in range(args.rounds):  # interleaved, so drifting background load hits all alike
            for label in labels:
                if label in gets:
                    maker = getter(server.port, *gets[label])
                else:
                    maker = mover(server.port, move_games, sessions, spare, lock)
                before = server.cpu()
                result = run(args.threads, args.seconds, maker)
                total = totals[label]
                total["cpu"] += harness.cpu_used(before, server.cpu())
                for key in ("requests", "seconds", "latencies", "failures"):
                    total[key] += result[key]
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    failed = report(totals)
    if args.live_pages:
        live_idle_cost(page_game, [sessions[users[i % 4].pk] for i in range(args.live_pages)], args)
    return failed


def live_idle_cost(game, sessions, args) -> None:
    """What open game pages cost while nothing happens: one live stream each, served by uvicorn
    as in production (``bench/live.py`` measures the delays as well)."""
    from bench import live

    loop = live.Loop()
    try:
        with harness.uvicorn(extra_env={"DATABASE_POOL": "1"}) as server:
            pages, idle = live.open_pages(loop, server, game.pk, sessions, args.live_idle)
    finally:
        loop.stop()
    if idle is not None:
        print(f"live channel: {len(sessions)} open pages of the game page's game, uvicorn")
        live.print_idle(idle)


def report(totals) -> int:
    for total in totals.values():
        total["rps"] = total["requests"] / total["seconds"]
        total["cpu_ms"] = total["cpu"] * 1000 / max(total["requests"], 1)
    bare = totals["bare"]
    print(
        f"{'measurement':<22}{'req/s':>7}{'ratio':>7}{'p50 ms':>8}{'p95 ms':>8}"
        f"{'CPU ms/req':>12}{'CPU ratio':>11}  goal (req/s ratio)"
    )
    failed = False
    for label, total in totals.items():
        ratio = total["rps"] / bare["rps"]
        cpu_ratio = bare["cpu_ms"] / total["cpu_ms"] if total["cpu_ms"] else 0.0
        goal = GOALS.get(label)
        verdict = "" if goal is None else f">= {goal}: " + ("met" if ratio >= goal else "MISSED")
        print(
            f"{label:<22}{total['rps']:>7.0f}{ratio:>7.2f}"
            f"{statistics.median(total['latencies']) * 1000:>8.1f}"
            f"{_percentile(total['latencies'], 0.95) * 1000:>8.1f}"
            f"{total['cpu_ms']:>12.2f}{cpu_ratio:>11.2f}  {verdict}"
        )
        if total["failures"]:
            failed = True
            statuses = sorted(set(total["failures"]))
            print(f"  unexpected statuses: {statuses} x{len(total['failures'])}")
    print("CPU ms/req: gunicorn workers plus their PostgreSQL backends; CPU ratio: bare / row.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
