"""``{% maze_grid page %}``: the game page's maze, its labels and cells, as table rows.

The maze is the page's largest loop (a hundred cells and more, each with a dozen conditions), and
the template language spent more time on it than on the rest of the page; the same markup built
here costs a tenth (docs/web-performance.md). The cells come from ``games.read.maze_part.board``
(each cell with its marks, help and name); every text is escaped.
"""

from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

register = template.Library()


@register.simple_tag
def maze_grid(page) -> str:
    rows = page.board.rows
    if not rows:
        return ""
    labels = "".join(f'<th scope="col" class="maze__label">{cell.x}</th>' for cell in rows[0])
    # Ids on the head, each row, its label and each cell: an open page is sent only the cells
    # that changed, and the rows or columns the maze grew by (games/web/live_parts.py).
    html = [f'<thead id="mzh"><tr><th></th>{labels}</tr></thead><tbody id="mzb">']
    texts = {
        "new": escape(_("new since your last visit")),
        "removed": escape(_("a card was removed here since your last visit")),
        "confirm": escape(_("Confirm")),
    }
    # What a legal spot links to: the same page part with this card and position chosen.
    card = quote(page.bar.selected or "", safe="/")  # as the urlencode filter
    choice = f"card={card}&amp;turned={'1' if page.bar.turned else '0'}"
    part = f"{reverse('game', args=[page.id])}?part=play&amp;{choice}"
    for row in rows:
        y = row[0].y
        html.append(f'<tr id="mzr{y}"><th scope="row" class="maze__label" id="mzl{y}">{y}</th>')
        for cell in row:
            if cell.blank:
                html.append(
                    f'<td id="mz{cell.x}_{cell.y}" class="maze__cell" data-x="{cell.x}" '
                    f'data-y="{cell.y}"></td>'
                )
            else:
                html.append(_cell(cell, texts, choice, part))
        html.append("</tr>")
    html.append("</tbody>")
    return mark_safe("".join(html))  # noqa: S308 - built above from escaped text and numbers


def _cell(cell, texts: dict, choice: str, part: str) -> str:
    """One cell (a ``games.read.maze_part.Cell``)."""
    x, y = cell.x, cell.y
    helps, name, chosen, legal = cell.help, cell.name, cell.chosen, cell.legal
    out = [f'<td id="mz{x}_{y}" class="{cell.css}" data-x="{x}" data-y="{y}"']
    if helps:
        tip = escape(f"{cell.label}: {helps}")
        out.append(f' title="{tip}"')  # hover; a long press shows it (js/learn.js)
        if not legal:
            out.append(' tabindex="-1"')
    out.append(">")
    if cell.new:
        out.append(f'<span class="visually-hidden">{texts["new"]}</span>')
    elif cell.removed:
        out.append(f'<span class="visually-hidden">{texts["removed"]}</span>')
    described = f' aria-describedby="cell-{x}-{y}"' if name else ""
    if chosen:
        label = escape(_("Confirm: play here, %(x)s, %(y)s") % {"x": x, "y": y})
        out.append(
            f'<button type="submit" name="at" value="{x},{y}" class="maze__spot '
            f'maze__spot--chosen" data-testid="confirm-move"{described} aria-label="{label}">'
            f'{cell.svg}<span class="maze__confirm">{texts["confirm"]}</span></button>'
        )
    elif cell.look:
        # A map's goal: chosen here (then confirmed in the bar), like its button.
        goal = cell.look
        label = escape(_("Look at this goal"))
        pressed = "true" if cell.looked else "false"
        css = "maze__spot maze__spot--goal" + (" maze__spot--looked" if cell.looked else "")
        out.append(
            f'<a class="{css}" data-goal="{goal}" href="?{choice}&amp;target={goal}" '
            f'hx-get="{part}&amp;target={goal}" hx-target="#play" hx-swap="outerHTML" '
            f'role="button" aria-pressed="{pressed}"{described} aria-label="{label}">'
            f"{cell.svg}</a>"
        )
    elif legal:
        label = escape(_("Play here: %(x)s, %(y)s") % {"x": x, "y": y})
        out.append(
            f'<a class="maze__spot" data-at="{x},{y}" href="?{choice}&amp;at={x},{y}" '
            f'hx-get="{part}&amp;at={x},{y}" hx-target="#play" hx-swap="outerHTML"'
            f'{described} aria-label="{label}">{cell.svg}</a>'
        )
    elif cell.svg:
        out.append(str(cell.svg))
        if cell.peeked:
            out.append(_peek(cell.peeked))
    if name:
        out.append(f'<span class="visually-hidden" id="cell-{x}-{y}">{escape(name)}</span>')
    out.append("</td>")
    return "".join(out)


def _peek(card: str) -> str:
    """The mark on a goal the viewer saw with a map: its face shows, to them alone."""
    title = escape(_("You saw: %(card)s (still face down for the others)") % {"card": card})
    seen = escape(_("seen"))
    return f'<span class="maze__peek" data-testid="peeked" title="{title}">{seen}</span>'
