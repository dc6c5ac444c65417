"""The production stack of the README ("Running in production"), started for the tests.

Each piece is what a deployment runs, on loopback ports of its own:

- ``Process``: a server process (gunicorn, uvicorn, a Celery worker or beat) with its stdout and
  stderr in files, stopped by its own id at the end.
- ``Proxy``: the TLS proxy's stand-in (plain HTTP): ``/games/<id>/live/`` and the API's streams
  to uvicorn, everything else to gunicorn, one origin for both, responses passed on as they
  arrive (unbuffered, as nginx's ``proxy_buffering off``). It records every answer's status.
- ``SmtpSink``: the SMTP server the site sends its emails to.
- ``LogCheck``: reads what the processes wrote. In production every process logs one JSON
  object per line on stderr; a line that is not one, or one of level ERROR or CRITICAL, is a
  problem.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import logging
import os
import re
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[2]

# The routes the proxy sends to uvicorn (README, "Running in production"): the pages' live
# streams and the API's NDJSON streams.
LIVE_PATH = re.compile(r"^(/games/[0-9]+/live/|/api/v1/stream|/api/v1/games/[0-9]+/stream)$")


def free_port() -> int:
    """A loopback port nobody listens on now (for servers that cannot be given port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition, *, timeout: float, what: str, every: float = 0.2):
    """Return ``condition()``'s first true value; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


# -- Processes --------------------------------------------------------------------------------


class Process:
    """One server process of the stack, its output in ``<logs>/<name>.out`` and ``.err``."""

    def __init__(self, name: str, argv: list[str], env: dict, logs: Path):
        self.name = name
        self.argv = argv
        self.stdout_path = logs / f"{name}.out"
        self.stderr_path = logs / f"{name}.err"
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            # A session of its own: stopping it never touches the test's own process group.
            self.popen = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=err, start_new_session=True
            )

    def running(self) -> bool:
        return self.popen.poll() is None

    def stop(self, timeout: float = 30) -> int | None:
        """SIGTERM (each server's graceful stop), then SIGKILL to its own group if it hangs."""
        if self.running():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)  # the group this process leads
                self.popen.wait(10)
                return None
        return self.popen.returncode


def run_command(argv: list[str], env: dict, *, timeout: float = 300) -> subprocess.CompletedProcess:
    """A one-off command of the release (migrate, collectstatic, admin_create); fails the test
    with its output when it fails."""
    done = subprocess.run(  # noqa: S603 - our own argv
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(argv)} exited with {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return done


# -- The README's commands and a database of one's own ---------------------------------------


def worker_command(bin_dir: Path, *, hostname: str, queue: str) -> list[str]:
    """A Celery worker as the README runs it, named and on the run's queue."""
    return [
        str(bin_dir / "celery"), "-A", "saboteur_site", "--quiet", "worker", "--loglevel=info",
        "--hostname", hostname, "--queues", queue, "--concurrency", "2",
    ]  # fmt: skip


def beat_command(bin_dir: Path, *, schedule: Path) -> list[str]:
    """Beat as the README runs it; ``schedule`` is where a file schedule would go (RedBeat, with
    Redis, keeps it in Redis)."""
    return [
        str(bin_dir / "celery"), "-A", "saboteur_site", "--quiet", "beat", "--loglevel=info",
        "--schedule", str(schedule),
    ]  # fmt: skip


def database_url(name: str) -> str:
    """The test run's PostgreSQL (``DATABASE_URL``: server, user), with a database of our own."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def create_database(name: str) -> None:
    with psycopg.connect(database_url("postgres"), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    with psycopg.connect(database_url("postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# -- Logs -------------------------------------------------------------------------------------

BAD_LEVELS = {"ERROR", "CRITICAL", "FATAL"}


@dataclass
class LogCheck:
    """The problems in the lines the processes (and the release commands) wrote.

    ``problems(since_start=False)`` looks only at lines written since the previous call, so each
    test is charged with its own lines; the session's end looks at whatever is left.
    """

    files: list[tuple[str, Path, bool]] = field(default_factory=list)  # name, path, is stderr
    offsets: dict[Path, int] = field(default_factory=dict)

    def watch(self, process: Process) -> None:
        self.files.append((process.name, process.stderr_path, True))
        self.files.append((process.name, process.stdout_path, False))

    def watch_text(self, name: str, stderr: str, stdout: str, folder: Path) -> None:
        """The output of a finished command, written to files so that it is checked the same."""
        for text, suffix, is_err in ((stderr, "err", True), (stdout, "out", False)):
            path = folder / f"{name}.{suffix}"
            path.write_text(text)
            self.files.append((name, path, is_err))

    def problems(self) -> list[str]:
        found = []
        for name, path, is_stderr in self.files:
            start = self.offsets.get(path, 0)
            with open(path, "rb") as stream:
                stream.seek(start)
                data = stream.read()
            # Only whole lines: a line being written now is read next time.
            end = data.rfind(b"\n") + 1
            self.offsets[path] = start + end
            for raw in data[:end].splitlines():
                line = raw.decode("utf-8", "replace")
                if not line.strip():
                    continue
                found += [f"{name} {'stderr' if is_stderr else 'stdout'}: {why}: {line[:600]}"
                          for why in line_problems(line, is_stderr)]  # fmt: skip
        return found


def line_problems(line: str, is_stderr: bool) -> list[str]:
    """What is wrong with one output line: not a JSON object (on stderr), or an error's level."""
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        return ["not a JSON object"] if is_stderr else []
    level = str(record.get("level") or record.get("levelname") or "").upper()
    return [f"level {level}"] if level in BAD_LEVELS else []


# -- The proxy --------------------------------------------------------------------------------

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
    # The site trusts none of these (DJANGO_BEHIND_TLS_PROXY is off): a client's are dropped.
    "x-forwarded-proto",
    "x-forwarded-for",
    "x-forwarded-host",
}


@dataclass
class Answer:
    method: str
    path: str
    status: int
    upstream: str


class Proxy:
    """The front of the site on one loopback port: the live streams to uvicorn, the rest to
    gunicorn (README's nginx example). One request per connection (``Connection: close`` both
    ways), so that a response is simply passed on, byte by byte, until the upstream closes."""

    def __init__(self, web_port: int, live_port: int):
        self.upstreams = {"gunicorn": web_port, "uvicorn": live_port}
        self.answers: list[Answer] = []
        # The answers of status 5xx and the proxy's own failures, until a test takes them.
        self.server_errors: list[Answer] = []
        self.errors: list[str] = []
        self.port: int | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server = None
        self._tasks: set[asyncio.Task] = set()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        self.port = future.result(10)

    def stop(self) -> None:
        async def close():
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @staticmethod
    def take(items: list) -> list:
        """Empty ``items`` (appended to by the proxy's thread) and return what it held."""
        taken = []
        while items:
            taken.append(items.pop(0))
        return taken

    def _record(self, method: str, path: str, status: int, upstream: str) -> None:
        answer = Answer(method, path, status, upstream)
        self.answers.append(answer)
        if status >= 500:
            self.server_errors.append(answer)

    def to(self, upstream: str, pattern: str) -> list[Answer]:
        return [
            a for a in list(self.answers) if a.upstream == upstream and re.search(pattern, a.path)
        ]

    async def _listen(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self._server.sockets[0].getsockname()[1]

    async def _serve(self, reader, writer) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            await self._one_request(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the browser went away (a page closed, a stream ended)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # noqa: BLE001 - the test shows it
            self.errors.append(repr(error))
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _one_request(self, reader, writer) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return  # a connection opened and closed without a request (browsers pre-connect)
        request_line, *lines = head[:-4].decode("latin-1").split("\r\n")
        method, target, _version = request_line.split(" ", 2)
        path = urlsplit(target).path
        headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines if line]
        kept = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
        named = {k.lower(): v for k, v in headers}
        if "chunked" in named.get("transfer-encoding", "").lower():
            self._record(method, path, 501, "proxy")
            writer.write(b"HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        body = await reader.readexactly(int(named.get("content-length") or 0))
        upstream = "uvicorn" if LIVE_PATH.match(path) else "gunicorn"
        try:
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", self.upstreams[upstream]
            )
        except OSError as error:
            self._record(method, path, 502, upstream)
            self.errors.append(f"{upstream} refused {method} {path}: {error!r}")
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        try:
            request = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in kept)]
            request.append("Connection: close")
            up_writer.write(("\r\n".join(request) + "\r\n\r\n").encode("latin-1") + body)
            await up_writer.drain()
            await self._answer(method, path, upstream, reader, writer, up_reader)
        finally:
            up_writer.close()

    async def _answer(self, method, path, upstream, reader, writer, up_reader) -> None:
        head = await up_reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head[:-4].decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        self._record(method, path, status, upstream)
        kept = [line for line in lines if line.split(":", 1)[0].strip().lower() not in HOP_BY_HOP]
        response = "\r\n".join([status_line, *kept, "Connection: close"]) + "\r\n\r\n"
        writer.write(response.encode("latin-1"))
        await writer.drain()

        async def pass_on():
            while chunk := await up_reader.read(65536):
                writer.write(chunk)
                await writer.drain()

        # Until the upstream has said everything, or the browser has gone (a closed page's
        # stream: the upstream learns it when this connection to it closes).
        passing = asyncio.ensure_future(pass_on())
        gone = asyncio.ensure_future(reader.read(1))
        done, pending = await asyncio.wait({passing, gone}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if passing in done and passing.exception() is not None:
            exc = passing.exception()
            if not isinstance(exc, ConnectionError):
                raise exc


# -- Email ------------------------------------------------------------------------------------


class SmtpSink:
    """An SMTP server on loopback that keeps every message it is given."""

    def __init__(self):
        self.messages: list[EmailMessage] = []
        self._condition = threading.Condition()
        self.port = free_port()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        logging.getLogger("mail.log").setLevel(logging.WARNING)  # a line per SMTP command

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._condition:
            self.messages.append(message)
            self._condition.notify_all()
        return "250 Message accepted for delivery"

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def wait_for(self, predicate, *, timeout: float, what: str) -> EmailMessage:
        """The first message for which ``predicate(message)`` holds, waiting up to ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                for message in self.messages:
                    if predicate(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    subjects = [(m["To"], m["Subject"]) for m in self.messages]
                    raise AssertionError(f"no email {what} within {timeout} s; got {subjects}")
                self._condition.wait(left)


def text_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()
