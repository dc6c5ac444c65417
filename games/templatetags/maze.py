"""``{% maze_grid page %}``: the game page's maze, its labels and cells, as table rows.

The maze is the page's largest loop (a hundred cells and more, each with a dozen conditions), and
the template language spent more time on it than on the rest of the page; the same markup built
here costs a tenth (docs/web-performance.md). The cells come from ``games.read.maze_part.board``
(each cell with its marks, help and name); ``format_html`` escapes every text.
"""

from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

register = template.Library()


@register.simple_tag
def maze_grid(page) -> SafeString | str:
    rows = page.board.rows
    if not rows:
        return ""
    labels = format_html_join(
        "", '<th scope="col" class="maze__label">{}</th>', ((cell.x,) for cell in rows[0])
    )
    texts = {
        "new": _("new since your last visit"),
        "removed": _("a card was removed here since your last visit"),
        "confirm": _("Confirm"),
    }
    # What a legal spot links to: the same page part with this card and position chosen (as
    # written in the page, where format_html escapes each "&").
    card = quote(page.bar.selected or "", safe="/")  # as the urlencode filter
    choice = f"card={card}&turned={'1' if page.bar.turned else '0'}"
    part = f"{reverse('game', args=[page.id])}?part=play&{choice}"
    # Ids on the head, each row, its label and each cell: an open page is sent only the cells
    # that changed, and the rows or columns the maze grew by (games/web/live_parts.py).
    body = format_html_join(
        "",
        '<tr id="mzr{0}"><th scope="row" class="maze__label" id="mzl{0}">{0}</th>{1}</tr>',
        (
            (
                row[0].y,
                format_html_join("", "{}", ((_cell(cell, texts, choice, part),) for cell in row)),
            )
            for row in rows
        ),
    )
    return format_html(
        '<thead id="mzh"><tr><th></th>{}</tr></thead><tbody id="mzb">{}</tbody>', labels, body
    )


def _cell(cell, texts: dict, choice: str, part: str) -> SafeString:
    """One cell (a ``games.read.maze_part.Cell``)."""
    x, y = cell.x, cell.y
    if cell.blank:
        return format_html(
            '<td id="mz{0}_{1}" class="maze__cell" data-x="{0}" data-y="{1}"></td>', x, y
        )
    helps, name, chosen, legal = cell.help, cell.name, cell.chosen, cell.legal
    tip = ""
    if helps:
        # Hover; a long press shows it (js/learn.js).
        tip = format_html(
            ' title="{}"{}',
            f"{cell.label}: {helps}",
            "" if legal else format_html(' tabindex="{}"', "-1"),
        )
    said = ""
    if cell.new:
        said = format_html('<span class="visually-hidden">{}</span>', texts["new"])
    elif cell.removed:
        said = format_html('<span class="visually-hidden">{}</span>', texts["removed"])
    described = format_html(' aria-describedby="cell-{}-{}"', x, y) if name else ""
    inner: SafeString | str = ""
    if chosen:
        inner = format_html(
            '<button type="submit" name="at" value="{x},{y}" class="maze__spot '
            'maze__spot--chosen" data-testid="confirm-move"{described} aria-label="{label}">'
            '{svg}<span class="maze__confirm">{confirm}</span></button>',
            x=x,
            y=y,
            described=described,
            label=_("Confirm: play here, %(x)s, %(y)s") % {"x": x, "y": y},
            svg=cell.svg,
            confirm=texts["confirm"],
        )
    elif cell.look:
        # A map's goal: chosen here (then confirmed in the bar), like its button.
        inner = format_html(
            '<a class="{css}" data-goal="{goal}" href="?{choice}&amp;target={goal}" '
            'hx-get="{part}&amp;target={goal}" hx-target="#play" hx-swap="outerHTML" '
            'role="button" aria-pressed="{pressed}"{described} aria-label="{label}">'
            "{svg}</a>",
            css="maze__spot maze__spot--goal" + (" maze__spot--looked" if cell.looked else ""),
            goal=cell.look,
            choice=choice,
            part=part,
            pressed="true" if cell.looked else "false",
            described=described,
            label=_("Look at this goal"),
            svg=cell.svg,
        )
    elif legal:
        inner = format_html(
            '<a class="maze__spot" data-at="{x},{y}" href="?{choice}&amp;at={x},{y}" '
            'hx-get="{part}&amp;at={x},{y}" hx-target="#play" hx-swap="outerHTML"'
            '{described} aria-label="{label}">{svg}</a>',
            x=x,
            y=y,
            choice=choice,
            part=part,
            described=described,
            label=_("Play here: %(x)s, %(y)s") % {"x": x, "y": y},
            svg=cell.svg,
        )
    elif cell.svg:
        inner = format_html("{}{}", cell.svg, _peek(cell.peeked) if cell.peeked else "")
    named = (
        format_html('<span class="visually-hidden" id="cell-{}-{}">{}</span>', x, y, f"{name}")
        if name
        else ""
    )
    return format_html(
        '<td id="mz{x}_{y}" class="{css}" data-x="{x}" data-y="{y}"{tip}>{said}{inner}{named}</td>',
        x=x,
        y=y,
        css=cell.css,
        tip=tip,
        said=said,
        inner=inner,
        named=named,
    )


def _peek(card: str) -> SafeString:
    """The mark on a goal the viewer saw with a map: its face shows, to them alone."""
    return format_html(
        '<span class="maze__peek" data-testid="peeked" title="{}">{}</span>',
        _("You saw: %(card)s (still face down for the others)") % {"card": card},
        _("seen"),
    )
