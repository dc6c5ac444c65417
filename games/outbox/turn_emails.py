"""The emails of a player's decision: "your turn" and its reminder (``_turn``), and the answer to
a reply (``_answer``), which lists the moves of now as a "your turn" email does.

What changed since the player last looked or moved (the log, the maze picture and what each
player did), the moves they can make by a number or a one-tap link, their hand and the deadline.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Max, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from games import engine
from games.models import Game, Move, Notice, Seat
from games.read import clock as clocks
from games.read import durations, history, ledger_words
from games.read.card_names import card_name, hand_order, role_name
from games.read.log import describe, knowledge_lines
from games.read.seats import display_name, seat_names
from games.read.table_events import renames

from . import email_art, one_tap
from .email_words import _game_link, decision_text
from .event_emails import _briefing_lines, _setup_lines
from .links import site_url


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


def _did_since_last_move(game: Game, seat: Seat, view: engine.View, names: dict[str, str]) -> dict:
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


def _play_from_email(
    notice: Notice,
    state: engine.State,
    names: dict[str, str],
    moves: QuerySet[Move],
    words: dict[str, str],
) -> dict[str, Any]:
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
            spot = _maze_spot(event)
            maze_event = event["kind"] == "goal-revealed" or spot is not None
            if event.get("to") is None and maze_event:
                line = describe(event, names, me)
                if line:
                    said.append(line)
                if spot is not None:
                    changed.add(spot)
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


def _maze_spot(event: engine.Event) -> tuple[int, int] | None:
    """Where a placed card or a rockfall changed the maze (None for the other events)."""
    if event["kind"] == "placed" or (event["kind"] == "action" and "at" in event):
        x, y = event["at"]
        return x, y
    return None


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
