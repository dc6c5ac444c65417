"""Answering game emails (issue 40): the one handler of every reply, whether an email service's
webhook (``games.web.inbound``, django-anymail) or `make run`'s local SMTP server
(``manage.py inbound_smtp``) brought it.

A reply is acted on only when all of this holds, else it is dropped without an answer (an
answer to a forged or automatic email would be a spam cannon): it is at most
``INBOUND_MAX_BYTES``; it is no auto-reply, out-of-office or bounce; one of its recipients is a
reply address of the site (``games.outbox.replies``) whose token is the site's and has not
expired with its game; its From is a verified address of the token's player, who is active
(and the receiving service did not find it forged: DMARC);
its Message-ID has not been handled before (a webhook delivered twice does nothing twice).

Then its new text (quotes and signatures stripped by mail-parser-reply, with the quote headers
of the site's five languages) decides: a first line that is a move's number in the email, or a
short form ("pass 2", "map north", in each language), makes that move, only while the email's
decision is still the player's (``move_submit`` checks the rest); anything else goes to the
game's chat as the player (``chat_post``: its rate limit and rules). The player gets a short
answer email (``Notice.Kind.ANSWER``): what was done, or why not with the moves they can make
now. Attachments are never read.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.html import strip_tags
from django.utils.translation import gettext as _
from mailparser_reply import EmailReplyParser
from mailparser_reply.constants import MAIL_LANGUAGES, QUOTED_MATCH_INCLUDE

from games import engine
from games.engine.cards import CATALOGUE, GOAL_NAMES
from games.models import Game, InboundMail, Notice
from games.outbox import one_tap, replies, sending
from games.read.drawing import hand_order
from games.read.log import goal_label
from games.read.seats import seat_names

from .chat import ChatTooFast, chat_post
from .errors import ServiceError
from .moves import move_submit

# -- Quote headers of the languages mail-parser-reply lacks (its README: add them this way) ---


def _headers(wrote: str, fields: str) -> dict[str, str]:
    return {
        "wrote_header": rf"^({QUOTED_MATCH_INCLUDE}{wrote})$",
        "from_header": r"((?:(?:^|\n|\n"
        + QUOTED_MATCH_INCLUDE
        + rf")[* ]*(?:{fields}):[ *]*(?:\s{{,2}}).*){{2,}}(?:\n.*){{,1}})",
    }


MAIL_LANGUAGES.setdefault(
    "sk", _headers(r"Dňa\s(?:.+?\s?.+?)\s?napísal\(a\):", "Od|Odoslané|Komu|Predmet|Dátum|Kópia")
)
MAIL_LANGUAGES.setdefault(
    "uk", _headers(r"(?:.+?\s?.+?)\s?пише:", "Від|Надіслано|Кому|Тема|Дата|Копія")
)
MAIL_LANGUAGES.setdefault(
    "ro",
    _headers(r"(?:În|Pe)\s(?:.+?\s?.+?)\s?a scris:", "De la|Trimis|Către|Subiect|Data|Cc"),
)
LANGUAGES = ["en", "cs", "sk", "uk", "ro"]

# -- What a reply says ---------------------------------------------------------------------------

MAX_TEXT = 4000  # characters of a reply's new text that are read at all


def _plain(word: str) -> str:
    """Lower case without accents: "Hartă" and "harta", "Střed" and "stred" are one word."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _words(*words: str) -> frozenset[str]:
    return frozenset(_plain(word) for word in words)


# The short forms, in English, Czech, Slovak, Ukrainian and Romanian (numbers work everywhere).
PASS_WORDS = _words("pass", "pas", "pass", "пас", "пропуск")
MAP_WORDS = _words("map", "mapa", "мапа", "карта", "hartă", "harta")
GOAL_WORDS = {
    "north": _words("north", "sever", "північ", "nord"),
    "middle": _words("middle", "centre", "center", "střed", "stred", "центр", "середина", "mijloc"),
    "south": _words("south", "jih", "juh", "південь", "sud"),
}
NUMBER = re.compile(r"#?(\d{1,3})[.)]?")
COMMAND = re.compile(r"(\w+)\s+#?(\w+)[.)]?")


@dataclass(frozen=True)
class Command:
    kind: str  # "number", "pass" (the number of a card of the hand) or "map" (a goal)
    value: int | str


def command_in(line: str) -> Command | None:
    """The command a reply's first line gives, or None (then it is a chat message)."""
    line = line.strip().rstrip("!.")
    if found := NUMBER.fullmatch(line):
        return Command("number", int(found[1]))
    found = COMMAND.fullmatch(line)
    if found is None:
        return None
    verb, what = _plain(found[1]), _plain(found[2])
    if verb in PASS_WORDS and what.isdigit():
        return Command("pass", int(what))
    if verb in MAP_WORDS:
        goal = next((g for g, words in GOAL_WORDS.items() if what in words), None)
        if goal is not None:
            return Command("map", goal)
    return None


def new_text(message: Message) -> str:
    """What the sender wrote, without the quoted email and their signature (text or HTML part;
    attachments are never read)."""
    if not isinstance(message, EmailMessage):
        return ""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        body = part.get_content()
    except (LookupError, KeyError, ValueError, AssertionError):
        return ""
    if not isinstance(body, str):
        return ""
    if part.get_content_subtype() == "html":
        body = strip_tags(re.sub(r"(?i)<br\s*/?>|</p>|</div>", "\n", body))
    body = body.replace("\r\n", "\n")[:MAX_TEXT]
    return EmailReplyParser(languages=LANGUAGES).parse_reply(text=body).strip()


# -- What is dropped without an answer -----------------------------------------------------------

AUTOMATIC_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesen|"
    r"automatick[aá] odpov[eě]ď|automatick[aá] odpoveď|nepřítomn|neprítomn|"
    r"автоматична відповідь|răspuns automat|undeliver|delivery status notification|"
    r"mail delivery failed|returned mail)",
    re.I,
)
BOUNCE_SENDERS = re.compile(r"^(mailer-daemon|postmaster)@", re.I)


def automatic(message: Message) -> str | None:
    """Why the email is an auto-reply or a bounce (RFC 3834, common headers), else None."""
    if (message.get("Auto-Submitted") or "no").strip().lower() != "no":
        return "auto-submitted"
    if (message.get("Precedence") or "").strip().lower() in ("bulk", "junk", "list", "auto_reply"):
        return "bulk"
    for header in ("X-Autoreply", "X-Autorespond", "X-Auto-Response", "X-Autogenerated"):
        if message.get(header):
            return "auto-reply header"
    if message.get("List-Id") or message.get("List-Unsubscribe"):
        return "a mailing list"
    if AUTOMATIC_SUBJECT.search(str(message.get("Subject") or "")):
        return "auto-reply subject"
    if message.get_content_type() == "multipart/report":
        return "delivery report"
    if (message.get("Return-Path") or "").strip() == "<>":
        return "bounce"
    if BOUNCE_SENDERS.match(parseaddr(str(message.get("From") or ""))[1]):
        return "bounce"
    return None


def spoofed(message: Message) -> bool:
    """Whether the receiving service found the From forged: its DMARC check failed (RFC 8601
    Authentication-Results, which Mailgun and Postmark add). SPF alone is not enough to drop a
    reply: mail forwarded from another account of the player fails it honestly."""
    results = " ".join(str(value) for value in message.get_all("Authentication-Results", []))
    return re.search(r"\bdmarc=fail\b", results, re.I) is not None


@dataclass(frozen=True)
class Received:
    """What became of an inbound email: "moved", "chat" or "refused" (each with an answer), or
    "dropped" (no answer) with why."""

    outcome: str
    why: str = ""


def _dropped(why: str) -> Received:
    return Received("dropped", why)


def _reply_token(message: Message, recipients) -> str | None:
    """The token of the first reply address among the envelope's recipients and the headers'."""
    listed = list(recipients or ())
    for header in ("Delivered-To", "X-Original-To", "To", "Cc"):
        listed += [address for _name, address in getaddresses(message.get_all(header, []))]
    for address in listed:
        token = replies.token_in(str(address))
        if token is not None:
            return token
    return None


def _message_key(message: Message, raw: bytes) -> str:
    found = str(message.get("Message-ID") or "").strip()
    if found:
        return found[:255]
    return "sha256:" + hashlib.sha256(raw).hexdigest()  # no id: the same bytes are the same mail


def receive(message: Message, *, recipients=(), size: int | None = None) -> Received:
    """Act on one inbound email (see the module's docstring)."""
    raw = message.as_bytes()
    if max(size or 0, len(raw)) > settings.INBOUND_MAX_BYTES:
        return _dropped("too large")
    if why := automatic(message):
        return _dropped(why)
    if spoofed(message):
        return _dropped("forged sender (DMARC)")
    token = _reply_token(message, recipients)
    address = replies.read_reply_token(token) if token else None
    if address is None:
        return _dropped("no reply address of the site")
    game = Game.objects.filter(pk=address.game_id).first()
    user = get_user_model().objects.filter(pk=address.user_id, is_active=True).first()
    if game is None or user is None:
        return _dropped("no such game or player")
    if replies.expired(game):
        return _dropped("expired with its game")
    sender = parseaddr(str(message.get("From") or ""))[1]
    if (
        not sender
        or not EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()
    ):
        return _dropped("not from the player's verified address")
    text = new_text(message)
    key = _message_key(message, raw)
    with translation.override(user.language or settings.LANGUAGE_CODE):
        return _handle(message, key, game, user, address, text)


def _handle(message: Message, key: str, game: Game, user, address, text: str) -> Received:
    with transaction.atomic():
        try:
            with transaction.atomic():
                record = InboundMail.objects.create(
                    message_id=key, user=user, game=game, outcome=InboundMail.Outcome.REFUSED
                )
        except IntegrityError:
            return _dropped("handled before")
        outcome, lines = _act(game, user, address, text, key)
        record.outcome = outcome
        record.save(update_fields=["outcome"])
        _answer(record, game, user, lines, message)
    return Received(outcome)


def _act(game: Game, user, address, text: str, key: str) -> tuple[str, list[str]]:
    first = next((line for line in text.splitlines() if line.strip()), "")
    command = command_in(first)
    if command is None:
        return _chat(game, user, text)
    try:
        move = _move_for(game, user, address, command)
        move_submit(
            game_id=game.pk,
            user=user,
            move=move,
            expected_version=address.version,
            idempotency_key="reply:" + hashlib.sha256(key.encode()).hexdigest()[:40],
        )
    except ServiceError as refused:
        return InboundMail.Outcome.REFUSED, [
            _("Your reply to %(game)s made no move: %(why)s") % {"game": game.name, "why": refused}
        ]
    names = seat_names(game)
    me = game.seats.filter(user=user).live().get().engine_name
    return InboundMail.Outcome.MOVED, [
        _("Done in %(game)s: %(move)s.")
        % {"game": game.name, "move": one_tap.move_label(move, names, me)}
    ]


def _chat(game: Game, user, text: str) -> tuple[str, list[str]]:
    if not text:
        return InboundMail.Outcome.REFUSED, [
            _("Your reply to %(game)s had no text of its own (only the quoted email).")
            % {"game": game.name}
        ]
    try:
        posted = chat_post(game_id=game.pk, user=user, text=text)
    except ChatTooFast as refused:
        return InboundMail.Outcome.REFUSED, [str(refused.message)]
    except ServiceError as refused:
        return InboundMail.Outcome.REFUSED, [
            _("Your message was not posted to %(game)s: %(why)s")
            % {"game": game.name, "why": refused}
        ]
    return InboundMail.Outcome.CHAT, [
        _("Posted to the chat of %(game)s: “%(text)s”") % {"game": game.name, "text": posted.text}
    ]


def _move_for(game: Game, user, address, command: Command) -> engine.Move:
    """The move a command names, for the decision the email was sent for; refused otherwise."""
    state, me = _the_emails_decision(game, user, address, command)
    if command.kind == "number":
        listed = one_tap.one_tap_moves(state, me)
        if not isinstance(command.value, int) or not 1 <= command.value <= len(listed):
            raise ServiceError(
                _("that email lists no move number %(number)s.") % {"number": command.value}
            )
        return listed[command.value - 1]
    if command.kind == "pass":
        hand = hand_order(state.hands[state.seats.index(me)])
        if not isinstance(command.value, int) or not 1 <= command.value <= len(hand):
            raise ServiceError(
                _("your hand has no card number %(number)s.") % {"number": command.value}
            )
        return {"move": "pass", "discard": [hand[command.value - 1]]}
    for move in engine.legal_moves(state, me):
        card = CATALOGUE.get(str(move.get("card", "")))
        if card is not None and card.effect == "map" and move.get("goal") == command.value:
            return move
    goal = command.value if command.value in GOAL_NAMES else "?"
    raise ServiceError(
        _("you cannot play a map on the %(goal)s goal now.") % {"goal": goal_label(goal)}
    )


def _the_emails_decision(game: Game, user, address, command: Command) -> tuple[engine.State, str]:
    """The state and the reader's seat, while the email's decision is still theirs and the
    command fits the email (a number only where it numbered moves); refused otherwise."""
    seat = game.seats.filter(user=user).live().first()
    if seat is None:
        raise ServiceError(_("you do not play in this game."))
    state = game.engine_state() if game.snapshot else None
    me = seat.engine_name
    if (
        state is None
        or game.status != Game.Status.RUNNING
        or state.to_move is None
        or state.seats[state.to_move] != me
    ):
        raise ServiceError(_("it is not your decision now."))
    if game.version != address.version:
        raise ServiceError(_("the game has moved on since that email, so its moves are stale."))
    if command.kind in ("number", "pass") and not address.moves:
        raise ServiceError(
            _("that email lists no moves or cards to choose by number (“map north” works).")
        )
    return state, me


def _answer(record: InboundMail, game: Game, user, lines: list[str], message: Message) -> None:
    """The short answer email (``games.outbox.emails._answer`` adds the moves of now)."""
    now = timezone.now()
    seat = game.seats.filter(user=user).live().first() or game.seats.filter(user=user).first()
    subject = _("Your reply to %(game)s") % {"game": game.name}
    notice = Notice.objects.create(
        key=f"answer:{record.pk}",
        kind=Notice.Kind.ANSWER,
        user=user,
        game=game,
        seat=seat,
        version=game.version,
        data={
            "subject": subject,
            "lines": lines,
            "in_reply_to": str(message.get("Message-ID") or "")[:255],
        },
        due_at=now,
    )
    sending.enqueue_after_commit([notice])
