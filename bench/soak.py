"""Soak script (not a test): a long session against a running ``make run`` (issue 35, point 2).

    # in the tree whose `make run` is being soaked (bots as fast as the worker allows):
    BOT_MOVE_DELAY=0 RUN_ADDR=127.0.0.1:8765 make run
    .venv/bin/python bench/soak.py --root . --port 8765 --minutes 45

Players play through HTTP, as people do: ``--practice`` players (default 4) each play practice
games against 2 to 6 bots one after another (the lobby's "Practice against bots" form, random
rule set and length), and ``--tables`` human tables (default 1) of four players play games
among themselves (created, joined and started through the forms). The players are
``bench/load.py``'s: a logged-in session each, ``/poll/`` for changes, a random legal move as
soon as it is their decision (they read their legal moves from the database, as in load.py).
The bots are the site's: the worker of ``make run`` plays their moves.

``--kill-worker-every N`` kills the worker (SIGKILL) every N minutes, to exercise run.sh's
restarts under load; the moves it held are replayed by beat's minute sweep.

At the end it checks, and exits non-zero if any check fails:

- every game: move numbers 1..N, version N, replaying its moves gives its snapshot, finished
  exactly when the engine says so, and the players' moves in the log are those they were told
  were made (``bench/load.py``'s ``check_database``);
- no 5xx answer, no transport error, no refused legal move;
- no process lost: runserver still answers, the worker still plays bots (once the players stop,
  every practice game's bots play on to a person's turn within three minutes; the games are
  checked after that, when nothing writes to them), and the worker log shows no death but the
  ones this script caused (restarts counted from run.sh's lines), no unrecoverable error;

and prints the figures: games, moves (bots' and players'), duration, the play it stands for at
the site's normal pace, worker restarts, errors.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness  # noqa: E402
from bench.load import GAME_URL, Player, Stats, Table, check_database, report  # noqa: E402

# The pace of a person's session that the compressed one stands for: the site's default delay
# before a bot moves (BOT_MOVE_DELAY, 3 s, plus about a second for the worker and the page), and
# ten seconds for a person to choose a card.
BOT_MOVE_SECONDS = 4.0
PERSON_MOVE_SECONDS = 10.0


def run_mode_env(root: Path) -> dict:
    """The environment scripts/lib.sh gives `make run` in ``root`` (its database, broker...)."""
    out = subprocess.run(
        ["/bin/bash", "-c", "source scripts/lib.sh && run_mode_env && env -0"],
        cwd=root, capture_output=True, check=True, timeout=30,
        env={k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
    ).stdout.decode()  # fmt: skip
    exported = dict(item.split("=", 1) for item in out.split("\0") if "=" in item)
    keys = ("DJANGO_ENV", "DJANGO_DEBUG", "DATABASE_URL", "CELERY_BROKER_URL", "EMAIL_FILE_PATH")
    return {key: exported[key] for key in keys} | {"EMAIL_BACKEND": exported["EMAIL_BACKEND"]}


def setup_django(root: Path) -> None:
    os.environ.update(run_mode_env(root))
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")
    import django

    django.setup()


def rate_limited(status: int, body: bytes) -> bool:
    """The lobby's flood limit (10 games created per player and hour, games/play/lobby.py):
    a fast soak player meets it as a matter of course; it waits instead of failing."""
    return status == 422 and b"in the last hour" in body


class PracticePlayer(Player):
    """One person playing practice games against bots, one after another."""

    def lobby(self) -> int | None:
        from games.play.lobby import practice_bots_range

        while self.time_left() > 0:
            ruleset = self.rng.choice(["base", "saboteur2"])
            low, high = practice_bots_range(ruleset)
            fields = {
                "practice-ruleset": ruleset,
                "practice-bots": self.rng.randint(low, min(high, 6)),
                "practice-rounds": self.rng.choice([1, 2, 3]),
            }
            status, response, body = self.request(
                "practice", "POST", "/games/practice/", fields=fields
            )
            if rate_limited(status, body):
                time.sleep(min(30, max(self.time_left(), 0)))
                continue
            self.expect("practice", status, 302)
            match = GAME_URL.search(response.getheader("Location", "")) if response else None
            if match is not None:
                self.table.started += 1
                return int(match.group(1))
            time.sleep(1)
        return None


class TablePlayer(Player):
    """One of four people at a table; the one who creates and starts each game changes from game
    to game (each has the lobby's flood limit of 10 games an hour to themselves)."""

    def lobby(self) -> int | None:
        # Every player reads the same count here: it changed before the last barrier they met.
        creator = self.table.started % len(self.table.players)
        if self.index == creator:
            self.table.game_id = None
        while self.index == creator and self.time_left() > 0:
            fields = self.table_fields(f"Soak table {self.table.number}")
            status, response, body = self.request("create", "POST", "/games/new/", fields=fields)
            if rate_limited(status, body):
                time.sleep(min(30, max(self.time_left(), 0)))
                continue
            self.expect("create", status, 302)
            match = GAME_URL.search(response.getheader("Location", "")) if response else None
            self.table.game_id = int(match.group(1)) if match else None
            break
        if self.index == creator and self.table.game_id is None:
            self.table.barrier.abort()  # no game (refused, or out of time): the table stops
        if not self.meet():
            return None
        game_id = self.table.game_id
        if self.index != creator:
            status, _, _ = self.request("join", "POST", f"/games/{game_id}/join/")
            self.expect("join", status, 302)
        if not self.meet():
            return None
        if self.index == creator:
            status, _, _ = self.request("start", "POST", f"/games/{game_id}/start/")
            self.expect("start", status, 302)
            self.table.started += 1
        if not self.meet():
            return None
        return game_id


# -- The processes of `make run` -----------------------------------------------------------------


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def worker_pid(root: Path) -> int | None:
    """The Celery worker's main process of the `make run` in ``root`` (its pool's children and
    the embedded beat have it as their parent)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and "saboteur_site worker --beat" in _cmdline(entry.name):
            try:
                if Path(os.readlink(entry / "cwd")) != root:
                    continue
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            found[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    mains = [pid for pid, parent in found.items() if parent not in found]
    return mains[0] if len(mains) == 1 else None


def serves(port: int) -> bool:
    try:
        url = f"http://127.0.0.1:{port}/health/"
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - our own site
            return response.status == 200
    except OSError:
        return False


def killer(root: Path, every: float, deadline: float, kills: list, stop: threading.Event):
    """Kills the worker every ``every`` seconds until the deadline (to exercise restarts)."""
    while not stop.wait(every) and time.monotonic() < deadline:
        pid = worker_pid(root)
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            kills.append(pid)
            print(f"  killed the worker (pid {pid})", flush=True)


def log_figures(log: Path, start: int) -> Counter:
    """What the worker log says since byte ``start``: deaths, restarts, errors."""
    text = log.read_bytes()[start:].decode(errors="replace")
    figures = Counter()
    figures["exits"] = len(re.findall(r"run\.sh: the Celery worker \(pid \d+\) exited", text))
    figures["restarts"] = text.count("run.sh: the Celery worker restarted")
    figures["unrecoverable"] = text.count("Unrecoverable error")
    figures["json errors"] = text.count("JSONDecodeError")
    figures["error lines"] = len(re.findall(r"^\S+ \S+ (ERROR|CRITICAL) ", text, re.M))
    figures["tracebacks"] = text.count("Traceback (most recent call last)")
    figures["tasks"] = text.count(" succeeded in ")
    figures["pruned"] = sum(int(n) for n in re.findall(r"broker: (\d+) delivered messages", text))
    return figures


def bots_finish(timeout: float = 180) -> list[str]:
    """Waits until no running game has a bot to move: once the players stop, the bots of each
    practice game play on until a person's turn (or the end), and the worker is alive only if
    they do (beat's sweep replays a bot move a dead worker held, after a minute). The checks
    read the games after that, when nothing writes to them any more. Returns the games whose
    bots did not finish within ``timeout`` seconds."""
    from games.models import Game, Seat

    def waiting() -> list[int]:
        return [
            game.pk
            for game in Game.objects.filter(status=Game.Status.RUNNING)
            if Seat.objects.filter(game=game, position=game.to_move, bot__isnull=False).exists()
        ]

    deadline = time.monotonic() + timeout
    while (left := waiting()) and time.monotonic() < deadline:
        time.sleep(1)
    return [f"game {pk}: its bots did not reach a person's turn in {timeout:g} s" for pk in left]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("."), help="the tree of `make run`")
    parser.add_argument("--port", type=int, default=8000, help="RUN_ADDR's port")
    parser.add_argument("--minutes", type=float, default=30.0, help="how long they play")
    parser.add_argument("--practice", type=int, default=4, help="players against bots")
    parser.add_argument("--tables", type=int, default=1, help="tables of four people")
    parser.add_argument("--kill-worker-every", type=float, default=0.0, help="minutes; 0: never")
    parser.add_argument("--poll-interval", type=float, default=0.5, help="seconds (mean)")
    parser.add_argument("--seed", default="soak", help="seeds the players' choices")
    args = parser.parse_args()
    args.double_click, args.chat = 0.02, 0.01  # load.Player's habits
    root = args.root.resolve()
    setup_django(root)
    from django.db import connection

    from games.models import Game, Move

    if not serves(args.port):
        print(f"nothing answers on 127.0.0.1:{args.port}/health/: start `make run` first")
        return 2
    log = root / ".run" / "logs" / "celery.log"
    log_start = log.stat().st_size
    first_game = (Game.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1

    stats = Stats()
    # The players' moves of games already there (the demo game, an earlier soak) count as
    # acknowledged (the same moves check_database compares: not automatic, not a bot's).
    for game in Game.objects.all():
        moves = Move.objects.filter(game=game, automatic=False, seat__bot__isnull=True)
        stats.acknowledged[game.pk].update(moves.values_list("idempotency_key", flat=True))
    suffix = f"{int(time.time()) % 100000}"
    began = time.monotonic()
    deadline = began + args.minutes * 60
    tables, players = [], []
    for number in range(args.tables):
        table = Table(number, 4)
        tables.append(table)
        for index in range(4):
            user = harness.make_user(f"soak{suffix}t{number}p{index}")
            player = TablePlayer(
                table, index, user, harness.session_cookie(user), args.port, stats, deadline, args
            )
            table.players.append(player)
            players.append(player)
    practice_tables = []
    for number in range(args.practice):
        table = Table(1000 + number, 1)
        practice_tables.append(table)
        user = harness.make_user(f"soak{suffix}solo{number}")
        player = PracticePlayer(
            table, 0, user, harness.session_cookie(user), args.port, stats, deadline, args
        )
        player.rng = random.Random(f"{args.seed}-solo-{number}")  # noqa: S311 - not secret
        table.players.append(player)
        players.append(player)
    connection.close()
    print(
        f"soak of {root} on port {args.port}: {args.practice} practice players, {args.tables} "
        f"tables of four, {args.minutes:g} min; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )

    stop = threading.Event()
    kills: list[int] = []
    threads = [threading.Thread(target=p.run, daemon=True) for p in players]
    if args.kill_worker_every > 0:
        threads.append(
            threading.Thread(
                target=killer,
                args=(root, args.kill_worker_every * 60, deadline, kills, stop),
                daemon=True,
            )
        )
    for thread in threads:
        thread.start()
    while time.monotonic() < deadline:
        time.sleep(min(60, max(deadline - time.monotonic(), 0)))
        moves = Move.objects.filter(game__pk__gte=first_game).count()
        print(
            f"  {(time.monotonic() - began) / 60:5.1f} min: {moves} moves; load average "
            f"{os.getloadavg()[0]:.1f}",
            flush=True,
        )
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
        if thread.is_alive():
            stats.violation("a player thread did not finish in time")
    elapsed = time.monotonic() - began

    # No process lost: runserver answers, the worker still plays the bots' moves.
    if not serves(args.port):
        stats.violation("runserver does not answer /health/ any more")
    if worker_pid(root) is None:
        stats.violation("no Celery worker is running")
    for text in bots_finish():
        stats.violation(text)
    figures = log_figures(log, log_start)
    if figures["exits"] != len(kills):
        stats.violation(f"the worker died {figures['exits']} times, {len(kills)} of them killed")
    if figures["restarts"] != figures["exits"]:
        stats.violation(f"{figures['exits']} worker deaths but {figures['restarts']} restarts")
    for name in ("unrecoverable", "json errors"):
        if figures[name]:
            stats.violation(f"the worker log has {figures[name]} {name}")

    summary = check_database(stats)
    ours = Move.objects.filter(game__pk__gte=first_game)
    bot_moves = ours.filter(seat__bot__isnull=False).count()
    person_moves = ours.filter(seat__bot__isnull=True).count()
    games = Game.objects.filter(pk__gte=first_game)
    practice = games.filter(practice=True)
    standing_for = bot_moves * BOT_MOVE_SECONDS + person_moves * PERSON_MOVE_SECONDS
    print()
    print(
        f"games: {games.count()} ({practice.count()} practice, "
        f"{practice.filter(status=Game.Status.FINISHED).count()} of them finished; "
        f"{games.filter(practice=False).count()} human tables, "
        f"{games.filter(practice=False, status=Game.Status.FINISHED).count()} finished)"
    )
    print(
        f"moves: {bot_moves} by bots, {person_moves} by players, in {elapsed / 60:.1f} min "
        f"({bot_moves / elapsed:.2f} bot moves/s); at the site's pace ({BOT_MOVE_SECONDS:g} s a "
        f"bot move, {PERSON_MOVE_SECONDS:g} s a person's) that is {standing_for / 3600:.1f} h "
        "of play"
    )
    print(
        f"worker: {len(kills)} killed by the soak, {figures['exits']} exits, "
        f"{figures['restarts']} restarts; {figures['tasks']} tasks succeeded; "
        f"{figures['unrecoverable']} unrecoverable errors, {figures['json errors']} "
        f"JSONDecodeErrors, {figures['error lines']} ERROR lines, {figures['tracebacks']} "
        f"tracebacks; {figures['pruned']} delivered broker messages pruned"
    )
    return report(args, stats, summary, elapsed)


if __name__ == "__main__":
    sys.exit(main())
