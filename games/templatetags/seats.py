"""``{% seat_items page %}``: the players around the table, in turn order, as list items.

Every game page and every part an open page fetches after a move draws this strip, and the
template language's loop over it (a dozen conditions per player) cost more than the rest of the
play area's markup around it; the same markup built here costs a fraction
(docs/web-performance.md). The players come from ``games.read.game_parts.players``: whose turn,
cards in hand, what lies in front of them as icons, gold as the rules make it public, and the
bot, stand-in and absent badges. Every text is escaped.
"""

from django import template
from django.utils.html import conditional_escape as esc
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

register = template.Library()


@register.simple_tag
def seat_items(page) -> str:
    texts = {
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
    }
    clock = page.clock.text() if page.clock_shown else None  # beside whoever decides
    act = page.board.last_act  # the latest move: the player it was played on
    last = act.seat if act else ""
    rows = page.players.rows
    return mark_safe(" ".join(_item(p, texts, clock, last) for p in rows))  # noqa: S308


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
    out.append(" </li>")
    return "".join(out)
