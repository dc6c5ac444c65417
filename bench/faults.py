"""Faults survived (not a test of the main suite; loopback only): ``python bench/faults.py``.

Runs the production processes on this machine against servers of its own and breaks them in
the middle of play, one fault after another, checking after each that nothing was lost and
nothing doubled. ``docs/reliability.md`` says what it shows and holds its figures.

What runs (every process is started here and stopped on the way out; nothing else is touched):

- a PostgreSQL cluster of its own (``initdb`` into a temporary folder, a free port, run as the
  ``postgres`` system user when started as root) and a ``redis-server`` of its own (a free port,
  no persistence: a restart loses the queue, the tasks being worked on, the cache and beat's
  schedule and lock; ``tests/redis_server.py``, which the tests use too);
- an SMTP sink on loopback (``Sink``) that can accept, refuse (421) or hold one email before
  answering its end of data, as a slow server does, and that logs every email it accepted;
- gunicorn (2 gthread workers of 2 threads), two Celery workers (prefork, concurrency 2) and
  beat, with ``DJANGO_ENV=production`` (``collectstatic``, psycopg's pool, Redis, JSON logs);
- scripted players: tables of three people who create, join and start games through the
  lobby's forms and play random legal moves through HTTP (and chat, naming each other), and
  people practising against two bots (the workers play the bots' moves).

The players cheat in one way, like ``bench/load.py``'s: they read whose decision it is and their
legal moves from the database; every action goes through HTTP. A move whose answer was lost
(a worker killed, a 503) is sent again with the same idempotency key until it gets an answer,
as a person pressing the button again would, so that every move the site accepted is known.

The faults, in order: a Celery worker's process killed with SIGKILL while it sends an email
(the sink holds the email; first the pool process, then the whole worker, which is started
again as a supervisor would); Redis killed and started again, then again while a second beat
waits for the first's lock (as on a second machine); PostgreSQL stopped for a while
(the site must answer 503 with its clear page, never 500) and started again; SMTP refusing for
10 minutes of simulated time; beat stopped for an hour of simulated time and started again; a
gunicorn worker killed while a move request is inside it.

Simulated time: the sweep and the outbox read the clock (``timezone.now()``). Instead of
waiting, "a minute passes" moves every pending notice's ``due_at`` one minute earlier (and, for
beat's hour, every running game's deadline an hour earlier), and a sweep runs on a worker
(``games.tasks.sweep``, as beat would start it). Everything else is real time.

After each fault: the players pause, the outbox drains, and the checks of ``bench/load.py``
(moves numbered 1..N, version N, replay equal to the snapshot, the moves acknowledged to the
players exactly those in the log) run together with the outbox's: no due notice pending, none
failed, every notice marked sent delivered exactly once by the sink (matched by Message-ID),
nothing delivered that is not marked sent; no running game with an overdue decision; no
process that exited by itself (beat included: each Redis restart must also see beat's sweep
sent again within two minutes, and with two beats no more sweeps than one beat sends). Any
violation makes the exit status non-zero.
"""

from __future__ import annotations

import argparse
import email.parser
import email.policy
import glob
import json
import os
import pwd
import random
import re
import secrets
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402
from tests.redis_server import RedisServer, free_port  # noqa: E402 - also the tests' own

CLEAR_PAGE = "The site is briefly unavailable"  # templates/503.html
SWEEP_SENT = "Sending due task sweep"  # beat's log line as it sends the sweep
LOCK_TAKEN = "beat: Acquired lock"  # saboteur_site/beat.py
MESSAGE_ID = re.compile(r"<notice\.(\d+)\.\d+@")


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


# -- Servers of our own ---------------------------------------------------------------------


class Postgres:
    """A PostgreSQL cluster of our own in ``folder`` on ``port``; only it is ever stopped."""

    def __init__(self, folder: Path, port: int):
        self.folder, self.port = folder, port
        versions = sorted(
            glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[4])
        )
        if not versions:
            raise SystemExit("PostgreSQL's server binaries (/usr/lib/postgresql/*/bin) are missing")
        self.bin = Path(versions[-1])
        self.data = folder / "data"
        self.log = folder / "postgres.log"
        self.user = None
        if os.geteuid() == 0:  # initdb refuses root: run the cluster as the postgres user
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                raise SystemExit(
                    "run as a user other than root, or create a postgres user"
                ) from None

    def _run(self, *command: str) -> None:
        if self.user is not None:
            command = ("runuser", "-u", "postgres", "--", *command)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # noqa: S603 - our own commands

    def init(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.user is not None:
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off "
            "-c max_connections=80"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"


# -- The SMTP sink --------------------------------------------------------------------------


class Sink(socketserver.ThreadingTCPServer):
    """An SMTP server on loopback that logs what it accepts.

    ``mode``: ``accept``; ``refuse`` (421 at the greeting, as a server that is down for
    maintenance). ``hold_next()`` makes it keep the next email after its end of data without
    answering until ``release()``: a server taking its time, during which the sender can be
    killed. An email counts as delivered only once the 250 is answered: if the sender is gone by
    then (its socket closed), the email is dropped, as a real server that has not yet accepted
    it does.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, log_path: Path):
        super().__init__(("127.0.0.1", 0), SinkHandler)
        self.port = self.server_address[1]
        self.mode = "accept"
        self.lock = threading.Lock()
        self.delivered: list[dict] = []
        self.dropped: list[dict] = []
        self.refused = 0
        self.log = open(log_path, "a")  # noqa: SIM115 - closed in stop()
        self._hold = False
        self.held = threading.Event()
        self.held_email: dict | None = None
        self._release = threading.Event()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def start(self) -> Sink:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self.shutdown()
        self.server_close()
        self.log.close()

    def hold_next(self) -> None:
        with self.lock:
            self._hold = True
            self.held.clear()
            self._release.clear()
            self.held_email = None

    def release(self) -> None:
        self._release.set()

    def take_hold(self) -> bool:
        with self.lock:
            if self._hold:
                self._hold = False
                return True
            return False

    def record(self, entry: dict, delivered: bool) -> None:
        with self.lock:
            (self.delivered if delivered else self.dropped).append(entry)
            self.log.write(json.dumps({**entry, "delivered": delivered}) + "\n")
            self.log.flush()

    def deliveries(self) -> list[dict]:
        with self.lock:
            return list(self.delivered)


class SinkHandler(socketserver.StreamRequestHandler):
    timeout = 120

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self) -> None:
        sink: Sink = self.server
        if sink.mode == "refuse":
            with sink.lock:
                sink.refused += 1
            self.reply("421 4.3.2 sink refusing connections (fault test)")
            return
        self.reply("220 sink ESMTP")
        recipients: list[str] = []
        while True:
            line = self.rfile.readline()
            if not line:
                return
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                self.reply("250-sink\r\n250-8BITMIME\r\n250 SMTPUTF8")
            elif verb == b"MAIL":
                recipients = []
                self.reply("250 2.1.0 OK")
            elif verb == b"RCPT":
                recipients.append(line.split(b":", 1)[1].strip().strip(b"<>").decode())
                self.reply("250 2.1.5 OK")
            elif verb == b"DATA":
                self.reply("354 end with <CRLF>.<CRLF>")
                if not self.data(sink, recipients):
                    return
            elif verb == b"QUIT":
                self.reply("221 2.0.0 bye")
                return
            else:  # RSET, NOOP
                self.reply("250 2.0.0 OK")

    def data(self, sink: Sink, recipients: list[str]) -> bool:
        lines = []
        while True:
            line = self.rfile.readline()
            if not line:
                return False
            if line in (b".\r\n", b".\n"):
                break
            lines.append(line[1:] if line.startswith(b"..") else line)
        headers = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(
            b"".join(lines)
        )
        entry = {
            "message_id": str(headers.get("Message-ID", "")),
            "to": recipients,
            "subject": str(headers.get("Subject", "")),
            "at": time.time(),
            "peer_port": self.client_address[1],
        }
        if sink.take_hold():
            sink.held_email = entry
            sink.held.set()
            sink._release.wait(timeout=120)
            if self.peer_gone():
                sink.record(entry, delivered=False)
                return False
        sink.record(entry, delivered=True)
        self.reply("250 2.0.0 queued")
        return True

    def peer_gone(self) -> bool:
        self.connection.setblocking(False)
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True
        finally:
            self.connection.setblocking(True)


# -- Processes ------------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    return [p for p in harness._all_pids() if harness._parent(p) == pid]


def pid_with_connection(local_port: int) -> int | None:
    """The process that owns the TCP socket bound to 127.0.0.1:``local_port`` (from /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in harness._read(table).splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == local_port:
                inodes.add(fields[9])
    for pid in harness._all_pids():
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return pid
        except OSError:
            continue
    return None


class Site:
    """gunicorn, two Celery workers and beat, in sessions of their own."""

    def __init__(self, out: Path, env: dict):
        self.out, self.env = out, env
        self.port = free_port()
        self.processes: dict[str, subprocess.Popen] = {}
        self.stopped: set[str] = set()  # stopped or killed by the run, not by themselves

    def spawn(self, name: str, command: list[str]) -> None:
        self.stopped.discard(name)
        log = open(self.out / f"{name}.log", "a")  # noqa: SIM115 - kept by the process
        self.processes[name] = subprocess.Popen(  # noqa: S603 - our own commands
            command,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_web(self) -> None:
        self.spawn(
            "web",
            [
                str(ROOT / ".venv/bin/gunicorn"),
                "saboteur_site.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "2",
                "--worker-class",
                "gthread",
                "--threads",
                "2",
                "--timeout",
                "60",
                "--keep-alive",
                "30",
                "--log-level",
                "warning",
            ],
        )

    def start_worker(self, number: int) -> None:
        self.spawn(
            f"worker{number}",
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "saboteur_site",
                "worker",
                "--concurrency",
                "2",
                "-n",
                f"faults{number}@%h",
                "--loglevel=info",
            ],
        )

    def start_beat(self, name: str = "beat") -> None:
        self.spawn(
            name,
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "saboteur_site",
                "beat",
                "--loglevel=info",
                "--schedule",
                str(self.out / f"{name}-schedule"),
            ],
        )

    def died(self) -> list[str]:
        """The processes that exited by themselves since the last call (none should: a
        supervisor would start them again, but the run wants to see it); each is told once."""
        gone = [
            name
            for name, process in self.processes.items()
            if process.poll() is not None and name not in self.stopped
        ]
        self.stopped.update(gone)
        return [f"{name} exited with {self.processes[name].returncode}" for name in gone]

    def log_count(self, name: str, text: str) -> int:
        """How many lines of ``name``'s log hold ``text``."""
        path = self.out / f"{name}.log"
        return sum(text in line for line in path.read_text(errors="replace").splitlines())

    def stop(self, name: str, sig: int = signal.SIGTERM, wait: float = 20) -> None:
        self.stopped.add(name)
        process = self.processes.get(name)
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def kill_group(self, name: str) -> None:
        """SIGKILL the process and all its children (its session), as a lost machine."""
        self.stopped.add(name)
        process = self.processes[name]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for name in list(self.processes):
            try:
                self.stop(name)
            except ProcessLookupError:
                pass

    def pids(self) -> dict[str, list[int]]:
        return {name: [p.pid, *children(p.pid)] for name, p in self.processes.items()}

    def ours(self, pid: int) -> str | None:
        """Which of our processes ``pid`` is (or is a child of)."""
        for name, process in self.processes.items():
            if pid == process.pid or harness._parent(pid) == process.pid:
                return name
        return None

    def health(self) -> int:
        try:
            status, _, _ = harness.Http(self.port).request("GET", "/health/")
            return status
        except OSError:
            return 0


# -- Players --------------------------------------------------------------------------------


class Stats:
    """What the players saw, from every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: dict[str, Counter] = defaultdict(Counter)  # window -> status -> count
        self.violations: list[str] = []
        self.acknowledged: dict[int, set[str]] = defaultdict(set)
        self.window = "warm-up"
        self.unavailable_allowed = False
        self.retried_moves = 0

    def record(self, kind: str, status: int, body: bytes) -> None:
        with self.lock:
            self.statuses[self.window][status] += 1
            if status == 503:
                if not self.unavailable_allowed:
                    self.violations.append(f"{self.window}: 503 on {kind} with nothing broken")
                elif CLEAR_PAGE.encode() not in body:
                    self.violations.append(f"{self.window}: a 503 on {kind} without the page")
            elif status >= 500:
                self.violations.append(f"{self.window}: HTTP {status} on {kind}")

    def violation(self, text: str) -> None:
        with self.lock:
            self.violations.append(f"{self.window}: {text}")


class Control:
    """Pauses the players between their actions (for the checks)."""

    def __init__(self, players: int):
        self.running = threading.Event()
        self.running.set()
        self.stopping = threading.Event()
        self.idle = threading.Semaphore(0)
        self.players = players
        self.waiting = 0
        self.lock = threading.Lock()

    def gate(self) -> bool:
        if not self.running.is_set():
            with self.lock:
                self.waiting += 1
            self.running.wait()
            with self.lock:
                self.waiting -= 1
        return not self.stopping.is_set()

    def pause(self, timeout: float = 120) -> None:
        self.running.clear()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.waiting >= self.players:
                    return
            time.sleep(0.1)
        raise RuntimeError("the players did not pause")

    def resume(self) -> None:
        self.running.set()


class Table:
    """Players who sit at one game at a time; the first creates the next when one ends."""

    def __init__(self, number: int, members: list, practice: bool):
        self.number, self.members, self.practice = number, members, practice
        self.game_id: int | None = None
        self.lock = threading.Lock()
        self.games = 0


class Player:
    def __init__(
        self,
        table: Table,
        index: int,
        user,
        session: str,
        site: Site,
        stats: Stats,
        control: Control,
        seed: str,
    ):
        self.table, self.index, self.user, self.session = table, index, user, session
        self.http = harness.Http(site.port, session)
        self.stats, self.control = stats, control
        self.rng = random.Random(f"{seed}-{table.number}-{index}")  # noqa: S311 - not secret
        self.revision = -1

    # HTTP, never raising: 0 for a transport error.
    def request(self, kind, method, path, *, fields=None, htmx=False, http=None):
        http = http or self.http
        try:
            status, response, body = http.request(method, path, fields=fields, htmx=htmx)
        except (OSError, harness.http.client.HTTPException):
            http.close()
            return 0, None, b""
        self.stats.record(kind, status, body)
        return status, response, body

    def run(self) -> None:
        from django.db import connection

        try:
            while self.control.gate():
                try:
                    self.step()
                except Exception as error:  # noqa: BLE001 - the database away, mostly
                    if (
                        "database" not in repr(error).lower()
                        and "connection" not in repr(error).lower()
                    ):
                        self.stats.violation(f"player {self.user.username}: {error!r}")
                    connection.close()
                    time.sleep(1)
        finally:
            self.http.close()
            connection.close()

    def step(self) -> None:
        from games.models import Game, Seat

        if self.index == 0 and self.table.game_id is None:
            self.new_game()
            return
        game_id = self.table.game_id
        if game_id is None:
            time.sleep(0.5)
            return
        game = Game.objects.only("status", "to_move", "version", "snapshot").get(pk=game_id)
        if game.status != Game.Status.RUNNING:
            if game.status == Game.Status.FINISHED and self.index == 0:
                self.table.game_id = None
            time.sleep(0.5)
            return
        seat = Seat.objects.filter(game_id=game_id, user=self.user).only("position").first()
        if seat is not None and game.to_move == seat.position:
            self.move(game, seat.position)
            return
        status, _, body = self.request(
            "poll", "GET", f"/games/{game_id}/poll/?v={self.revision}", htmx=True
        )
        if status == 200:
            self.revision = harness_revision(body, self.revision)
        elif status == 204 and self.rng.random() < 0.03 and len(self.table.members) > 1:
            other = self.rng.choice([m for m in self.table.members if m is not self])
            self.request(
                "chat",
                "POST",
                f"/games/{game_id}/chat/",
                htmx=True,
                fields={"text": f"@{other.user.display_name} dig east!"},
            )
        time.sleep(self.rng.uniform(0.4, 0.9))

    def new_game(self) -> None:
        """Through the lobby's forms: create, the others join, start (or practise with bots)."""
        if self.table.practice:
            fields = {"practice-ruleset": "base", "practice-bots": "2", "practice-rounds": "1"}
            status, response, _ = self.request("create", "POST", "/games/practice/", fields=fields)
        else:
            fields = {
                "name": f"Fault table {self.table.number}.{self.table.games}",
                "ruleset": "base",
                "max_seats": len(self.table.members),
                "visibility": "open",
                "turn_limit": "3600",
                "rounds": "1",
            }
            status, response, _ = self.request("create", "POST", "/games/new/", fields=fields)
        match = (
            re.search(r"/games/(\d+)/$", response.getheader("Location", "")) if response else None
        )
        if status != 302 or not match:
            time.sleep(1)
            return
        game_id = int(match.group(1))
        if not self.table.practice:
            for member in self.table.members[1:]:
                # A connection of the member's own (their thread may be using theirs).
                status, _, _ = member.request(
                    "join",
                    "POST",
                    f"/games/{game_id}/join/",
                    http=harness.Http(self.http.port, member.session),
                )
                if status != 302:
                    time.sleep(1)
                    return  # an abandoned lobby game; the next attempt makes another
            status, _, _ = self.request("start", "POST", f"/games/{game_id}/start/")
            if status != 302:
                time.sleep(1)
                return
        self.table.games += 1
        self.table.game_id = game_id

    def move(self, game, position: int) -> None:
        from games import engine

        state = engine.State.from_json(game.snapshot)
        choice = self.rng.choice(engine.legal_moves(state, str(position)))
        fields = harness.move_fields(choice, state.hands[position])
        key = secrets.token_hex(8)
        fields.update(version=game.version, key=key)
        path = f"/games/{game.pk}/move/"
        for attempt in range(120):
            status, _, body = self.request("move", "POST", path, fields=fields, htmx=True)
            if status == 200:
                with self.stats.lock:
                    self.stats.acknowledged[game.pk].add(key)
                    self.stats.retried_moves += attempt > 0
                self.revision = harness_revision(body, self.revision)
                return
            if status in (0, 503):  # no answer, or "try again": the same move, the same key
                time.sleep(1)
                continue
            if status != 409:  # 409: someone (a timeout) moved first
                self.stats.violation(f"move refused in game {game.pk}: HTTP {status} {choice}")
            return
        self.stats.violation(f"move in game {game.pk} never answered")


REVISION = re.compile(rb"/poll/\?v=(\d+)")


def harness_revision(body: bytes, default: int) -> int:
    match = REVISION.search(body)
    return int(match.group(1)) if match else default


# -- The checks -----------------------------------------------------------------------------


def database_checks(stats: Stats) -> Counter:
    """bench/load.py's checks of every game, in one consistent snapshot of the database."""
    from django.db import connection, transaction

    from bench.load import check_database

    with transaction.atomic():
        connection.cursor().execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return check_database(stats)


def outbox_checks(stats: Stats, sink: Sink) -> dict:
    """Every notice due is sent, once: the sink's log against the outbox."""
    from games.models import Notice

    statuses = Counter(Notice.objects.values_list("status", flat=True))
    sent = set(Notice.objects.filter(status=Notice.Status.SENT).values_list("pk", flat=True))
    delivered = Counter()
    others = 0
    for entry in sink.deliveries():
        match = MESSAGE_ID.search(entry["message_id"])
        if match:
            delivered[int(match.group(1))] += 1
        else:
            others += 1
    doubled = {pk: n for pk, n in delivered.items() if n > 1}
    if doubled:
        stats.violation(f"{len(doubled)} notices delivered more than once: {sorted(doubled)[:10]}")
    missing = sent - set(delivered)
    if missing:
        stats.violation(f"{len(missing)} notices marked sent but never delivered")
    unmarked = set(delivered) - sent
    if unmarked:
        stats.violation(f"{len(unmarked)} notices delivered but not marked sent")
    if statuses[Notice.Status.FAILED]:
        stats.violation(f"{statuses[Notice.Status.FAILED]} notices given up (failed)")
    if others:
        stats.violation(f"{others} emails that are no notice of the outbox")
    skipped = Counter(
        Notice.objects.filter(status=Notice.Status.SKIPPED).values_list("reason", flat=True)
    )
    return {"statuses": dict(statuses), "delivered": sum(delivered.values()), "skipped": skipped}


def overdue_checks(stats: Stats, slack: float = 90) -> int:
    """No running game whose decision is overdue beyond a sweep's minute (and a margin)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game
    from games.play.bot_turns import bot_games_due

    now = timezone.now()
    late = Game.objects.filter(
        status=Game.Status.RUNNING, deadline__lt=now - timedelta(seconds=slack)
    ).count()
    if late:
        stats.violation(f"{late} running games with a deadline passed unenforced")
    bots = len(bot_games_due(now - timedelta(seconds=slack)))
    if bots:
        stats.violation(f"{bots} games whose bot's decision is overdue")
    return late + bots


def due_pending() -> int:
    from django.utils import timezone

    from games.models import Notice

    return Notice.objects.filter(status="pending", due_at__lte=timezone.now()).count()


# -- The run --------------------------------------------------------------------------------


class Run:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out)
        self.stats = Stats()
        self.figures: list[dict] = []
        self.reported = 0  # violations printed so far
        self.started = time.monotonic()

    # Simulated time (see the module's docstring).
    def minutes_pass(self, minutes: float, *, deadlines: bool = False) -> None:
        from datetime import timedelta

        from games.models import Game, Notice

        step = timedelta(minutes=minutes)
        Notice.objects.filter(status=Notice.Status.PENDING).update(due_at=F("due_at") - step)
        if deadlines:
            Game.objects.filter(status=Game.Status.RUNNING, deadline__isnull=False).update(
                deadline=F("deadline") - step
            )

    def sweep(self, timeout: float = 60) -> dict | None:
        """One sweep on a worker, as beat starts it; its result (None if it failed)."""
        from saboteur_site.celery import app

        try:
            return app.send_task("games.tasks.sweep").get(timeout=timeout)
        except Exception as error:  # noqa: BLE001 - reported, the caller decides
            say(f"   sweep failed: {error!r}")
            return None

    def wait(self, what: str, condition, timeout: float, interval: float = 0.5) -> float | None:
        """Seconds until ``condition()`` holds (None and a violation on a timeout)."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            try:
                if condition():
                    return time.monotonic() - began
            except Exception:  # noqa: BLE001 - a server still away
                from django.db import connections

                connections.close_all()
            time.sleep(interval)
        self.stats.violation(f"{what}: not within {timeout:g} s")
        return None

    def drain(self, timeout: float = 150) -> float | None:
        """Until no due notice is pending and no decision overdue (beat's sweeps, real time)."""
        from django.db import connections

        connections.close_all()

        def whole():
            return due_pending() == 0 and overdue_quiet()

        return self.wait("outbox drained", whole, timeout, interval=1)

    def check(self, label: str, **figures) -> None:
        """Pause the players, let the world settle, run every check, resume."""
        from django.db import connections

        from games.models import Move

        self.control.pause()
        connections.close_all()
        settle = self.wait("quiet after " + label, self.quiet, 120, interval=1)
        before = len(self.stats.violations)
        for text in self.stats.violations[self.reported :]:
            say(f"   VIOLATION {text}")
        summary = database_checks(self.stats)
        outbox = outbox_checks(self.stats, self.sink)
        overdue_checks(self.stats)
        for text in self.site.died():
            self.stats.violation(text)
        row = {
            "fault": label,
            "moves": Move.objects.count(),
            "emails": outbox["delivered"],
            "503": self.stats.statuses[label][503],
            "500": sum(n for s, n in self.stats.statuses[label].items() if s >= 500 and s != 503),
            "requests": sum(self.stats.statuses[label].values()),
            "violations": len(self.stats.violations) - before,
            **figures,
        }
        self.figures.append(row)
        for text in self.stats.violations[before:]:
            say(f"   VIOLATION {text}")
        self.reported = len(self.stats.violations)
        say(
            f"   checked: {summary['moves']} moves in {summary['running'] + summary['finished']} "
            f"games, {outbox['delivered']} emails ({outbox['statuses']}), settled in "
            f"{settle or 0:.0f} s; violations so far: {len(self.stats.violations)}"
        )
        self.control.resume()

    def quiet(self) -> bool:
        """Nothing due, nothing overdue, no bot about to move: the versions stand still."""
        from games.models import Game

        if due_pending() or not overdue_quiet():
            return False
        first = dict(Game.objects.values_list("pk", "version"))
        time.sleep(self.args.bot_delay + 2)
        return first == dict(Game.objects.values_list("pk", "version")) and due_pending() == 0

    def window(self, label: str, *, unavailable: bool = False) -> None:
        with self.stats.lock:
            self.stats.window = label
            self.stats.unavailable_allowed = unavailable

    def main(self) -> int:
        with ExitStack() as stack:
            self.setup(stack)
            say(f"==> warm-up: {self.args.play:g} s of play")
            time.sleep(self.args.play)
            self.check("warm-up")
            for fault in (
                self.worker_killed_while_sending,
                self.redis_restarted,
                self.redis_restarted_under_two_beats,
                self.postgres_restarted,
                self.smtp_refusing,
                self.beat_stopped,
                self.gunicorn_worker_killed,
            ):
                fault()
            self.window("end")
            time.sleep(self.args.play)
            self.check("end")
            self.control.stopping.set()
            self.control.resume()
        return self.report()

    # -- setting up ------------------------------------------------------------------------

    def setup(self, stack: ExitStack) -> None:
        args, out = self.args, self.out
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        servers = Path(tempfile.mkdtemp(prefix="saboteur-faults-"))
        servers.chmod(0o755)  # the cluster's user must reach its folder inside
        stack.callback(shutil.rmtree, servers, ignore_errors=True)
        say(f"==> servers of our own in {servers}")
        self.postgres = Postgres(servers / "postgres", free_port())
        self.postgres.init()
        self.postgres.start()
        stack.callback(lambda: self.postgres.running() and self.postgres.stop("immediate"))
        self.redis = RedisServer(servers / "redis")
        self.redis.start()
        stack.callback(self.redis.kill)
        self.sink = Sink(out / "sink.jsonl").start()
        stack.callback(self.sink.stop)
        say(
            f"   PostgreSQL :{self.postgres.port}, Redis :{self.redis.port}, "
            f"SMTP sink :{self.sink.port}"
        )

        secret = secrets.token_urlsafe(50)
        database = self.postgres.url("saboteur_faults")
        subprocess.run(  # noqa: S603 - our own commands
            [
                self.postgres.bin / "createdb",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.postgres.port),
                "-U",
                "postgres",
                "saboteur_faults",
            ],
            check=True,
        )
        self.site = Site(out, {})
        self.site.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
            "DJANGO_ENV": "production",
            "DJANGO_SECRET_KEY": secret,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": database,
            "REDIS_URL": self.redis.url(),
            "SITE_URL": f"http://127.0.0.1:{self.site.port}",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.sink.port),
            "EMAIL_TIMEOUT": "20",
            "BOT_MOVE_DELAY": str(args.bot_delay),
            "DJANGO_LOG_FORMAT": "json",
            "PYTHONUNBUFFERED": "1",
        }
        # This process: the same database, Redis and secret (the players' sessions), no pool.
        os.environ.update({k: v for k, v in self.site.env.items() if k != "DJANGO_ENV"})
        os.environ.update(
            {
                "DJANGO_ENV": "development",
                "DATABASE_POOL": "0",
                "DJANGO_SETTINGS_MODULE": "saboteur_site.settings",
                "DJANGO_LOG_LEVEL": "WARNING",
                "DJANGO_LOG_FORMAT": "text",
            }
        )
        say("==> migrate and collectstatic (production)")
        for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
            subprocess.run(  # noqa: S603 - our own commands
                [sys.executable, "manage.py", *command],
                cwd=ROOT,
                env=self.site.env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        import django

        django.setup()
        say("==> gunicorn, two Celery workers, beat")
        self.site.start_web()
        self.site.start_worker(1)
        self.site.start_worker(2)
        self.site.start_beat()
        stack.callback(self.site.stop_all)
        if self.wait("the site's /health/", lambda: self.site.health() == 200, 90) is None:
            raise SystemExit("the site did not become healthy: see " + str(out))

        tables, number = [], 0
        for _ in range(args.tables):
            tables.append(Table(number, [], practice=False))
            number += 1
        for _ in range(args.practice):
            tables.append(Table(number, [], practice=True))
            number += 1
        players = []
        for table in tables:
            for index in range(1 if table.practice else 3):
                user = harness.make_user(f"t{table.number}p{index}")
                player = Player(
                    table,
                    index,
                    user,
                    harness.session_cookie(user),
                    self.site,
                    self.stats,
                    None,
                    args.seed,
                )
                table.members.append(player)
                players.append(player)
        from django.db import connection

        connection.close()
        self.control = Control(len(players))
        for player in players:
            player.control = self.control
            thread = threading.Thread(target=player.run, daemon=True)
            thread.start()
        stack.callback(self.control.stopping.set)
        stack.callback(self.control.resume)
        self.tables = tables
        say(f"   {len(players)} players at {len(tables)} tables ({args.practice} practising)")

    # -- the faults ------------------------------------------------------------------------

    def play(self, seconds: float | None = None) -> None:
        time.sleep(self.args.play if seconds is None else seconds)

    def held_email(self) -> dict:
        """Wait for the sink to hold an email (the players' moves cause them)."""
        self.sink.hold_next()
        if not self.sink.held.wait(timeout=90):
            raise RuntimeError("no email to hold within 90 s")
        return self.sink.held_email

    def delivered(self, message_id: str) -> bool:
        return any(e["message_id"] == message_id for e in self.sink.deliveries())

    def mention(self) -> bool:
        """A player names another in the chat (through HTTP): an email at once. Mention emails
        go at most one an hour per game and player (the rest wait to go together), so the one
        named is one with no mention email sent or waiting in that game in the last hour."""
        from datetime import timedelta

        from django.utils import timezone

        from games.models import Notice

        recent = Notice.objects.filter(kind=Notice.Kind.MENTION).filter(
            Q(status=Notice.Status.PENDING)
            | Q(status=Notice.Status.SENT, sent_at__gt=timezone.now() - timedelta(hours=1))
        )
        pairs = [
            (table, author, named)
            for table in self.tables
            if not table.practice and table.game_id is not None
            for author in table.members
            for named in table.members
            if named is not author
        ]
        for table, author, named in pairs:
            if recent.filter(game_id=table.game_id, user=named.user).exists():
                continue
            http = harness.Http(self.site.port, author.session)
            text = f"@{named.user.display_name} the held email"
            status, _, _ = author.request(
                "chat", "POST", f"/games/{table.game_id}/chat/", fields={"text": text},
                htmx=True, http=http,
            )  # fmt: skip
            http.close()
            if status == 200:
                return True
        return False

    def worker_killed_while_sending(self) -> None:
        """The sink holds an email (a chat mention, which stays due while the players wait)
        before answering its end of data; the worker's process sending it is killed."""
        for label, whole in (
            ("worker's pool process killed while sending", False),
            ("whole worker killed while sending", True),
        ):
            self.window(label)
            say(f"==> {label}")
            self.play(self.args.play / 2)
            self.control.pause()
            self.sink.hold_next()
            if not self.mention() or not self.sink.held.wait(timeout=60):
                self.stats.violation("no email to hold")
                self.sink.release()
                self.control.resume()
                continue
            held = self.sink.held_email
            pid = pid_with_connection(held["peer_port"])
            owner = self.site.ours(pid) if pid else None
            if owner is None or not owner.startswith("worker"):
                self.stats.violation(f"the held email's sender {pid} is not one of our workers")
                self.sink.release()
                self.control.resume()
                continue
            killed_at = time.monotonic()
            if whole:
                self.site.kill_group(owner)
            else:
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
            self.sink.release()
            say(
                f"   killed {owner} ({'all of it' if whole else f'pool process {pid}'}) while "
                f"it sent {held['message_id']}"
            )
            if whole:
                time.sleep(2)  # a supervisor's restart delay
                self.site.start_worker(int(owner[-1]))
            sent = self.wait(
                "the held email sent again",
                lambda held=held: self.delivered(held["message_id"]),
                150,
                interval=0.2,
            )
            took = None if sent is None else time.monotonic() - killed_at
            say(f"   the email went out {took or -1:.1f} s after the kill (the sink dropped the "
                "unanswered one)")  # fmt: skip
            self.control.resume()
            self.check(label, recovered_s=round(took or -1, 1))

    def redis_restarted(self, beats: tuple[str, ...] = ("beat",)) -> None:
        """Redis killed and started again, empty, after ``--outage`` seconds, while ``beats``
        run: the site is whole again, and beat's sweep runs again (within two minutes), sent by
        one beat only."""
        label = "Redis killed and restarted (empty)"
        if len(beats) > 1:
            label = "Redis restarted while two beats run"
        self.window(label + " (before)")
        say(f"==> {label}")
        for name in beats:
            if name not in self.site.processes or name in self.site.stopped:
                self.site.start_beat(name)
        began = time.monotonic()
        at_start = {name: self.site.log_count(name, SWEEP_SENT) for name in beats}
        self.play()
        self.window(label, unavailable=True)
        self.redis.kill()
        time.sleep(self.args.outage)
        sent = {name: self.site.log_count(name, SWEEP_SENT) for name in beats}
        self.redis.start()
        back = time.monotonic()
        swept = self.wait(
            "beat's sweep after Redis",
            lambda: any(self.site.log_count(n, SWEEP_SENT) > sent[n] for n in beats),
            120,
        )
        healthy = self.wait("health after Redis", lambda: self.site.health() == 200, 120)
        self.drain()
        recovered = time.monotonic() - back
        say(
            f"   beat's sweep {swept or -1:.1f} s after Redis was back, healthy after "
            f"{healthy or 0:.1f} s; outbox and decisions whole {recovered:.1f} s after"
        )
        self.window(label + " (after)")
        self.play()
        figures = {}
        if len(beats) > 1:
            figures = self.one_beat_at_a_time(beats, at_start, time.monotonic() - began)
        self.check(
            label,
            down_s=self.args.outage,
            sweep_s=round(swept or -1, 1),
            recovered_s=round(recovered, 1),
            healthy_s=round(healthy or -1, 1),
            **figures,
        )
        for name in beats[1:]:
            self.site.stop(name)

    def one_beat_at_a_time(self, beats: tuple[str, ...], at_start: dict, seconds: float) -> dict:
        """The beats' sweeps over the phase number one beat's worth: at most one per
        ``SWEEP_SECONDS`` (60), plus the one sent at once when the lock is taken (a beat's
        start, Redis's return). (That neither beat exited, ``check`` sees.)"""
        sends = {name: self.site.log_count(name, SWEEP_SENT) - at_start[name] for name in beats}
        took = {name: self.site.log_count(name, LOCK_TAKEN) for name in beats}
        allowed = seconds / 60 + len(beats) + 1
        if sum(sends.values()) > allowed:
            self.stats.violation(f"more sweeps sent than one beat's worth: {sends}")
        say(f"   sweeps sent by each beat: {sends}; locks taken: {took}")
        return {"sweeps_sent": sends, "locks_taken": took}

    def redis_restarted_under_two_beats(self) -> None:
        """A second beat waits for the first's lock (as on a second machine); Redis restarts
        empty under both; one of them takes the lock again and the sweep goes on, once."""
        self.redis_restarted(beats=("beat", "beat2"))

    def postgres_restarted(self) -> None:
        from django.db import connections

        label = "PostgreSQL stopped and started"
        self.window(label + " (before)")
        say(f"==> {label}")
        self.play()
        self.window(label, unavailable=True)
        pids = self.site.pids()
        connections.close_all()
        self.postgres.stop("fast")
        probes = self.probe_while(self.args.pg_outage)
        seen = dict(self.stats.statuses[label])
        say(f"   while away, the players saw {seen}; a page asked for every second: {probes}")
        self.postgres.start()
        back = time.monotonic()
        healthy = self.wait("health after PostgreSQL", lambda: self.site.health() == 200, 120)
        self.drain()
        recovered = time.monotonic() - back
        if self.site.pids() != pids:
            self.stats.violation("a process was restarted or replaced during the outage")
        say(
            f"   healthy {healthy or 0:.1f} s after PostgreSQL was back, outbox and decisions "
            f"whole {recovered:.1f} s after; no process restarted"
        )
        self.window(label + " (after)")
        self.play()
        self.check(
            label,
            down_s=self.args.pg_outage,
            recovered_s=round(recovered, 1),
            healthy_s=round(healthy or -1, 1),
            probes=probes,
        )

    def probe_while(self, seconds: float) -> dict:
        """A player asks for the lobby page every second for ``seconds`` (each waits for its
        answer): how many answers of each status, and how long they took."""
        player = self.tables[0].members[0]
        answers, took = Counter(), []
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            http = harness.Http(self.site.port, player.session)
            began = time.monotonic()
            status, _, _ = player.request("probe", "GET", "/games/", http=http)
            took.append(time.monotonic() - began)
            answers[status] += 1
            http.close()
            time.sleep(max(0.0, 1 - took[-1]))
        return {
            "answers": dict(answers),
            "seconds": f"{min(took):.1f} to {max(took):.1f}" if took else "-",
        }

    def smtp_refusing(self) -> None:
        label = "SMTP refusing for 10 simulated minutes"
        self.window(label)
        say(f"==> {label}")
        self.sink.mode = "refuse"
        began = time.monotonic()
        self.play()
        for _ in range(10):
            self.minutes_pass(1)
            self.sweep()
        refused = self.sink.refused
        self.sink.mode = "accept"
        back = time.monotonic()
        minutes = 10
        # Simulated minutes go on until every notice held back by the backoff is out.
        from games.models import Notice

        while Notice.objects.filter(status="pending").exclude(attempts=0).exists():
            if minutes > 60:
                self.stats.violation("notices still pending an hour after SMTP came back")
                break
            self.minutes_pass(1)
            self.sweep()
            minutes += 1
        say(
            f"   {refused} connections refused; all sent {minutes - 10} simulated minutes after "
            f"SMTP was back ({time.monotonic() - back:.0f} s real; {time.monotonic() - began:.0f} "
            "s in all)"
        )
        self.check(
            label,
            refused=refused,
            simulated_min=minutes,
            recovered_s=round(time.monotonic() - back, 1),
        )

    def beat_stopped(self) -> None:
        label = "beat stopped for a simulated hour"
        self.window(label)
        say(f"==> {label}")
        self.site.stop("beat")
        self.play()
        self.minutes_pass(60, deadlines=True)
        from django.utils import timezone

        from games.models import Game

        overdue = Game.objects.filter(status="running", deadline__lte=timezone.now()).count()
        due = due_pending()
        self.site.start_beat()
        drained = self.drain(timeout=180)
        say(
            f"   {overdue} decisions overdue and {due} notices due when beat came back; all "
            f"handled {drained or 0:.0f} s after it started"
        )
        self.check(label, overdue=overdue, due=due, recovered_s=round(drained or -1, 1))

    def gunicorn_worker_killed(self) -> None:
        import psycopg

        from games.models import Game, Seat

        label = "gunicorn worker killed in a move request"
        self.window(label)
        say(f"==> {label}")
        self.play(self.args.play / 2)
        kills = 0
        began = time.monotonic()
        for _ in range(3):
            humans = Seat.objects.filter(
                user__isnull=False,
                position=F("game__to_move"),
                game__status=Game.Status.RUNNING,
                bot__isnull=True,
            )
            game_id = humans.values_list("game_id", flat=True).first()
            if game_id is None:
                time.sleep(1)
                continue
            url = os.environ["DATABASE_URL"]
            # pg_stat_activity is read once per transaction: look from a second connection.
            with psycopg.connect(url) as lock, psycopg.connect(url, autocommit=True) as look:
                (version,) = lock.execute(
                    "SELECT version FROM games_game WHERE id = %s FOR UPDATE", [game_id]
                ).fetchone()
                waiting = None
                deadline = time.monotonic() + 20
                while waiting is None and time.monotonic() < deadline:
                    for (port,) in look.execute(
                        "SELECT client_port FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND client_port IS NOT NULL"
                    ).fetchall():
                        pid = pid_with_connection(port)
                        if pid and self.site.ours(pid) == "web":
                            waiting = pid
                    time.sleep(0.2)
                if waiting is not None:
                    killed_at = time.monotonic()
                    os.kill(waiting, signal.SIGKILL)
                    kills += 1
                    say(f"   killed gunicorn worker {waiting} inside a move of game {game_id}")
                lock.rollback()
            if kills:
                break
        if not kills:
            self.stats.violation("no move request to kill a gunicorn worker in")
        answered = workers = -1.0
        if kills:  # the move inside the killed worker, sent again with its key, is made
            if (
                self.wait(
                    "the killed request's move made",
                    lambda: Game.objects.get(pk=game_id).version > version,
                    60,
                    interval=0.1,
                )
                is not None
            ):
                answered = time.monotonic() - killed_at
            if (
                self.wait(
                    "gunicorn's two workers",
                    lambda: len(children(self.site.processes["web"].pid)) == 2,
                    60,
                    interval=0.1,
                )
                is not None
            ):
                workers = time.monotonic() - killed_at
        self.play()
        retried = self.stats.retried_moves
        say(
            f"   gunicorn had 2 workers again {workers:.1f} s after the kill; the move sent "
            f"again with its key answered {answered:.1f} s after it ({retried} moves sent "
            "again in all)"
        )
        self.check(
            label,
            recovered_s=round(answered, 1),
            workers_s=round(workers, 1),
            moves_retried=retried,
            took_s=round(time.monotonic() - began, 1),
        )

    # -- the report ------------------------------------------------------------------------

    def report(self) -> int:
        elapsed = time.monotonic() - self.started
        print(f"\nFault run: {elapsed:.0f} s; load average {os.getloadavg()[0]:.1f}")
        keys = ["fault", "moves", "emails", "requests", "503", "500", "recovered_s", "violations"]
        print(" | ".join(keys) + " | other")
        for row in self.figures:
            other = {k: v for k, v in row.items() if k not in keys}
            print(" | ".join(str(row.get(k, "")) for k in keys) + f" | {other}")
        (self.out / "figures.json").write_text(json.dumps(self.figures, indent=1))
        if self.stats.violations:
            print(f"VIOLATIONS ({len(self.stats.violations)}):")
            for text in self.stats.violations[:40]:
                print(f"  {text}")
            return 1
        print(
            "checks after every fault: moves 1..N, version N, replay = snapshot, acknowledged "
            "moves = log; every due notice delivered once (sink log = outbox); nothing "
            "overdue; no 500; 503 only with the clear page while a server was away: all passed"
        )
        return 0


def overdue_quiet() -> bool:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game
    from games.play.bot_turns import bot_games_due

    now = timezone.now()
    if Game.objects.filter(status="running", deadline__lt=now).exists():
        return False
    return not bot_games_due(now - timedelta(seconds=5))


def F(name):  # noqa: N802 - Django's F, imported late (Django is set up in Run.setup)
    from django.db.models import F as field

    return field(name)


def Q(**conditions):  # noqa: N802 - Django's Q, imported late like F
    from django.db.models import Q as query

    return query(**conditions)


def main() -> int:
    # SIGTERM unwinds like Ctrl-C: every process and server started here is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="/tmp/saboteur-faults", help="logs and figures")  # noqa: S108
    parser.add_argument("--tables", type=int, default=2, help="tables of three people")
    parser.add_argument("--practice", type=int, default=2, help="people practising with 2 bots")
    parser.add_argument("--play", type=float, default=15, help="seconds of play around faults")
    parser.add_argument("--outage", type=float, default=5, help="seconds Redis stays down")
    parser.add_argument("--pg-outage", type=float, default=20, help="seconds PostgreSQL is away")
    parser.add_argument("--bot-delay", type=int, default=1, help="BOT_MOVE_DELAY of the site")
    parser.add_argument("--seed", default="faults")
    return Run(parser.parse_args()).main()


if __name__ == "__main__":
    sys.exit(main())
