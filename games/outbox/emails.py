"""Building the emails of the outbox: plain text and HTML, in the player's language.

An email shows what the player may know: public events and their own private ones, the same
lines the game page's log shows them. Links lead to the game and carry no login power.

Here the frame every email shares (its headers, Reply-To, Message-ID, List-Unsubscribe and the
two templates); what each kind says is ``turn_emails`` ("your turn", the reminder, the answer to
a reply) and ``event_emails`` (the rest), with the words they share in ``email_words``.
"""

from __future__ import annotations

import email.policy
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.message import make_msgid
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.models import Notice
from saboteur_site.text import one_line

from . import reply_addresses
from .event_emails import (
    _aborted,
    _absent,
    _briefing,
    _challenge,
    _challenge_answer,
    _clock,
    _digest,
    _finished,
    _forming,
    _invitation,
    _mention,
    _replaced,
    _started,
    _taken_over,
    _timeout,
    _vacation,
    _vacation_ending,
)
from .links import UNSUBSCRIBE_KINDS, site_url, unsubscribe_token
from .moderation_emails import _muted, _report_done, _warned
from .quiet import user_zone
from .turn_emails import _answer, _turn

UNSUBSCRIBE_FOR: dict[str, str] = {
    Notice.Kind.TURN: "turns",
    Notice.Kind.REMINDER: "reminders",
    Notice.Kind.DIGEST: "digest",
    Notice.Kind.MENTION: "mentions",
    Notice.Kind.ABSENT: "absent",
}


class NoticeEmail(EmailMultiAlternatives):
    """An email whose long headers stay readable.

    List-Unsubscribe holds one long URL with no space to fold at; the default policy would fold
    it into RFC 2047 encoded words, which mail clients do not read as a URL. RFC 5322 allows
    lines of up to 998 characters.
    """

    # (Content-ID, PNG) shown by the HTML part.
    inline_images: Sequence[tuple[str, bytes]] = ()

    def message(self, *, policy=email.policy.default):
        message = super().message(policy=policy.clone(max_line_length=998))
        if self.inline_images:
            # The HTML part becomes multipart/related with the pictures it shows by "cid:", so
            # mail clients show them without loading anything remote.
            html = message.get_body(("html",))
            if html is None:  # never: ``build_email`` attaches the HTML part with the pictures
                raise ValueError("an email with pictures needs its HTML part")
            for cid, png in self.inline_images:
                html.add_related(
                    png,
                    maintype="image",
                    subtype="png",
                    cid=f"<{cid}>",
                    disposition="inline",
                    filename=cid.split("@")[0] + ".png",
                )
        return message


def build_email(
    notice: Notice, address: str, together: Iterable[Notice] = ()
) -> EmailMultiAlternatives:
    """The email of ``notice`` (and of the ``together`` notices of the same kind, game and
    player that it tells at once: several timeouts released after quiet hours)."""
    user = notice.user
    language = (user.language if user else "") or settings.LANGUAGE_CODE
    zone = user_zone(user) if user else timezone.get_default_timezone()
    with translation.override(language), timezone.override(zone):
        context = _context(notice, list(together))
        context["language"] = translation.get_language()
        what = UNSUBSCRIBE_FOR.get(notice.kind)
        headers = {"Content-Language": context["language"], "Message-ID": message_id(notice)}
        if user is not None and what in UNSUBSCRIBE_KINDS:
            link = site_url(reverse("unsubscribe", args=[unsubscribe_token(user, what)]))
            context["unsubscribe_url"] = link
            headers["List-Unsubscribe"] = f"<{link}>"
            headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        reply_to = _reply_to(notice, numbered=bool(context.get("taps")))
        if reply_to is not None:
            headers["Reply-To"] = reply_to
            context["reply_hint"] = _reply_hint(context)
        if notice.data.get("in_reply_to"):  # an answer: threaded under the reply it answers
            headers["In-Reply-To"] = headers["References"] = notice.data["in_reply_to"]
        text = render_to_string("emails/notice.txt", context)
        html = render_to_string("emails/notice.html", context)
    # One line whatever the stored data holds (a game named before names were checked).
    subject = one_line(context["subject"])
    message = NoticeEmail(subject=subject, body=text, to=[address], headers=headers)
    message.attach_alternative(html, "text/html")
    message.inline_images = context.get("images", [])
    return message


def _reply_to(notice: Notice, *, numbered: bool) -> str | None:
    """A game email's Reply-To: an address of its reader, the game and the decision of now
    (``reply_addresses``), and whether the email ``numbered`` moves (only then does a number mean
    one)."""
    if notice.user is None or notice.game is None:
        return None
    return reply_addresses.reply_address(
        user_id=notice.user.pk,
        game_id=notice.game.pk,
        version=notice.game.version,
        moves=numbered,
    )


def _reply_hint(context: dict) -> str:
    if context.get("taps"):
        return _(
            "Reply to this email with the number of a move to make it (or, for example, "
            "“pass 2” to pass discarding the second card of your hand, “map north”); anything "
            "else you write goes to the table’s chat."
        )
    return _("Reply to this email to write to the table’s chat.")


def message_id(notice: Notice) -> str:
    """One Message-ID per outbox row, the same on every attempt to send it.

    Sending is once per row (``sending.send``), but one moment cannot be closed: a sender killed
    after the SMTP server took the email and before the row was marked sent sends it again later
    (RFC 1047). With the same Message-ID the copies are one email to mail stores that keep one
    per id, and to anyone counting. The row's creation time keeps ids apart when a database
    restored from a backup numbers its new rows as the lost ones were.
    """
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    if notice.pk is None:  # a preview of an unsaved row: no id to keep
        return make_msgid(domain=host)
    stamp = int(notice.created_at.timestamp() * 1_000_000)
    return f"<notice.{notice.pk}.{stamp}@{host}>"


def _context(notice: Notice, together: list[Notice]) -> dict:
    builders: dict[str, Callable[..., dict]] = {
        Notice.Kind.TURN: _turn,
        Notice.Kind.REMINDER: _turn,
        Notice.Kind.DIGEST: _digest,
        Notice.Kind.ABSENT: _absent,
        Notice.Kind.INVITATION: _invitation,
        Notice.Kind.MENTION: _mention,
        Notice.Kind.STARTED: _started,
        Notice.Kind.FINISHED: _finished,
        Notice.Kind.TIMEOUT: _timeout,
        Notice.Kind.ABORTED: _aborted,
        Notice.Kind.BRIEFING: _briefing,
        Notice.Kind.REPLACED: _replaced,
        Notice.Kind.PAUSED: _clock,
        Notice.Kind.RESUMED: _clock,
        Notice.Kind.EXTENDED: _clock,
        Notice.Kind.VACATION: _vacation,
        Notice.Kind.VACATION_ENDING: _vacation_ending,
        Notice.Kind.TAKEN_OVER: _taken_over,
        Notice.Kind.ANSWER: _answer,
        Notice.Kind.REPORT_DONE: _report_done,
        Notice.Kind.WARNED: _warned,
        Notice.Kind.MUTED: _muted,
        Notice.Kind.FORMING: _forming,
        Notice.Kind.CHALLENGE: _challenge,
        Notice.Kind.CHALLENGE_ANSWER: _challenge_answer,
    }
    context = {
        "greeting": _greeting(notice.user),
        "lines": [],
        "log": [],
        "recaps": [],
        "links": [],
    }
    if together:
        context.update(builders[notice.kind](notice, together))
    else:
        context.update(builders[notice.kind](notice))
    return context


def headline(notice: Notice) -> tuple[str, str]:
    """The subject and first line of the notice's email, in the active language and time zone:
    what a push says for a kind without words of its own (``push.payload``)."""
    context = _context(notice, [])
    return context["subject"], next(iter(context["lines"]), "")


def _greeting(user) -> str:
    if user is None:
        return _("Hello,")
    return _("Hello %(name)s,") % {"name": user.display_name}
