"""``{% seat_items page %}``: the players around the table, in turn order, as list items.

Every game page and every part an open page fetches after a move draws this strip, and the
template language's loop over it (a dozen conditions per player) cost more than the rest of the
play area's markup around it; the same markup built here costs a fraction
(docs/web-performance.md). The players come from ``games.read.game_parts.players``: whose turn,
cards in hand, what lies in front of them as icons, gold as the rules make it public, and the
bot, stand-in and absent badges. Every text is escaped.
"""

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape as esc
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

register = template.Library()


def _texts() -> dict:
    """The strip's words, translated once per page (not once per player)."""
    return {
        "to_move": esc(_("to move")),
        "you": esc(_("you")),
        "bot": esc(_("bot")),
        "stand_in": esc(_("bot stands in")),
        "absent": esc(_("absent")),
        "cards_title": esc(_("Cards in hand")),
        "cards": esc(_("cards in hand")),
        "gold_title": esc(_("Gold")),
        "gold": esc(_("gold")),
        "has_gold": esc(_("has gold")),
        # What a player was seen doing (games/read/ledger_words.py), on a tap, a click or hover.
        "did": _("What %(name)s was seen doing"),
        "this_round": esc(_("This round")),
        "this_game": esc(_("This game")),
        "nothing": esc(_("nothing yet")),
        "in_front": esc(_("In front")),
        "guess": esc(_("Your guess (yours alone until the round ends):")),
        "marked": _("Your guess: %(mark)s"),
    }


@register.simple_tag
def seat_items(page) -> str:
    texts = _texts()
    clock = page.clock.text() if page.clock_shown else None  # beside whoever decides
    act = page.board.last_act  # the latest move: the player it was played on
    last = act.seat if act else ""
    marking = _Marking(page, None, texts)
    items = (
        _item(p, texts, clock, last) + marking.badge(p) + _opener(p, texts, page.ledger)
        for p in page.players.rows
    )
    return mark_safe(" ".join(item + " </li>" for item in items))  # noqa: S308


@register.simple_tag(takes_context=True)
def seat_cards(context, page) -> str:
    """Each player's card (a popover its chip opens): what everyone saw them do this round and
    this game, what lies in front of them, and the viewer's marks to give. Cards of their own,
    outside the chips: a move changes the mover's card, not the strip (games/web/live_parts.py)."""
    texts = _texts()
    # The form's token only where there are marks to give: asking for it sets the CSRF cookie
    # (and "Vary: Cookie"), which a watcher's page never needs.
    choices = page.players.mark_choices
    marking = _Marking(page, context.get("csrf_token") if choices else None, texts)
    cards = (_did(p, texts, page.ledger.of(p["seat"]), marking.form(p)) for p in page.players.rows)
    return mark_safe("".join(cards))  # noqa: S308


def _opener(p: dict, t: dict, seen) -> str:
    """The whole chip is a button for the player's card."""
    if seen.of(p["seat"]) is None:
        return ""
    label = esc(t["did"] % {"name": p["name"]})
    return (
        f'<button type="button" class="seat__open" popovertarget="did-{esc(p["seat"])}"'
        f' aria-label="{label}" data-testid="seat-open"></button>'
    )


class _Marking:
    """The viewer's private marks (issue 38): a badge on each chip they marked, and in each
    other player's card the marks to give (the one given pressed: pressing it again clears it)."""

    def __init__(self, page, csrf_token, texts: dict):
        self.choices = page.players.mark_choices
        self.url = esc(reverse("mark", args=[page.id])) if self.choices else ""
        self.csrf = esc(str(csrf_token)) if csrf_token else ""
        self.texts = texts

    def badge(self, p: dict) -> str:
        if not self.choices or not p.get("mark"):
            return ""
        said = esc(self.texts["marked"] % {"mark": p["mark_label"]})
        # The mark's initial in the page's language; a question mark for "not sure".
        letter = "?" if p["mark"] == "unsure" else esc(p["mark_label"][:1])
        return (
            f' <span class="seat__mark seat__mark--{esc(p["mark"])}" title="{said}">'
            f'<span aria-hidden="true">{letter}</span>'
            f'<span class="visually-hidden">{said}</span></span>'
        )

    def form(self, p: dict) -> str:
        if not self.choices or p["is_me"]:
            return ""
        seat, given = esc(p["seat"]), p.get("mark", "")
        buttons = "".join(
            f'<button type="submit" name="mark" value="{"" if mark == given else esc(mark)}"'
            ' class="mark-button"'
            f' aria-pressed="{"true" if mark == given else "false"}">{esc(label)}</button>'
            for mark, label in self.choices
        )
        token = (
            f'<input type="hidden" name="csrfmiddlewaretoken" value="{self.csrf}">'
            if self.csrf
            else ""
        )
        return (
            f'<form class="did-pop__marks" id="marks-{seat}" method="post" action="{self.url}"'
            f' hx-post="{self.url}"'
            f' hx-target="#play" hx-swap="outerHTML" data-testid="marks">{token}'
            f'<input type="hidden" name="seat" value="{seat}">'
            f'<p class="did-pop__when" id="guess-{seat}">{self.texts["guess"]}</p>'
            f'<p class="did-pop__buttons" role="group" aria-labelledby="guess-{seat}">'
            f"{buttons}</p></form>"
        )


def _did(p: dict, t: dict, row, marks: str = "") -> str:
    """The player's card of what everyone saw them do, this round and this game: a popover the
    whole chip opens (a tap, a click, Enter; hover with a mouse: js/learn.js)."""
    if row is None:
        return ""
    seat = esc(p["seat"])
    line = '<p class="did-pop__line"><span class="did-pop__when">{}:</span> {}</p>'
    lines = [
        line.format(t["this_round"], esc(row.this_round) or t["nothing"]),
        line.format(t["this_game"], esc(row.this_game) or t["nothing"]),
    ]
    if p["in_front"]:
        lines.append(line.format(t["in_front"], esc(", ".join(p["in_front"]))))
    # Two items an open page gets one by one (games/web/live_parts.py): what was seen (it changes
    # when the player acts) and the viewer's marks (when the viewer marks).
    return (
        f'<div popover class="did-pop" id="did-{seat}" data-seat="{seat}"'
        f' data-testid="seat-ledger"><div class="did-pop__said" id="said-{seat}">'
        f'<p class="did-pop__title">{esc(p["name"])}</p>'
        + "".join(lines)
        + "</div>"
        + marks
        + "</div>"
    )


def _item(p: dict, t: dict, clock: str | None, last: str = "") -> str:
    label = esc(p["seat_label"])
    turn, me = p["to_move"], p["is_me"]
    marks = (" seat--turn" if turn else "") + (" seat--me" if me else "")
    marks += " seat--last" if last and p["seat"] == last else ""
    out = [
        f'<li class="seat{marks}" id="seat-{esc(p["seat"])}" data-seat="{esc(p["seat"])}"'
        f' data-testid="seat"{' aria-current="true"' if turn else ""}>',
        f' <span class="seat__number" aria-hidden="true" title="{label}">{esc(p["number"])}</span>'
        f'<span class="visually-hidden">{label}: </span>',
        ' <span class="seat__name">',
    ]
    if turn:
        out.append(
            '<span class="seat__arrow" aria-hidden="true">▶</span>'
            f'<span class="visually-hidden">{t["to_move"]}: </span>'
        )
    out.append(esc(p["short"]))
    if me:
        out.append(f' <span class="seat__you">({t["you"]})</span>')
    out.append("</span>")
    if p["bot"]:
        out.append(f' <span class="seat__badge seat__badge--bot">{t["bot"]}</span>')
    if p["stand_in"]:
        out.append(
            f' <span class="seat__badge seat__badge--stand-in" title="{esc(p["label"])}">'
            f"{t['stand_in']}</span>"
        )
    if p["absent"]:
        out.append(f' <span class="seat__badge seat__badge--absent">{t["absent"]}</span>')
    out.append(
        f' <span class="seat__facts"> <span class="seat__cards" title="{t["cards_title"]}">'
        f'<span class="seat__card-icon" aria-hidden="true"></span>{esc(p["hand_size"])}'
        f'<span class="visually-hidden"> {t["cards"]}</span></span> '
    )
    for icon in p["icons"]:
        name, svg = esc(icon["name"]), esc(icon["svg"])
        out.append(f'<span class="seat__icon" title="{name}">{svg}</span>')
    coin = '<span class="seat__coin" aria-hidden="true"></span>'
    if p["gold"] is not None:
        out.append(
            f' <span class="seat__gold" title="{t["gold_title"]}">{coin}{esc(p["gold"])}'
            f'<span class="visually-hidden"> {t["gold"]}</span></span>'
        )
    elif p["has_gold"]:
        out.append(
            f' <span class="seat__gold" title="{t["has_gold"]}">{coin}'
            f'<span class="visually-hidden">{t["has_gold"]}</span></span>'
        )
    out.append(" </span>")
    if turn and clock is not None:
        out.append(f' <span class="seat__clock">{esc(clock)}</span>')
    return "".join(out)  # the item is closed by the caller
