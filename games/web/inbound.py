"""Replies to game emails arriving through an email service (issue 40): django-anymail's inbound
webhooks for Mailgun and Postmark hand each email to the one handler,
``games.play.replies.receive``, which `make run`'s local SMTP server calls too.

An address answers only for the providers in ``INBOUND_EMAIL_PROVIDERS`` (404 for the others):
a provider not set up has no key to check a signature with.

Every post is checked before anything is read from it (issue 47): the basic auth of the webhook
URL (``ANYMAIL["WEBHOOK_SECRET"]``), for Mailgun as for Postmark, and for Mailgun also its
signature, its timestamp (within ``MAILGUN_WINDOW`` of now) and its token (never seen before,
``first_use``). A post that fails a check, or that Anymail cannot read into an email (not JSON,
a list, wrong field types, bad base64, Mailgun's fields missing or garbled...), answers 400
with a WARNING and changes nothing: the provider sent something that will never read better,
and the log shows it without raising an alarm an outsider could raise at will. What the handler
raises is left alone: a bug of ours is a 500 (an ERROR) and the provider retries after a fix.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from email.errors import MessageError
from typing import Any

from anymail.exceptions import (
    AnymailConfigurationError,
    AnymailError,
    AnymailWebhookValidationFailure,
)
from anymail.webhooks.mailgun import MailgunInboundWebhookView
from anymail.webhooks.postmark import PostmarkInboundWebhookView
from django.conf import settings
from django.core.cache import cache
from django.dispatch import Signal, receiver
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.request import RawPostDataException
from django.views.decorators.csrf import csrf_exempt

from games.play import replies

log = logging.getLogger(__name__)

# The views send their events on a signal of this module (not Anymail's global ``inbound``), so
# that the receiver below is connected whenever the views can be reached.
reply_received = Signal()

# How far a Mailgun post's timestamp may be from now, either way: Mailgun's own delays and the
# two clocks' drift fit in it; a post captured and replayed later does not.
MAILGUN_WINDOW = timedelta(minutes=5)
# A token is remembered as long as a post carrying it could still pass the window: a timestamp
# up to MAILGUN_WINDOW ahead passes until MAILGUN_WINDOW after it; a minute more for safety.
TOKEN_MEMORY = 2 * MAILGUN_WINDOW + timedelta(minutes=1)

# What reading a post that is not what the provider sends raises, in Django (a body a multipart
# parse has consumed), in Anymail's parsers (json.loads, ``dict.get`` on a list, ``int()`` of
# text, base64 and header parsing: ValueError, TypeError, KeyError, AttributeError...) and in
# Python's email package; AnymailError covers the failed checks (AnymailWebhookValidationFailure)
# and AnymailConfigurationError a tracking event posted to the inbound address.
UNREADABLE = (
    ValueError,
    TypeError,
    LookupError,
    AttributeError,
    RecursionError,
    OverflowError,
    MessageError,
    RawPostDataException,
    AnymailError,
    AnymailConfigurationError,
)


class Unreadable(ValueError):
    """A post that passed its checks but is not an email this site can read."""


class Replayed(Exception):
    """A Mailgun post whose token was already used."""


class CacheAway(Exception):
    """The cache that remembers Mailgun's tokens cannot be reached: no token can be checked."""


def first_use(token: str) -> bool:
    """Whether this is the first post with this Mailgun ``token`` (recording that it was used).

    Kept in the Django cache, which every web process shares (Redis in production, the database
    table of `make run`): ``cache.add`` is atomic (Redis's SET NX), so of two deliveries of one
    token at the same moment exactly one passes, and the entry expires by itself after
    ``TOKEN_MEMORY``, when the timestamp signed with it no longer passes ``MAILGUN_WINDOW``: no
    table to purge, no migration. The site's Redis cache answers "nothing" rather than failing
    while Redis is away (saboteur_site/cache.py): an ``add`` not taken and a missing entry then mean
    that no token can be checked, which raises ``CacheAway`` (the post is answered 503 and
    Mailgun tries again later) rather than taking every post for a replay or none.
    """
    key = "inbound:mailgun-token:" + hashlib.sha256(token.encode()).hexdigest()
    if cache.add(key, 1, timeout=TOKEN_MEMORY.total_seconds()):
        return True
    if cache.get(key) is None:
        raise CacheAway
    return False


def check_fresh(timestamp: str, token: str, *, now: float) -> None:
    """Refuse a Mailgun post signed outside ``MAILGUN_WINDOW`` of ``now`` (Unix seconds), or
    whose token was used before (``Replayed``). Mailgun signs only the timestamp and the token,
    not the body: without these checks one signed post could be replayed forever, with any
    body."""
    try:
        signed_at = int(timestamp)
    except ValueError as error:
        raise AnymailWebhookValidationFailure(
            "Mailgun post with an unreadable timestamp"
        ) from error
    if abs(now - signed_at) > MAILGUN_WINDOW.total_seconds():
        raise AnymailWebhookValidationFailure(
            f"Mailgun post signed {min(abs(now - signed_at), 10**9):.0f} s away from now"
            f" (at most {MAILGUN_WINDOW.total_seconds():.0f} s either way)"
        )
    if not first_use(token):
        raise Replayed


def check_readable(event) -> None:
    """An email the handler can take: Anymail builds messages lazily enough that a header or a
    part it was given in the wrong shape fails only when written out."""
    message = event.message
    if not isinstance(getattr(message, "envelope_recipient", None), str | None):
        raise Unreadable("its envelope recipient is not text")
    message.as_bytes()


class CheckedPosts:
    """Anymail's ``post`` (check, read, send each event on the signal) with the answers of
    issue 47: a post refused by a check or that cannot be read answers 400 with a WARNING
    (Anymail lets Django log an ERROR, or answer 500 to what it cannot parse); a replayed one
    200 without being acted on. Only the handler, on the signal, may raise past it."""

    esp_name: str
    signal: Signal
    # Anymail's webhook view, which this is mixed into, has these (anymail ships no types).
    run_validators: Callable[[HttpRequest], None]
    parse_events: Callable[[HttpRequest], list[Any]]

    def post(self, request, *args, **kwargs):
        try:
            self.run_validators(request)
            events = self.parse_events(request)
            for event in events:
                check_readable(event)
        except Replayed:
            # Acted on (or refused) once already: a redelivery whose answer was lost should
            # stop (Mailgun retries anything but a 200 or a 406 for hours), and a copy posted
            # by anyone else gets nothing done.
            log.warning("inbound %s post refused: its token was used before", self.esp_name)
            return HttpResponse()
        except CacheAway:
            log.warning("inbound %s post not taken: the cache of tokens is away", self.esp_name)
            return HttpResponse("Try again later.", status=503, content_type="text/plain")
        except UNREADABLE as error:
            log.warning(
                "inbound %s post refused: %s: %s",
                self.esp_name,
                type(error).__name__,
                str(error)[:200],
            )
            return HttpResponseBadRequest("Not an inbound email.", content_type="text/plain")
        for event in events:
            self.signal.send(sender=self.__class__, event=event, esp_name=self.esp_name)
        return HttpResponse()


class MailgunReplies(CheckedPosts, MailgunInboundWebhookView):
    signal = reply_received

    def run_validators(self, request):
        """Basic auth (required: Mailgun's signature alone can be replayed), then Mailgun's
        signature (Anymail), then a form post signed a moment ago with a new token."""
        if not self.basic_auth:
            raise AnymailWebhookValidationFailure(
                "Mailgun posts need basic auth too: ANYMAIL_WEBHOOK_SECRET is not set"
            )
        super().run_validators(request)
        if request.content_type == "application/json":
            # Mailgun posts inbound mail as a form; JSON is one of its tracking webhooks.
            raise Unreadable("a JSON post (a tracking webhook?) at the inbound address")
        check_fresh(request.POST["timestamp"], request.POST["token"], now=time.time())


class PostmarkReplies(CheckedPosts, PostmarkInboundWebhookView):
    signal = reply_received


PROVIDERS = {"mailgun": MailgunReplies.as_view(), "postmark": PostmarkReplies.as_view()}


@csrf_exempt
def webhook(request, provider: str):
    view = PROVIDERS.get(provider)
    if view is None or provider not in settings.INBOUND_EMAIL_PROVIDERS:
        raise Http404
    if _too_large(request):
        # A reply with a photo, say: dropped unread (``INBOUND_MAX_BYTES`` drops far smaller
        # ones), and acknowledged, so that the service does not post it again for hours.
        # Reading it would stop at Django's upload limit with an ERROR and a retried 400.
        log.warning("inbound post to %s dropped unread: over the upload limit", provider)
        return HttpResponse("dropped: too large")
    return view(request)


def _too_large(request) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit is not None and length > limit


@receiver(reply_received, dispatch_uid="games.inbound")
def on_inbound(sender, event, esp_name, **kwargs) -> None:
    message = event.message
    recipient = getattr(message, "envelope_recipient", None)
    received = replies.receive(message, recipients=[recipient] if recipient else [])
    log.info("inbound email from %s: %s %s", esp_name, received.outcome, received.why)
