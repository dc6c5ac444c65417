"""``{% log_items lines new_label %}``: the move log's lines of one round, as list items.

A 60-move game's log has some 80 lines, and the template language's loop over them was a sixth
of the game page's render; the same markup built here costs a fraction of it
(docs/web-performance.md). The lines come from ``games.read.game_parts.log``; every text is
escaped as the template would.
"""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def log_items(lines, new_label) -> str:
    marker = f'<span class="log__marker">{conditional_escape(new_label)}</span> '
    return mark_safe(  # noqa: S308 - built from escaped text
        "".join(
            f'<li id="{line["id"]}" class="{conditional_escape(line["css"])}">'
            f"{marker if line['new'] else ''}"
            f"{conditional_escape(line['text'])}</li>"
            for line in lines
        )
    )
