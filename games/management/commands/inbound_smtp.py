"""`manage.py inbound_smtp`: the local SMTP server of `make run` that takes replies to game
emails (issue 40), so that answering an email works offline; production takes them through an
email service's webhook instead (``games.web.inbound``). Both hand each email to
``games.play.replies.receive``.

It listens on ``INBOUND_SMTP_ADDR`` (127.0.0.1:8025 by default: loopback only) and accepts mail
for reply addresses at ``REPLY_DOMAIN`` alone, each at most ``INBOUND_MAX_BYTES``. README
"Answering the emails" shows how to send it one with Python's smtplib or swaks.
"""

from __future__ import annotations

import logging
import signal
import threading
from email import policy
from email.parser import BytesParser

from aiosmtpd.controller import Controller
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection

from games.outbox import reply_addresses
from games.play import replies

log = logging.getLogger(__name__)


def _receive(content: bytes, recipients: list[str]) -> replies.Received:
    close_old_connections()
    try:
        message = BytesParser(policy=policy.default).parsebytes(content)
        return replies.receive(message, recipients=recipients, size=len(content))
    finally:
        connection.close()  # a thread of the server's pool: its connection must not linger


class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if reply_addresses.token_in(address) is None:
            return "550 5.1.1 Not a reply address of this site"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content or envelope.content
        if not isinstance(content, bytes):
            content = str(content).encode("utf-8", "surrogateescape")
        try:
            received = await sync_to_async(_receive, thread_sensitive=False)(
                content, list(envelope.rcpt_tos)
            )
        except Exception:  # the database away...: the sender's server tries again later
            log.exception("an inbound email could not be handled")
            return "451 4.3.0 Could not take the message now; please try again later"
        log.info("inbound email by SMTP: %s %s", received.outcome, received.why)
        return "250 2.0.0 Message accepted"


def controller(addr: str | None = None) -> Controller:
    """The server (not started) on ``addr`` ("host:port"), by default ``INBOUND_SMTP_ADDR``."""
    host, _colon, port = (addr or settings.INBOUND_SMTP_ADDR).rpartition(":")
    return Controller(
        Handler(),
        hostname=host or "127.0.0.1",
        port=int(port),
        data_size_limit=settings.INBOUND_MAX_BYTES,
        decode_data=False,
    )


class Command(BaseCommand):
    help = "Take replies to game emails by SMTP on INBOUND_SMTP_ADDR (make run; loopback)."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default=None, help="host:port (default INBOUND_SMTP_ADDR)")

    def handle(self, *args, addr=None, **options):
        if not settings.REPLY_DOMAIN:
            raise CommandError("REPLY_DOMAIN is not set: no email would carry a reply address.")
        # aiosmtpd logs every connection (its start-up check's too) at INFO: only problems here.
        logging.getLogger("mail.log").setLevel(logging.WARNING)
        server = controller(addr)
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_args: stop.set())
        server.start()
        self.stdout.write(
            f"Taking replies to reply+...@{settings.REPLY_DOMAIN} by SMTP on "
            f"{server.hostname}:{server.port}"
        )
        try:
            stop.wait()
        finally:
            server.stop()
