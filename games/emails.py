"""Building the emails of the outbox: plain text and HTML, in the player's language.

An email shows what the player may know: public events and their own private ones, the same
lines the game page's log shows them. Links lead to the game and carry no login power.
"""

from __future__ import annotations

import email.policy

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from saboteur_site.text import one_line

from .log import entries_for
from .models import ChatMessage, Game, Notice, Seat
from .notifications import UNSUBSCRIBE_KINDS, site_url, unsubscribe_token
from .selectors import display_name

UNSUBSCRIBE_FOR = {
    Notice.Kind.TURN: "turns",
    Notice.Kind.REMINDER: "reminders",
    Notice.Kind.DIGEST: "digest",
    Notice.Kind.MENTION: "mentions",
}


class NoticeEmail(EmailMultiAlternatives):
    """An email whose long headers stay readable.

    List-Unsubscribe holds one long URL with no space to fold at; the default policy would fold
    it into RFC 2047 encoded words, which mail clients do not read as a URL. RFC 5322 allows
    lines of up to 998 characters.
    """

    def message(self, *, policy=email.policy.default):
        return super().message(policy=policy.clone(max_line_length=998))


def build_email(notice: Notice, address: str) -> EmailMultiAlternatives:
    user = notice.user
    language = (user.language if user else "") or settings.LANGUAGE_CODE
    with translation.override(language):
        context = _context(notice)
        what = UNSUBSCRIBE_FOR.get(notice.kind)
        headers = {}
        if user is not None and what in UNSUBSCRIBE_KINDS:
            link = site_url(reverse("unsubscribe", args=[unsubscribe_token(user, what)]))
            context["unsubscribe_url"] = link
            headers["List-Unsubscribe"] = f"<{link}>"
            headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        text = render_to_string("emails/notice.txt", context)
        html = render_to_string("emails/notice.html", context)
    # One line whatever the stored data holds (a game named before names were checked).
    subject = one_line(context["subject"])
    message = NoticeEmail(subject=subject, body=text, to=[address], headers=headers)
    message.attach_alternative(html, "text/html")
    return message


def _context(notice: Notice) -> dict:
    builders = {
        Notice.Kind.TURN: _turn,
        Notice.Kind.REMINDER: _turn,
        Notice.Kind.DIGEST: _digest,
        Notice.Kind.ABSENT: _absent,
        Notice.Kind.INVITATION: _invitation,
        Notice.Kind.MENTION: _mention,
    }
    context = {"greeting": _greeting(notice.user), "lines": [], "log": [], "links": []}
    context.update(builders[notice.kind](notice))
    return context


def _greeting(user) -> str:
    if user is None:
        return _("Hello,")
    return _("Hello %(name)s,") % {"name": user.display_name}


def _game_link(game: Game) -> str:
    return site_url(reverse("game", args=[game.pk]))


def _decision_text(state: engine.State) -> str:
    if state.decision == engine.PICK_GOLD:
        return _("Pick one of the gold cards offered to you.")
    if state.decision == engine.STEAL:
        return _("Decide whom your Theft steals from.")
    return _("Play a card or pass.")


def _turn(notice: Notice) -> dict:
    game, seat = notice.game, notice.seat
    seats = list(game.seats.select_related("user"))
    names = {s.engine_name: display_name(s) for s in seats if s.state != Seat.State.REPLACED}
    last_own = game.moves.filter(seat=seat, automatic=False).order_by("-sequence").first()
    since = last_own.sequence if last_own else 0
    moves = game.moves.filter(sequence__gt=since).order_by("sequence")
    entries = entries_for(
        moves.values_list("sequence", "events", "automatic", "seat__position"),
        names,
        seat.engine_name,
    )
    state = engine.State.from_json(game.snapshot)
    if notice.kind == Notice.Kind.REMINDER:
        subject = _("Reminder: it is your turn in %(game)s") % {"game": game.name}
        lines = [
            _(
                "Your time in %(game)s runs out soon. If it runs out, the site makes a safe "
                "move for you."
            )
            % {"game": game.name}
        ]
    else:
        subject = _("Your turn in %(game)s") % {"game": game.name}
        lines = [_("It is your turn in %(game)s.") % {"game": game.name}]
    lines.append(_decision_text(state))
    return {
        "subject": subject,
        "lines": lines,
        "log": [entry.text for entry in entries],
        "links": [(_("Open the game"), _game_link(game))],
    }


def _digest(notice: Notice) -> dict:
    games = list(Game.objects.filter(pk__in=notice.data.get("games", [])).order_by("name"))
    count = len(games)
    return {
        "subject": ngettext(
            "It is your turn in %(count)d game", "It is your turn in %(count)d games", count
        )
        % {"count": count},
        "lines": [_("These games are waiting for your decision:")],
        "links": [(game.name, _game_link(game)) for game in games],
    }


def _absent(notice: Notice) -> dict:
    absent = Seat.objects.select_related("user").get(pk=notice.data["absent"])
    name = display_name(absent)
    return {
        "subject": _("%(name)s is absent in %(game)s") % {"name": name, "game": notice.game.name},
        "lines": [
            _(
                "%(name)s let their time run out three times in a row. The site keeps playing "
                "safe moves for them until they come back."
            )
            % {"name": name}
        ],
        "links": [(_("Open the game"), _game_link(notice.game))],
    }


def _invitation(notice: Notice) -> dict:
    game = notice.game
    inviter = notice.data.get("inviter", "")
    return {
        "subject": _("%(name)s invites you to play Saboteur") % {"name": inviter},
        "lines": [
            _("%(name)s invites you to the game %(game)s.") % {"name": inviter, "game": game.name}
        ],
        "links": [(_("See the invitation"), site_url(reverse("invite", args=[game.invite_token])))],
    }


def _mention(notice: Notice) -> dict:
    message = ChatMessage.objects.select_related("seat__user").get(pk=notice.data["message"])
    author = display_name(message.seat)
    return {
        "subject": _("%(name)s mentioned you in %(game)s")
        % {
            "name": author,
            "game": notice.game.name,
        },
        "lines": [_("%(name)s wrote:") % {"name": author}, message.text],
        "links": [(_("Open the game"), _game_link(notice.game))],
    }
