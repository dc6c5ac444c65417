"""Replies to game emails arriving through an email service (issue 40): django-anymail's inbound
webhooks for Mailgun and Postmark, each with its own check (Mailgun's HMAC signature of every
post, Postmark's basic auth, ``ANYMAIL``), hand each email to the one handler,
``games.play.replies.receive``, which `make run`'s local SMTP server calls too.

An address answers only for the providers in ``INBOUND_EMAIL_PROVIDERS`` (404 for the others):
a provider not set up has no key to check a signature with.
"""

from __future__ import annotations

import logging

from anymail.webhooks.mailgun import MailgunInboundWebhookView
from anymail.webhooks.postmark import PostmarkInboundWebhookView
from django.conf import settings
from django.dispatch import Signal, receiver
from django.http import Http404
from django.views.decorators.csrf import csrf_exempt

from games.play import replies

log = logging.getLogger(__name__)

# The views send their events on a signal of this module (not Anymail's global ``inbound``), so
# that the receiver below is connected whenever the views can be reached.
reply_received = Signal()


class MailgunReplies(MailgunInboundWebhookView):
    signal = reply_received


class PostmarkReplies(PostmarkInboundWebhookView):
    signal = reply_received


PROVIDERS = {"mailgun": MailgunReplies.as_view(), "postmark": PostmarkReplies.as_view()}


@csrf_exempt
def webhook(request, provider: str):
    view = PROVIDERS.get(provider)
    if view is None or provider not in settings.INBOUND_EMAIL_PROVIDERS:
        raise Http404
    return view(request)


@receiver(reply_received, dispatch_uid="games.inbound")
def on_inbound(sender, event, esp_name, **kwargs) -> None:
    message = event.message
    recipient = getattr(message, "envelope_recipient", None)
    received = replies.receive(message, recipients=[recipient] if recipient else [])
    log.info("inbound email from %s: %s %s", esp_name, received.outcome, received.why)
