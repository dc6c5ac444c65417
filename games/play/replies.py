"""Answering game emails (issue 40): the one handler of every reply, whether an email service's
webhook (``games.web.inbound``, django-anymail) or `make run`'s local SMTP server
(``manage.py inbound_smtp``) brought it.

A reply is acted on only when all of this holds, else it is dropped without an answer (an
answer to a forged or automatic email would be a spam cannon): it is at most
``INBOUND_MAX_BYTES``; it is no auto-reply, out-of-office or bounce; one of its recipients is a
reply address of the site (``games.outbox.reply_addresses``) whose token is the site's and has not
expired with its game; its From is a verified address of the token's player, who is active
(and the receiving service did not find it forged: DMARC);
its Message-ID has not been handled before (a webhook delivered twice does nothing twice).

Then its new text (``games.outbox.quotes``: the quoted email and the signature removed, however
the mail program quoted it) decides: a first line that is a move's number in the email, or a
short form ("pass 2", "map north", in each language), makes that move, only while the email's
decision is still the player's (``move_submit`` checks the rest); anything else goes to the
game's chat as the player (``chat_post``: its rate limit and rules), unless it cannot be told
from the quote (then nothing is posted: the quote holds the player's role). The player gets a short
answer email (``Notice.Kind.ANSWER``): what was done, or why not with the moves they can make
now. Attachments are never read.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import Message
from email.utils import getaddresses, parseaddr

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import CATALOGUE, GOAL_NAMES
from games.models import Game, InboundMail, Notice
from games.outbox import one_tap, quotes, reply_addresses, sending
from games.read.card_names import hand_order
from games.read.log import describe, goal_label
from games.read.seats import seat_names

from .chat import ChatTooFast, chat_post
from .errors import ServiceError
from .moves import move_submit

# -- What a reply says ---------------------------------------------------------------------------


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
        token = reply_addresses.token_in(str(address))
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
    address = reply_addresses.read_reply_token(token) if token else None
    if address is None:
        return _dropped("no reply address of the site")
    game = Game.objects.filter(pk=address.game_id).first()
    user = get_user_model().objects.filter(pk=address.user_id, is_active=True).first()
    if game is None or user is None:
        return _dropped("no such game or player")
    if reply_addresses.expired(game):
        return _dropped("expired with its game")
    sender = parseaddr(str(message.get("From") or ""))[1]
    if (
        not sender
        or not EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()
    ):
        return _dropped("not from the player's verified address")
    text = quotes.own_text(message, reader=user.display_name)
    key = _message_key(message, raw)
    with translation.override(user.language or settings.LANGUAGE_CODE):
        return _handle(message, key, game, user, address, text)


def _handle(
    message: Message, key: str, game: Game, user, address, text: quotes.OwnText
) -> Received:
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


def _act(game: Game, user, address, text: quotes.OwnText, key: str) -> tuple[str, list[str]]:
    first = next((line for line in text.text.splitlines() if line.strip()), "")
    command = command_in(first)
    if command is None:
        return _chat(game, user, text)
    try:
        move, label = _move_for(game, user, address, command)
        done = move_submit(
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
    return InboundMail.Outcome.MOVED, [
        _("Done in %(game)s: %(move)s.") % {"game": game.name, "move": label},
        *_learnt(game, user, done.move.events),
    ]


def _learnt(game: Game, user, events: Iterable[engine.Event]) -> list[str]:
    """What the move showed its player alone, as their log says it: the goal card a map showed,
    the role a look revealed, the cards drawn (the one-tap page shows the same)."""
    names = seat_names(game)
    me = game.seats.filter(user=user).live().get().engine_name
    lines = []
    for event in events:
        if event.get("to") == me:
            line = describe(event, names, me)
            if line:
                lines.append(line)
    return lines


def _chat(game: Game, user, text: quotes.OwnText) -> tuple[str, list[str]]:
    """Post the reply's own text to the chat; nothing when it is empty or may hold part of the
    quoted email (``quotes.OwnText.unsure``): the table must never read a player's role."""
    if text.unsure:
        return InboundMail.Outcome.REFUSED, [
            _(
                "Nothing was posted to the chat of %(game)s: your message could not be told "
                "apart from the email it quotes, which holds your role and your hand. Please "
                "write your message above the quoted email and send it again."
            )
            % {"game": game.name}
        ]
    if not text.text:
        return InboundMail.Outcome.REFUSED, [
            _(
                "Your reply to %(game)s had no text of its own (only the quoted email). Write "
                "your message above the quoted email."
            )
            % {"game": game.name}
        ]
    try:
        posted = chat_post(game_id=game.pk, user=user, text=text.text)
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


def _move_for(game: Game, user, address, command: Command) -> tuple[engine.Move, str]:
    """The move a command names, for the decision the email was sent for, and its label as the
    email listed it; refused otherwise."""
    state, me = _the_emails_decision(game, user, address, command)
    listed = one_tap.listed_moves(state, me, seat_names(game))
    if command.kind == "number":
        found = [m for m in listed if not m.is_pass and m.number == command.value]
        if not found:
            raise ServiceError(
                _(
                    "that email lists no move number %(number)s (to pass, write “pass” and the "
                    "number of the card in your hand, for example “pass 2”)."
                )
                % {"number": command.value}
            )
        return found[0].move, found[0].label
    if command.kind == "pass":
        hand = hand_order(state.hands[state.seats.index(me)])
        if not isinstance(command.value, int) or not 1 <= command.value <= len(hand):
            raise ServiceError(
                _("your hand has no card number %(number)s.") % {"number": command.value}
            )
        move: engine.Move = {"move": "pass", "discard": [hand[command.value - 1]]}
        return move, one_tap.move_label(move, seat_names(game), me)
    for each in listed:
        card = CATALOGUE.get(str(each.move.get("card", "")))
        if card is not None and card.effect == "map" and each.move.get("goal") == command.value:
            return each.move, each.label
    goal = command.value if command.value in GOAL_NAMES else "?"
    raise ServiceError(
        _("you cannot play a map on the %(goal)s goal now.") % {"goal": goal_label(goal)}
    )


def _the_emails_decision(game: Game, user, address, command: Command) -> tuple[engine.State, str]:
    """The state and the reader's seat, while the email's decision is still theirs and the
    command fits the email (a number only where it numbered moves); refused otherwise, with
    the real reason (issue 47: "1" to the game's start answered "stale")."""
    seat = game.seats.filter(user=user).live().first()
    if seat is None:
        raise ServiceError(_("you do not play in this game."))
    if command.kind in ("number", "pass") and not address.moves:
        raise ServiceError(
            _("that email lists no moves or cards to choose by number (“map north” works).")
        )
    if game.status == Game.Status.FINISHED:
        raise ServiceError(_("the game is over."))
    if game.status == Game.Status.ABORTED:
        raise ServiceError(_("the moderators stopped the game."))
    if game.status == Game.Status.PAUSED:
        raise ServiceError(_("the moderators have paused the game; moves wait until it resumes."))
    state = game.engine_state() if game.snapshot else None
    if state is None or game.status != Game.Status.RUNNING:
        raise ServiceError(_("the game has not started yet."))
    me = seat.engine_name
    if state.to_move is None or state.seats[state.to_move] != me:
        deciding = state.seats[state.to_move] if state.to_move is not None else ""
        mover = seat_names(game).get(deciding)
        if mover:
            raise ServiceError(_("it is %(name)s's decision now, not yours.") % {"name": mover})
        raise ServiceError(_("it is not your decision now."))
    if game.version != address.version:
        raise ServiceError(_("the game has moved on since that email, so its moves are stale."))
    return state, me


def _answer(record: InboundMail, game: Game, user, lines: list[str], message: Message) -> None:
    """The short answer email (``games.outbox.turn_emails._answer`` adds the moves of now)."""
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
