"""Building the emails of the outbox: plain text and HTML, in the player's language.

An email shows what the player may know: public events and their own private ones, the same
lines the game page's log shows them. Links lead to the game and carry no login power.
"""

from __future__ import annotations

import email.policy
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.message import make_msgid
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.models import ChatMessage, Game, Notice, Seat
from games.read import clock as clocks
from games.read import durations, history, ledger_words
from games.read.card_names import card_name, hand_order, role_name
from games.read.log import describe, knowledge_lines
from games.read.seats import display_name, seat_names
from games.read.table_events import renames
from saboteur_site.text import one_line

from . import email_art, one_tap, reply_addresses
from .links import UNSUBSCRIBE_KINDS, site_url, unsubscribe_token
from .quiet import user_zone

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


def _game_link(game: Game) -> str:
    return site_url(reverse("game", args=[game.pk]))


def decision_text(state: engine.State) -> str:
    """The decision waiting, in one sentence (emails and push notifications)."""
    if state.decision == engine.PICK_GOLD:
        return _("Pick one of the gold cards offered to you.")
    if state.decision == engine.STEAL:
        return _("Decide whom your Theft steals from.")
    return _("Play a card or pass.")


def _since_words(basis: str) -> dict:
    """What a "your turn" email's changes are counted from, in its three sentences: the log's
    heading, the maze picture's alt text when something changed and when nothing did. "Since
    your last move" only to a player who has one (``history.since_basis``)."""
    return {
        "move": {
            "heading": _("What happened since your last move:"),
            "changed": _("The maze. Since your last move (outlined): %(changes)s"),
            "same": _("The maze. It has not changed since your last move."),
        },
        "visit": {
            "heading": _("What happened since you last looked at the game:"),
            "changed": _("The maze. Since you last looked at the game (outlined): %(changes)s"),
            "same": _("The maze. It has not changed since you last looked at the game."),
        },
        "seat": {
            "heading": _("What happened since this seat's last move:"),
            "changed": _("The maze. Since this seat's last move (outlined): %(changes)s"),
            "same": _("The maze. It has not changed since this seat's last move."),
        },
        "start": {
            "heading": _("What happened since the game began:"),
            "changed": _("The maze. Since the game began (outlined): %(changes)s"),
            "same": _("The maze as the game began."),
        },
    }[basis]


def _turn(notice: Notice) -> dict:
    game, seat = notice.the_game(), notice.the_seat()
    seats = list(game.seats.select_related("user"))
    names = {s.engine_name: display_name(s) for s in seats if s.state != Seat.State.REPLACED}
    # What changed since the player last looked at the game or moved (as the page marks it).
    since = history.since_for_email(game, seat, names, renames(game))
    words = _since_words(history.since_basis(game, seat, since.version))
    moves = game.moves.filter(sequence__gt=since.version).order_by("sequence")
    state = game.engine_state()
    lines = []
    if notice.data.get("briefing"):  # a newcomer to the seat: the briefing comes first
        lines += _briefing_lines(game, seat, notice.data["briefing"])
    if notice.kind == Notice.Kind.REMINDER:
        subject = _("Reminder: it is your turn in %(game)s") % {"game": game.name}
        # The deadline itself is said once, below ("Decide by ...").
        lines.append(
            _(
                "Your time in %(game)s runs out in %(left)s. If it runs out, the site makes a "
                "safe move for you."
            )
            % {"game": game.name, "left": _left_words(game)}
        )
    else:
        subject = _("Your turn in %(game)s") % {"game": game.name}
        if notice.data.get("briefing"):
            subject = _("You have a seat in %(game)s, and it is your turn") % {"game": game.name}
        if game.version == 0:
            lines += _setup_lines(game, seat)
        lines.append(_("It is your turn in %(game)s.") % {"game": game.name})
    lines.append(decision_text(state))
    view = engine.view_for(state, seat.engine_name)
    return {
        "subject": subject,
        "lines": lines,
        "log": [entry.text for entry in since.entries] + history.change_lines(since),
        "log_heading": words["heading"],
        "recaps": [
            history.recap_lines(view["rounds_done"][n - 1], n, names, ruleset=view["ruleset"])
            for n in since.rounds_ended
            if n <= len(view["rounds_done"])
        ],
        "links": [(_("Open the game"), _game_link(game))],
        **_did_since_last_move(game, seat, view, names),
        **_play_from_email(notice, state, names, moves, words),
    }


def _did_since_last_move(game: Game, seat: Seat, view: dict, names: dict[str, str]) -> dict:
    """One short line per player of what everyone saw them do since the reader's last move
    (the public ledger, games/read/ledger_words.py); for a player who took the seat over and has not
    moved yet, since the seat's last move; before any, since the game began."""
    log = history.move_log(game)
    own = game.moves.filter(seat=seat, automatic=False).aggregate(last=Max("sequence"))["last"]
    held = [
        sequence for sequence, _e, automatic, at in log if at == seat.position and not automatic
    ]
    if own is not None:
        after, heading = own, _("Who did what since your last move:")
    elif held:
        after, heading = max(held), _("Who did what since this seat's last move:")
    else:
        after, heading = 0, _("Who did what since the game began:")
    did = ledger_words.changes_since(log, [p["seat"] for p in view["players"]], names, after)
    return {"did": list(did.values()), "did_heading": heading}


def _play_from_email(notice: Notice, state: engine.State, names: dict, moves, words: dict) -> dict:
    """The maze picture, the deadline and, unless the player turned them off, their role, hand
    and one-tap links: all from the seat's own ``view_for``."""
    game, seat, user = notice.the_game(), notice.the_seat(), notice.user
    me = seat.engine_name
    view = engine.view_for(state, me)
    changed: set[tuple[int, int]] = set()
    said: list[str] = []
    for events in moves.values_list("events", flat=True):
        for event in events:
            if event["kind"] == "round-started":
                # The picture shows this round's maze: the earlier rounds' changes are not in it.
                changed, said = set(), []
            maze_event = event["kind"] in ("placed", "goal-revealed") or (
                event["kind"] == "action" and "at" in event
            )
            if event.get("to") is None and maze_event:
                line = describe(event, names, me)
                if line:
                    said.append(line)
                if "at" in event:
                    x, y = event["at"]
                    changed.add((x, y))
    png, width, height = email_art.maze_png(view, changed)
    maze_cid = f"maze-{game.pk}-{game.version}@saboteur"
    if said:
        alt = words["changed"] % {"changes": " ".join(said)}
    else:
        alt = words["same"]
    context: dict[str, Any] = {
        "maze": {"cid": maze_cid, "alt": alt, "width": width, "height": height},
        "images": [(maze_cid, png)],
        "deadline": _deadline_text(game, user),
    }
    mine = view["me"]
    if user is None or not user.email_hand or mine is None:
        return context
    context["role"] = role_name(mine["role"])
    context["knowledge"] = knowledge_lines(mine, names)
    context["hand"] = [  # numbered: "pass 2" in a reply discards the second
        {"name": card_name(card), "cid": f"card-{card}@saboteur", "number": number}
        for number, card in enumerate(hand_order(mine["hand"]), start=1)  # as the page shows it
    ]
    for card in sorted(set(mine["hand"])):  # one picture per kind of card
        context["images"].append((f"card-{card}@saboteur", email_art.card_png(card)))
    if game.status == Game.Status.RUNNING and view["to_move"] == me:
        context["taps"] = _tap_groups(notice, state, names)
    return context


def _deadline_text(game: Game, user) -> str | None:
    """ "Decide by ... (zone). Time left: ..." (the clock as the page says it, bank and all)."""
    if game.deadline is None:
        return None
    text = _("Decide by %(when)s.") % {"when": durations.moment(game.deadline)}
    left = clocks.clock_text(game)
    return f"{text} {left}" if left else text


def _left_words(game: Game) -> str:
    """The counted time left of the running decision in words (weekends and vacations do not
    count), as the reminder says it."""
    left = clocks.time_left(game, timezone.now())
    return "-" if left is None else durations.words(left)


def _tap_groups(notice: Notice, state: engine.State, names: dict) -> list[tuple[str, list]]:
    """One-tap links grouped under headings; a path card links to the game with it picked."""
    game, seat = notice.the_game(), notice.the_seat()
    me = seat.engine_name
    groups: dict[str, list] = {}
    # Numbered as ``one_tap.listed_moves`` numbers them, which replies read the same way: a move
    # by its number, a pass by its card's number in the hand ("pass 2").
    for listed in one_tap.listed_moves(state, me, names):
        token = one_tap.tap_token(
            user_id=notice.the_user().pk, game_id=game.pk, seat_id=seat.pk, version=game.version,
            move=listed.move,
        )  # fmt: skip
        url = site_url(reverse("one_tap", args=[token]))
        groups.setdefault(one_tap.move_group(listed.move), []).append(
            (listed.reply, listed.label, url)
        )
    paths = one_tap.path_cards(state, me)
    if paths:
        groups[_("Place a path card (opens the game)")] = [
            (None, card_name(card), _game_link(game) + "?" + urlencode({"card": card}))
            for card in paths
        ]
    return list(groups.items())


def _digest(notice: Notice) -> dict:
    games = list(Game.objects.filter(pk__in=notice.data.get("games", [])).order_by("name"))
    count = len(games)
    return {
        "subject": ngettext(
            "It is your turn in %(count)d game", "It is your turn in %(count)d games", count
        )
        % {"count": count},
        "lines": [_("These games are waiting for your decision:")],
        "links": [(_digest_label(game), _game_link(game)) for game in games],
    }


def _digest_label(game: Game) -> str:
    """ "Game, decide by ... · Time left: ..., then ... from the time bank" (the one clock)."""
    if not game.deadline:
        return game.name
    label = _("%(game)s, decide by %(when)s") % {"game": game.name, "when": when(game.deadline)}
    left = clocks.clock_text(game)
    return f"{label} · {left}" if left else label


def _absent(notice: Notice) -> dict:
    absent = Seat.objects.select_related("user").get(pk=notice.data["absent"])
    name = display_name(absent)
    bot = notice.the_game().bot_stand_ins
    if notice.data.get("banned"):
        why = _("The moderators have removed %(name)s from the site.")
        if bot:
            what = _(
                "From now on a bot plays their seat as soon as it is their turn, so nobody "
                "waits for them, until the moderators hand the seat to another player."
            )
        else:
            what = _(
                "From now on the site makes a safe move for their seat as soon as it is their "
                "turn, so nobody waits for them, until the moderators hand the seat to another "
                "player."
            )
    else:
        why = _("%(name)s let their time run out three times in a row.")
        if bot:
            what = _(
                "From now on a bot plays for them as soon as it is their turn, so nobody waits "
                "for them, until they come back."
            )
        else:
            what = _(
                "From now on the site makes a safe move for them as soon as it is their turn, "
                "so nobody waits for them, until they come back."
            )
    return {
        "subject": _("%(name)s is absent in %(game)s")
        % {"name": name, "game": notice.the_game().name},
        "lines": [why % {"name": name}, what],
        "links": [(_("Open the game"), _game_link(notice.the_game()))],
    }


def _invitation(notice: Notice) -> dict:
    game = notice.the_game()
    inviter = notice.data.get("inviter", "")
    taken = game.seats.live().count()
    return {
        "subject": _("%(name)s invites you to play Saboteur") % {"name": inviter},
        "lines": [
            _("%(name)s invites you to the game %(game)s.") % {"name": inviter, "game": game.name},
            _(
                "Rule set: %(ruleset)s. Seats: %(taken)d of %(seats)d taken. "
                "Time per turn: %(limit)s."
            )
            % {
                "ruleset": game.get_ruleset_display(),
                "taken": taken,
                "seats": game.max_seats,
                "limit": duration(game.turn_limit),
            },
        ],
        "links": [(_("See the invitation"), site_url(reverse("invite", args=[game.invite_token])))],
    }


def _mention(notice: Notice, together: Sequence[Notice] = ()) -> dict:
    """One message that names the player, or the several of an hour (``together``: the other
    mentions in this game still waiting; one deleted meanwhile is left out)."""
    ids = [notice.data["message"], *(n.data.get("message") for n in together)]
    messages = list(
        ChatMessage.objects.select_related("seat__user").filter(pk__in=ids).order_by("pk")
    )
    first = next(m for m in messages if m.pk == notice.data["message"])
    if len(messages) == 1:
        subject = _("%(name)s mentioned you in %(game)s") % {
            "name": display_name(first.seat),
            "game": notice.the_game().name,
        }
    else:
        subject = ngettext(
            "%(count)d mention of you in %(game)s",
            "%(count)d mentions of you in %(game)s",
            len(messages),
        ) % {"count": len(messages), "game": notice.the_game().name}
    lines = []
    for message in messages:
        lines += [_("%(name)s wrote:") % {"name": display_name(message.seat)}, message.text]
    return {
        "subject": subject,
        "lines": lines,
        "links": [(_("Open the game"), _game_link(notice.the_game()))],
    }


def when(moment) -> str:
    """A moment in the recipient's time zone and language (the caller overrides both)."""
    return durations.moment(moment)


def duration(span) -> str:
    """A time limit in words: "2 days", "1 day 6 hours", "3 hours"."""
    hours = int(span.total_seconds()) // 3600
    days, hours = divmod(hours, 24)
    parts = []
    if days:
        parts.append(ngettext("%(count)d day", "%(count)d days", days) % {"count": days})
    if hours or not days:
        parts.append(ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours})
    return " ".join(parts)


def _setup_lines(game: Game, seat: Seat) -> list[str]:
    """What a player needs to know when a game starts: the rule set, their seat, the limit."""
    seats = game.seats.live().count()
    if seat.position is None:
        raise ValueError("The seats of a started game have their positions.")
    return [
        _("The game %(game)s has started.") % {"game": game.name},
        _("Rule set: %(ruleset)s. You sit at seat %(seat)d of %(seats)d. Time per turn: %(limit)s.")
        % {
            "ruleset": game.get_ruleset_display(),
            "seat": seat.position + 1,
            "seats": seats,
            "limit": duration(game.turn_limit),
        },
        *clocks.rules_lines(game),
    ]


def _started(notice: Notice) -> dict:
    game = notice.the_game()
    lines = _setup_lines(game, notice.the_seat())
    mover = game.seats.live().select_related("user").filter(position=game.to_move).first()
    if mover is not None:
        lines.append(
            _("%(name)s moves first; we email you when it is your turn.")
            % {"name": display_name(mover)}
        )
    return {
        "subject": _("%(game)s has started") % {"game": game.name},
        "lines": lines,
        "links": [(_("Open the game"), _game_link(game))],
    }


def _finished(notice: Notice) -> dict:
    game = notice.the_game()
    return {
        "subject": _("%(game)s is over") % {"game": game.name},
        "lines": [
            _("The game %(game)s is over.") % {"game": game.name},
            _("See who won, the final standings and every round's recap."),
        ],
        "links": [(_("Open the game"), _game_link(game))],
    }


def _timeout(notice: Notice, together: Sequence[Notice] = ()) -> dict:
    """What the site did for a player whose time ran out, move by move as their own view tells
    it (the card discarded or placed); several held by quiet hours come as one email."""
    game = notice.the_game()
    timeouts = sorted([notice, *together], key=lambda n: n.data.get("sequence", 0))
    names = {s.engine_name: display_name(s) for s in game.seats.live().select_related("user")}
    lines = []
    if len(timeouts) == 1:
        lines.append(
            _("Your time in %(game)s ran out, so the site %(did)s.")
            % {"game": game.name, "did": _did(notice)}
        )
        lines += _what_it_did(notice, names)
    else:
        lines.append(
            _("Your time in %(game)s ran out %(count)d times, so the site decided for you:")
            % {"game": game.name, "count": len(timeouts)}
        )
        for each in timeouts:
            lines.append(
                " ".join([_("The site %(did)s.") % {"did": _did(each)}, *_what_it_did(each, names)])
            )
    if any(n.data.get("absent") for n in timeouts) and game.bot_stand_ins:
        lines.append(
            _(
                "Your time ran out three times in a row, so the table sees you as absent and a "
                "bot plays for you as soon as it is your turn. Open the game to take your seat "
                "back."
            )
        )
    elif any(n.data.get("absent") for n in timeouts):
        lines.append(
            _(
                "Your time ran out three times in a row, so the table sees you as absent and "
                "the site makes a safe move for you as soon as it is your turn. Open the game "
                "to take your seat back."
            )
        )
    else:
        lines.append(_("Open the game to play your next turn yourself."))
    subject = _("Your time ran out in %(game)s") % {"game": game.name}
    return {"subject": subject, "lines": lines, "links": [(_("Open the game"), _game_link(game))]}


def _did(notice: Notice) -> str:
    # The creator chose that a bot decides instead of the safe move.
    if notice.the_game().bot_stand_ins:
        return _("let a bot make your move")
    return {
        "pick-gold": _("kept the highest gold card offered to you"),
        "steal": _("declined your theft"),
    }.get(notice.data.get("move"), _("passed for you, discarding one card at random"))


def _what_it_did(notice: Notice, names: dict[str, str]) -> list[str]:
    """The timeout's move in the player's own words: "You discarded Rockfall.", "Ann placed
    Cross at column 2, row 0." (their private lines are theirs to read)."""
    move = notice.the_game().moves.filter(sequence=notice.data.get("sequence")).first()
    if move is None or move.seat_id != notice.seat_id:
        return []
    me = notice.the_seat().engine_name
    lines = []
    for event in move.events:
        to = event.get("to")
        if (to is not None and to != me) or event["kind"] in ("passed", "round-started"):
            continue  # "passed" says no more than "You discarded ..." does
        text = describe(event, names, me)
        if text:
            lines.append(text)
    return lines


def _aborted(notice: Notice) -> dict:
    game = notice.the_game()
    lines = [_("The moderators stopped the game %(game)s.") % {"game": game.name}]
    if notice.data.get("reason"):
        lines.append(_("Their reason: %(reason)s") % {"reason": notice.data["reason"]})
    return {
        "subject": _("%(game)s was stopped by the moderators") % {"game": game.name},
        "lines": lines,
        "links": [(_("Open the game"), _game_link(game))],
    }


def _briefing_lines(game: Game, seat: Seat, old: str) -> list[str]:
    """What a newcomer to a seat needs to know: whose seat, its place, the rule set and limit."""
    return [
        _("The moderators gave you a seat in %(game)s: you take over from %(old)s.")
        % {"game": game.name, "old": old},
        *_setup_lines(game, seat)[1:],
        _(
            "Your role, your hand and what the seat has seen so far are waiting for you on the "
            "game's page."
        ),
    ]


def _briefing(notice: Notice) -> dict:
    game = notice.the_game()
    return {
        "subject": _("You have a seat in %(game)s") % {"game": game.name},
        "lines": _briefing_lines(game, notice.the_seat(), notice.data.get("old", "")),
        "links": [(_("Open the game"), _game_link(game))],
    }


def _replaced(notice: Notice) -> dict:
    game = notice.the_game()
    lines = [
        _("The moderators handed your seat in %(game)s to %(new)s.")
        % {"game": game.name, "new": notice.data.get("new", "")}
    ]
    if notice.data.get("reason"):
        lines.append(_("Their reason: %(reason)s") % {"reason": notice.data["reason"]})
    return {
        "subject": _("Your seat in %(game)s was taken over") % {"game": game.name},
        "lines": lines,
        "links": [],
    }


def _clock(notice: Notice) -> dict:
    """The moderators paused, resumed or extended the game: whose decision it is and until when,
    in the recipient's time zone. "Resumed" and "more time" say the game's clock as it is when
    the email goes: held by the reader's quiet hours or vacation, they give the deadline of
    then, not the one of the moderators' action (issue 47)."""
    game, data = notice.the_game(), notice.data
    position, deadline = data.get("mover"), None
    if notice.kind != Notice.Kind.PAUSED:
        position = game.to_move
        running = game.status == Game.Status.RUNNING
        deadline = game.deadline if running else None
    mover = game.seats.live().select_related("user").filter(position=position).first()
    mine = mover is not None and mover.pk == notice.seat_id
    name = display_name(mover) if mover else "?"
    if notice.kind == Notice.Kind.PAUSED:
        subject = _("%(game)s is paused by the moderators") % {"game": game.name}
        lines = [
            _(
                "The moderators paused %(game)s: the clock is stopped and moves wait until it "
                "resumes."
            )
            % {"game": game.name}  # fmt: skip
        ]
        if mine:
            left = durations.words(timedelta(seconds=data.get("left", 0)))
            lines.append(_("Your turn keeps the time it had left: %(left)s.") % {"left": left})
    elif notice.kind == Notice.Kind.RESUMED:
        subject = _("%(game)s has resumed") % {"game": game.name}
        lines = [_("The moderators resumed %(game)s.") % {"game": game.name}]
    else:
        hours = data.get("hours", 0)
        subject = _("More time in %(game)s") % {"game": game.name}
        if mine:
            line = ngettext(
                "The moderators gave you %(hours)d more hour in %(game)s.",
                "The moderators gave you %(hours)d more hours in %(game)s.",
                hours,
            )
        else:
            line = ngettext(
                "The moderators gave %(name)s %(hours)d more hour in %(game)s.",
                "The moderators gave %(name)s %(hours)d more hours in %(game)s.",
                hours,
            )
        lines = [line % {"name": name, "hours": hours, "game": game.name}]
        if deadline is None:
            lines.append(_("The game is paused: the clock starts again when it resumes."))
    if deadline is not None and notice.kind != Notice.Kind.PAUSED:
        if mine:
            lines.append(_("It is your turn: decide by %(when)s.") % {"when": when(deadline)})
        else:
            lines.append(
                _("It is %(name)s's turn, until %(when)s.") % {"name": name, "when": when(deadline)}
            )
    return {"subject": subject, "lines": lines, "links": [(_("Open the game"), _game_link(game))]}


def _vacation(notice: Notice) -> dict:
    """A player at the table declared a vacation, or came back from it early (or called it off):
    when, and what it means for each game the reader shares with them (one email for all)."""
    game, data = notice.the_game(), notice.data
    name = data.get("name", "?")
    starts = datetime.fromisoformat(data["starts"])
    ends = datetime.fromisoformat(data["ends"])
    order = data.get("games") or [game.pk]
    shared = sorted(Game.objects.filter(pk__in=order), key=lambda g: order.index(g.pk))
    names = ", ".join(g.name for g in shared)
    if data.get("event") == "returned":
        subject = _("%(name)s is back from vacation") % {"name": name}
        lines = [
            _("%(name)s is back from vacation early, in %(game)s too.")
            % {"name": name, "game": names}
        ]
    elif data.get("event") == "called-off":
        subject = _("%(name)s called off their vacation") % {"name": name}
        lines = [_("%(name)s called off the vacation planned from %(starts)s.")
                 % {"name": name, "starts": when(starts)}]  # fmt: skip
    else:
        subject = _("%(name)s will be on vacation") % {"name": name}
        lines = [
            _("%(name)s is on vacation from %(starts)s until %(ends)s.")
            % {"name": name, "starts": when(starts), "ends": when(ends)}
        ]
        if len(shared) == 1:
            lines.append(clocks.vacation_effect(game))
        else:
            lines += [
                _("%(game)s: %(effect)s") % {"game": g.name, "effect": clocks.vacation_effect(g)}
                for g in shared
            ]
    if len(shared) == 1:
        links = [(_("Open the game"), _game_link(game))]
    else:
        links = [(g.name, _game_link(g)) for g in shared]
    return {"subject": subject, "lines": lines, "links": links}


def _taken_over(notice: Notice) -> dict:
    game, data = notice.the_game(), notice.data
    names = {"new": data["new"], "old": data["old"], "game": game.name}
    return {
        "subject": _("%(new)s took over from %(old)s in %(game)s") % names,
        "lines": [
            _("The moderators handed the seat of %(old)s to %(new)s in %(game)s.") % names,
            _("The seat keeps its cards, its role and its time bank."),
        ],
        "links": [(_("Open the game"), _game_link(game))],
    }


def _vacation_ending(notice: Notice) -> dict:
    ends = datetime.fromisoformat(notice.data["ends"])
    return {
        "subject": _("Your vacation ends tomorrow"),
        "lines": [
            _(
                "Your vacation ends at %(ends)s. From then on your clocks run again and we email "
                "you when it is your turn."
            )
            % {"ends": when(ends)},
        ],  # fmt: skip
        "links": [(_("Your games"), site_url(reverse("home")))],
    }


def _answer(notice: Notice) -> dict:
    """The answer to a reply (``games.play.replies``): what was done or why not, in the words
    chosen when it was handled; then, while it is the reader's decision, the moves they can make
    now (numbered for the next reply) with their hand and the maze."""
    game, seat = notice.the_game(), notice.seat
    context: dict[str, Any] = {
        "subject": notice.data["subject"],
        "lines": list(notice.data["lines"]),
        "links": [(_("Open the game"), _game_link(game))],
    }
    if game.status != Game.Status.RUNNING or seat is None or seat.state == Seat.State.REPLACED:
        return context
    state = game.engine_state()
    if state.to_move is None or state.seats[state.to_move] != seat.engine_name:
        return context
    names = seat_names(game)
    context["lines"].append(decision_text(state))
    moves = game.moves.none()
    context.update(_play_from_email(notice, state, names, moves, _since_words("visit")))
    return context
