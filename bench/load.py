"""Load script (not a test): ``.venv/bin/python bench/load.py [--seconds 60] [--games 10]``.

Starts gunicorn (2 workers) on a free loopback port against the dedicated PostgreSQL database
``saboteur_bench`` (emptied first) and plays many games at once through HTTP for a bounded time.
Each table of players (default 10 tables of 4) creates its game, joins and starts it through the
site's forms; then every player is a thread with its own logged-in session that polls
``/games/<pk>/poll/?v=<revision>`` and, when the game changed and it is its decision, posts a
random legal move (htmx), sometimes twice at once with the same idempotency key (a double click),
and now and then a chat line. When a game ends, the table starts another.

The players cheat in one way, for simplicity: they learn whose decision it is and their legal
moves from the database (the engine's ``legal_moves`` on the snapshot), not by parsing the page.
Everything they do goes through HTTP.

At the end it checks the database and exits non-zero on any violation:

- per game, move sequence numbers are unique and gapless 1..N and ``Game.version`` is N;
- ``engine.replay(config, moves)`` equals the snapshot;
- the moves in the log are exactly those the players were told were made (idempotency keys);
- no 5xx answer, no refused legal move, no transport error.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import secrets
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness  # noqa: E402

REVISION = re.compile(r"/poll/\?v=(\d+)")
GAME_URL = re.compile(r"/games/(\d+)/$")


class Stats:
    """What the players saw, collected from all threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: dict[str, Counter] = defaultdict(Counter)
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.violations: list[str] = []
        self.acknowledged: dict[int, set[str]] = defaultdict(set)  # game -> keys answered 200
        self.double_clicks = 0

    def record(self, kind: str, status: int, seconds: float) -> None:
        with self.lock:
            self.statuses[kind][status] += 1
            self.latencies[kind].append(seconds)
            if status >= 500:
                self.violations.append(f"{kind}: HTTP {status}")

    def violation(self, text: str) -> None:
        with self.lock:
            self.violations.append(text)


class Player:
    def __init__(self, table, index, user, session, port, stats, deadline, args):
        self.table, self.index, self.user = table, index, user
        self.session, self.port, self.stats = session, port, stats
        self.deadline, self.args = deadline, args
        self.http = harness.Http(port, session)
        self.rng = random.Random(f"{args.seed}-{table.number}-{index}")  # noqa: S311 - not secret

    def request(self, kind, method, path, *, fields=None, htmx=False, http=None):
        began = time.perf_counter()
        try:
            status, response, body = (http or self.http).request(
                method, path, fields=fields, htmx=htmx
            )
        except OSError as error:
            self.stats.violation(f"{kind}: transport error {error!r}")
            return 0, None, b""
        self.stats.record(kind, status, time.perf_counter() - began)
        return status, response, body

    def expect(self, kind, status, wanted):
        if status != wanted and status < 500 and status != 0:
            self.stats.violation(f"{kind}: HTTP {status}, expected {wanted}")

    def time_left(self) -> float:
        return self.deadline - time.monotonic()

    def run(self) -> None:
        from django.db import connection

        try:
            while self.time_left() > 0:
                game_id = self.lobby()
                if game_id is None:
                    break
                self.play(game_id)
        except Exception as error:  # a crash of the script itself is a violation too
            self.stats.violation(f"player thread crashed: {error!r}")
            raise
        finally:
            self.table.barrier.abort()  # nobody waits for a player who left
            self.http.close()
            connection.close()

    def meet(self) -> bool:
        try:
            self.table.barrier.wait(timeout=max(self.time_left(), 0) + 5)
            return True
        except threading.BrokenBarrierError:
            return False

    def table_fields(self, name: str) -> dict:
        """The new-game form for this player's table: an open base game, two days a turn."""
        return {
            "name": name,
            "ruleset": "base",
            "max_seats": len(self.table.players),
            "visibility": "open",
            "turn_limit": str(2 * 24 * 3600),
        }

    def lobby(self) -> int | None:
        """Create (first player), join (the others) and start a game through the site's forms."""
        if self.index == 0:
            fields = self.table_fields(f"Load table {self.table.number}")
            status, response, _ = self.request("create", "POST", "/games/new/", fields=fields)
            self.expect("create", status, 302)
            match = GAME_URL.search(response.getheader("Location", "")) if response else None
            self.table.game_id = int(match.group(1)) if match else None
            if self.table.game_id is None:
                self.table.barrier.abort()
        if not self.meet():
            return None
        game_id = self.table.game_id
        if self.index != 0:
            status, _, _ = self.request("join", "POST", f"/games/{game_id}/join/")
            self.expect("join", status, 302)
        if not self.meet():
            return None
        if self.index == 0:
            status, _, _ = self.request("start", "POST", f"/games/{game_id}/start/")
            self.expect("start", status, 302)
            self.table.started += 1
        if not self.meet():
            return None
        return game_id

    def play(self, game_id: int) -> None:
        from games.models import Game, Seat

        position = Seat.objects.get(game_id=game_id, user=self.user).position
        status, _, body = self.request("page", "GET", f"/games/{game_id}/")
        self.expect("page", status, 200)
        revision = self.revision(body, -1)
        check = True
        while self.time_left() > 0:
            if check:
                game = Game.objects.only("status", "to_move", "version", "snapshot").get(pk=game_id)
                if game.status != Game.Status.RUNNING:
                    return
                if game.to_move == position:
                    revision = self.move(game, position, revision)
                    continue
                check = False
            status, _, body = self.request(
                "poll", "GET", f"/games/{game_id}/poll/?v={revision}", htmx=True
            )
            if status == 204:
                if self.rng.random() < self.args.chat:
                    status, _, _ = self.request(
                        "chat", "POST", f"/games/{game_id}/chat/", fields={"text": "Hi!"},
                        htmx=True,
                    )  # fmt: skip
                    self.expect("chat", status, 200)
                time.sleep(self.args.poll_interval * self.rng.uniform(0.5, 1.5))
            elif status == 200:
                revision = self.revision(body, revision)
                check = True
            else:
                self.expect("poll", status, 204)
                time.sleep(self.args.poll_interval)

    def move(self, game, position: int, revision: int) -> int:
        from games import engine

        state = engine.State.from_json(game.snapshot)
        move = self.rng.choice(engine.legal_moves(state, str(position)))
        fields = harness.move_fields(move, state.hands[position])
        key = secrets.token_hex(8)
        fields.update(version=game.version, key=key)
        path = f"/games/{game.pk}/move/"
        twin = None
        if self.rng.random() < self.args.double_click:
            twin = threading.Thread(target=self.twin_post, args=(path, fields, game.pk))
            twin.start()
        status, _, body = self.request("move", "POST", path, fields=fields, htmx=True)
        if twin is not None:
            twin.join()
        if status == 200:
            with self.stats.lock:
                self.stats.acknowledged[game.pk].add(key)
        else:
            self.expect("move", status, 200)
            if status != 0:
                self.stats.violation(f"legal move refused in game {game.pk}: {move}")
            time.sleep(0.1)
        return self.revision(body, revision)

    def twin_post(self, path, fields, game_id) -> None:
        """The same move again at the same moment: one applied, both answered 200."""
        http = harness.Http(self.port, self.session)
        status, _, _ = self.request("move (double click)", "POST", path, fields=fields,
                                    htmx=True, http=http)  # fmt: skip
        http.close()
        with self.stats.lock:
            self.stats.double_clicks += 1
            if status == 200:
                self.stats.acknowledged[game_id].add(fields["key"])
        self.expect("move (double click)", status, 200)

    @staticmethod
    def revision(body: bytes, default: int) -> int:
        match = REVISION.search(body.decode(errors="replace"))
        return int(match.group(1)) if match else default


class Table:
    def __init__(self, number: int, players: int):
        self.number = number
        self.barrier = threading.Barrier(players)
        self.players: list[Player] = []
        self.game_id: int | None = None
        self.started = 0


def check_database(stats: Stats) -> dict:
    """The invariants of every game in the database; violations go to ``stats``."""
    from games import engine
    from games.models import Game, Move

    summary = Counter()
    for game in Game.objects.order_by("pk"):
        summary[game.status] += 1
        moves = list(Move.objects.filter(game=game).select_related("seat").order_by("sequence"))
        summary["moves"] += len(moves)
        sequences = [m.sequence for m in moves]
        if sequences != list(range(1, len(moves) + 1)):
            stats.violation(f"game {game.pk}: move numbers are not 1..{len(moves)}")
        if game.version != len(moves):
            stats.violation(f"game {game.pk}: version {game.version} but {len(moves)} moves")
        # A bot's moves (practice games) are nobody's HTTP request: the players' own are checked.
        keys = {m.idempotency_key for m in moves if not m.automatic and m.seat.bot is None}
        if keys != stats.acknowledged.get(game.pk, set()):
            told = stats.acknowledged.get(game.pk, set())
            stats.violation(
                f"game {game.pk}: {len(told - keys)} acknowledged moves missing from the log, "
                f"{len(keys - told)} moves in the log nobody was told about"
            )
        if game.snapshot is None:
            if moves:
                stats.violation(f"game {game.pk}: moves but no snapshot")
            continue
        state = engine.State.from_json(game.snapshot)
        replayed = engine.replay(state.config, [(m.seat.engine_name, m.payload) for m in moves])
        if replayed != state or replayed.to_json() != game.snapshot:
            stats.violation(f"game {game.pk}: replaying its moves does not give its snapshot")
        if state.finished != (game.status == Game.Status.FINISHED):
            stats.violation(f"game {game.pk}: status {game.status} but finished={state.finished}")
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the players play")
    parser.add_argument("--games", type=int, default=10, help="tables playing at once")
    parser.add_argument("--players", type=int, default=4, help="players per table (3 to 10)")
    parser.add_argument("--poll-interval", type=float, default=0.25, help="seconds (mean)")
    parser.add_argument("--double-click", type=float, default=0.05, help="moves sent twice")
    parser.add_argument("--chat", type=float, default=0.01, help="chance per idle poll to chat")
    parser.add_argument("--worker-class", choices=["sync", "gthread"], default="gthread")
    parser.add_argument("--worker-threads", type=int, default=2, help="threads per gthread worker")
    parser.add_argument("--seed", default="load", help="seeds the players' choices")
    args = parser.parse_args()

    harness.setup_django()
    from django.db import connection

    tables = [Table(n, args.players) for n in range(args.games)]
    users = {}
    for table in tables:
        for index in range(args.players):
            user = harness.make_user(f"t{table.number}p{index}")
            users[(table.number, index)] = (user, harness.session_cookie(user))
    connection.close()  # the players open their own connections
    stats = Stats()
    print(
        f"{args.games} tables of {args.players} players for {args.seconds:g} s; gunicorn: 2 "
        f"{args.worker_class} workers; load average before: {os.getloadavg()[0]:.1f}"
    )
    with harness.gunicorn(worker_class=args.worker_class, threads=args.worker_threads) as server:
        began = time.monotonic()
        deadline = began + args.seconds
        threads = []
        for table in tables:
            for index in range(args.players):
                user, session = users[(table.number, index)]
                player = Player(table, index, user, session, server.port, stats, deadline, args)
                table.players.append(player)
        for table in tables:
            for player in table.players:
                thread = threading.Thread(target=player.run, daemon=True)
                thread.start()
                threads.append(thread)
        for thread in threads:
            thread.join(timeout=max(deadline - time.monotonic(), 0) + 60)
            if thread.is_alive():
                stats.violation("a player thread did not finish in time")
        elapsed = time.monotonic() - began
    summary = check_database(stats)
    return report(args, stats, summary, elapsed)


def report(args, stats: Stats, summary: Counter, elapsed: float) -> int:
    print(f"played {elapsed:.1f} s; load average after: {os.getloadavg()[0]:.1f}")
    print(
        f"games: {summary['running']} running, {summary['finished']} finished, "
        f"{summary['lobby']} still in the lobby; {summary['moves']} moves in the log "
        f"({summary['moves'] / elapsed:.1f} moves/s); {stats.double_clicks} double clicks"
    )
    print(f"{'request':<22}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}  statuses")
    total = 0
    for kind in sorted(stats.statuses):
        latencies = sorted(stats.latencies[kind])
        count = len(latencies)
        total += count
        p95 = latencies[min(count - 1, int(0.95 * count))] * 1000
        statuses = ", ".join(f"{s}: {n}" for s, n in sorted(stats.statuses[kind].items()))
        print(f"{kind:<22}{count:>7}{statistics.median(latencies) * 1000:>9.1f}{p95:>9.1f}"
              f"  {statuses}")  # fmt: skip
    print(f"{total} requests, {total / elapsed:.0f} per second")
    if stats.violations:
        print(f"VIOLATIONS ({len(stats.violations)}):")
        for text in stats.violations[:50]:
            print(f"  {text}")
        return 1
    print("checks: move numbers 1..N, version = N, replay = snapshot, acknowledged moves = log, "
          "no 5xx: all passed")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
