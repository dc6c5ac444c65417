"""The emails that tell of an event: a game started, finished, paused, resumed or given more time
(``_clock``), aborted; a timeout; a seat's new player (``_briefing``, ``_replaced``,
``_taken_over``); a vacation and its end; the daily digest, an absent player, an invitation and a
mention in the chat.

Each builder gives the email's subject, lines and links (``emails._context`` picks it by the
notice's kind).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Challenge, ChatMessage, Game, Notice, Seat
from games.models.matchmaking import PACE_NAMES
from games.read import clock as clocks
from games.read import durations
from games.read.log import describe
from games.read.seats import display_name

from .email_words import _game_link, duration, when
from .links import site_url


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


def _forming(notice: Notice) -> dict:
    """Play now (issue 52): a forming table short of players at its start time waits longer
    (its new start time), or closes."""
    game = notice.the_game()
    data = notice.data
    if data.get("closed"):
        return {
            "subject": _("%(game)s did not start") % {"game": game.name},
            "lines": [
                _("The table %(game)s was closed before it started; no game is played there.")
                % {"game": game.name},
                _("Ask again on the Play now page to be seated at another table."),
            ],
            "links": [(_("Play now"), site_url(reverse("play_now")))],
        }
    return {
        "subject": _("%(game)s waits longer for players") % {"game": game.name},
        "lines": [
            ngettext(
                "At its start time the table %(game)s had %(seated)d player of the %(needed)d "
                "it needs.",
                "At its start time the table %(game)s had %(seated)d players of the %(needed)d "
                "it needs.",
                data["seated"],
            )
            % {"game": game.name, "seated": data["seated"], "needed": data["needed"]},
            _("It now starts at %(when)s, or as soon as it is full.")
            % {"when": when(datetime.fromisoformat(data["start_at"]))},
            _("You may leave it until then on the Play now page."),
        ],
        "links": [(_("Play now"), site_url(reverse("play_now")))],
    }


def _challenge(notice: Notice) -> dict:
    """A friend's challenge (issue 52): who, the game's settings, until when, the page that
    accepts in one click."""
    game = notice.the_game()
    challenge = Challenge.objects.select_related("challenger").get(pk=notice.data["challenge"])
    name = challenge.challenger.display_name
    return {
        "subject": _("%(name)s challenges you to a game") % {"name": name},
        "lines": [
            _("%(name)s challenges you to a game of %(ruleset)s for %(seats)d players, %(pace)s.")
            % {
                "name": name,
                "ruleset": game.get_ruleset_display(),
                "seats": game.max_seats,
                "pace": PACE_NAMES.get(challenge.pace, duration(game.turn_limit)),
            },
            _("Accept or refuse by %(when)s.") % {"when": when(challenge.expires_at)},
        ],
        "links": [(_("Accept or refuse"), site_url(reverse("challenge", args=[challenge.token])))],
    }


def _challenge_answer(notice: Notice) -> dict:
    """The challenger hears of a refusal or an expiry."""
    game = notice.the_game()
    challenge = Challenge.objects.select_related("challenged").get(pk=notice.data["challenge"])
    names = {"name": challenge.challenged.display_name, "game": game.name}
    if notice.data.get("answer") == "expired":
        subject = _("%(name)s did not answer your challenge") % names
        line = _("Your challenge to %(name)s (%(game)s) expired without an answer.") % names
    else:
        subject = _("%(name)s refused your challenge") % names
        line = _("%(name)s will not play %(game)s.") % names
    return {
        "subject": subject,
        "lines": [line],
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
