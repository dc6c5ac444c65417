"""``{% seat_items page %}``: the players around the table, in turn order, as list items.

Every game page and every part an open page fetches after a move draws this strip, and the
template language's loop over it (a dozen conditions per player) cost more than the rest of the
play area's markup around it; the same markup built here with ``format_html`` costs a fraction
(docs/web-performance.md). The players come from ``games.read.game_parts.players``: whose turn,
cards in hand, what lies in front of them as icons, gold as the rules make it public, and the
bot, stand-in and absent badges. ``format_html`` escapes every value; a piece it made is safe
and goes into the next one as it is.
"""

from collections.abc import Iterable

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

register = template.Library()


def _joined(pieces: Iterable[str], separator: str = "") -> SafeString:
    """Pieces of markup made by ``format_html`` (or "" for none), one after the other."""
    return format_html_join(separator, "{}", ((piece,) for piece in pieces))


def _texts() -> dict:
    """The strip's words, translated once per page (not once per player)."""
    return {
        "to_move": _("to move"),
        "you": _("you"),
        "bot": _("bot"),
        "stand_in": _("bot stands in"),
        "absent": _("absent"),
        "cards_title": _("Cards in hand"),
        "cards": _("cards in hand"),
        "gold_title": _("Gold"),
        "gold": _("gold"),
        "has_gold": _("has gold"),
        # What a player was seen doing (games/read/ledger.py), on a tap, a click or hover.
        "did": _("What %(name)s was seen doing"),
        "this_round": _("This round"),
        "this_game": _("This game"),
        "nothing": _("nothing yet"),
        "in_front": _("In front"),
        "guess": _("Your guess (yours alone until the round ends):"),
        "marked": _("Your guess: %(mark)s"),
    }


@register.simple_tag
def seat_items(page) -> SafeString:
    texts = _texts()
    clock = page.clock.text() if page.clock_shown else None  # beside whoever decides
    act = page.board.last_act  # the latest move: the player it was played on
    last = act.seat if act else ""
    marking = _Marking(page, None, texts)
    items = (
        format_html(
            "{}{}{} </li>",
            _item(p, texts, clock, last),
            marking.badge(p),
            _opener(p, texts, page.ledger),
        )
        for p in page.players.rows
    )
    return _joined(items, " ")


@register.simple_tag(takes_context=True)
def seat_cards(context, page) -> SafeString:
    """Each player's card (a popover its chip opens): what everyone saw them do this round and
    this game, what lies in front of them, and the viewer's marks to give. Cards of their own,
    outside the chips: a move changes the mover's card, not the strip (games/web/live_parts.py)."""
    texts = _texts()
    # The form's token only where there are marks to give: asking for it sets the CSRF cookie
    # (and "Vary: Cookie"), which a watcher's page never needs.
    choices = page.players.mark_choices
    marking = _Marking(page, context.get("csrf_token") if choices else None, texts)
    cards = (_did(p, texts, page.ledger.of(p["seat"]), marking.form(p)) for p in page.players.rows)
    return _joined(cards)


def _opener(p: dict, t: dict, seen) -> str:
    """The whole chip is a button for the player's card."""
    if seen.of(p["seat"]) is None:
        return ""
    return format_html(
        '<button type="button" class="seat__open" popovertarget="did-{}" aria-label="{}"'
        ' data-testid="seat-open"></button>',
        p["seat"],
        t["did"] % {"name": p["name"]},
    )


class _Marking:
    """The viewer's private marks (issue 38): a badge on each chip they marked, and in each
    other player's card the marks to give (the one given pressed: pressing it again clears it)."""

    def __init__(self, page, csrf_token, texts: dict):
        self.choices = page.players.mark_choices
        self.url = reverse("mark", args=[page.id]) if self.choices else ""
        self.csrf = str(csrf_token) if csrf_token else ""
        self.texts = texts

    def badge(self, p: dict) -> str:
        if not self.choices or not p.get("mark"):
            return ""
        said = self.texts["marked"] % {"mark": p["mark_label"]}
        # The mark's initial in the page's language; a question mark for "not sure".
        letter = "?" if p["mark"] == "unsure" else p["mark_label"][:1]
        return format_html(
            ' <span class="seat__mark seat__mark--{}" title="{}">'
            '<span aria-hidden="true">{}</span>'
            '<span class="visually-hidden">{}</span></span>',
            p["mark"],
            said,
            letter,
            said,
        )

    def form(self, p: dict) -> str:
        if not self.choices or p["is_me"]:
            return ""
        given = p.get("mark", "")
        buttons = format_html_join(
            "",
            '<button type="submit" name="mark" value="{}" class="mark-button"'
            ' aria-pressed="{}">{}</button>',
            (
                ("" if mark == given else mark, "true" if mark == given else "false", label)
                for mark, label in self.choices
            ),
        )
        token = (
            format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', self.csrf)
            if self.csrf
            else ""
        )
        return format_html(
            '<form class="did-pop__marks" id="marks-{seat}" method="post" action="{url}"'
            ' hx-post="{url}"'
            ' hx-target="#play" hx-swap="outerHTML" data-testid="marks">{token}'
            '<input type="hidden" name="seat" value="{seat}">'
            '<p class="did-pop__when" id="guess-{seat}">{guess}</p>'
            '<p class="did-pop__buttons" role="group" aria-labelledby="guess-{seat}">'
            "{buttons}</p></form>",
            seat=p["seat"],
            url=self.url,
            token=token,
            guess=self.texts["guess"],
            buttons=buttons,
        )


def _did(p: dict, t: dict, row, marks: str = "") -> str:
    """The player's card of what everyone saw them do, this round and this game: a popover the
    whole chip opens (a tap, a click, Enter; hover with a mouse: js/learn.js)."""
    if row is None:
        return ""
    lines = [
        (t["this_round"], row.this_round or t["nothing"]),
        (t["this_game"], row.this_game or t["nothing"]),
    ]
    if p["in_front"]:
        lines.append((t["in_front"], ", ".join(p["in_front"])))
    # Two items an open page gets one by one (games/web/live_parts.py): what was seen (it changes
    # when the player acts) and the viewer's marks (when the viewer marks).
    return format_html(
        '<div popover class="did-pop" id="did-{seat}" data-seat="{seat}"'
        ' data-testid="seat-ledger"><div class="did-pop__said" id="said-{seat}">'
        '<p class="did-pop__title">{name}</p>{lines}</div>{marks}</div>',
        seat=p["seat"],
        name=p["name"],
        lines=format_html_join(
            "", '<p class="did-pop__line"><span class="did-pop__when">{}:</span> {}</p>', lines
        ),
        marks=marks,
    )


def _item(p: dict, t: dict, clock: str | None, last: str = "") -> SafeString:
    """The player's chip, left open: the caller adds their mark and card's button, and closes it."""
    turn, me = p["to_move"], p["is_me"]
    classes = " ".join(
        name
        for name, shown in (
            ("seat", True),
            ("seat--turn", turn),
            ("seat--me", me),
            ("seat--last", last and p["seat"] == last),
        )
        if shown
    )
    label = p["seat_label"]
    opening = format_html(
        '<li class="{}" id="seat-{}" data-seat="{}" data-testid="seat"{}>'
        ' <span class="seat__number" aria-hidden="true" title="{}">{}</span>'
        '<span class="visually-hidden">{}: </span>',
        classes,
        p["seat"],
        p["seat"],
        format_html(' aria-current="{}"', "true") if turn else "",
        label,
        p["number"],
        label,
    )
    arrow = (
        format_html(
            '<span class="seat__arrow" aria-hidden="true">▶</span>'
            '<span class="visually-hidden">{}: </span>',
            t["to_move"],
        )
        if turn
        else ""
    )
    you = format_html(' <span class="seat__you">({})</span>', t["you"]) if me else ""
    name = format_html(' <span class="seat__name">{}{}{}</span>', arrow, p["short"], you)
    badges = []
    if p["bot"]:
        badges.append(
            format_html(' <span class="seat__badge seat__badge--bot">{}</span>', t["bot"])
        )
    if p["stand_in"]:
        badges.append(
            format_html(
                ' <span class="seat__badge seat__badge--stand-in" title="{}">{}</span>',
                p["label"],
                t["stand_in"],
            )
        )
    if p["absent"]:
        badges.append(
            format_html(' <span class="seat__badge seat__badge--absent">{}</span>', t["absent"])
        )
    icons = format_html_join(
        "",
        '<span class="seat__icon" title="{}">{}</span>',
        ((icon["name"], icon["svg"]) for icon in p["icons"]),
    )
    gold = ""
    if p["gold"] is not None:
        gold = format_html(
            ' <span class="seat__gold" title="{}">'
            '<span class="seat__coin" aria-hidden="true"></span>{}'
            '<span class="visually-hidden"> {}</span></span>',
            t["gold_title"],
            p["gold"],
            t["gold"],
        )
    elif p["has_gold"]:
        gold = format_html(
            ' <span class="seat__gold" title="{}">'
            '<span class="seat__coin" aria-hidden="true"></span>'
            '<span class="visually-hidden">{}</span></span>',
            t["has_gold"],
            t["has_gold"],
        )
    facts = format_html(
        ' <span class="seat__facts"> <span class="seat__cards" title="{}">'
        '<span class="seat__card-icon" aria-hidden="true"></span>{}'
        '<span class="visually-hidden"> {}</span></span> {}{} </span>',
        t["cards_title"],
        p["hand_size"],
        t["cards"],
        icons,
        gold,
    )
    shown_clock = (
        format_html(' <span class="seat__clock">{}</span>', clock)
        if turn and clock is not None
        else ""
    )
    return _joined([opening, name, *badges, facts, shown_clock])
