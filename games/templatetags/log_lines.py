"""``{% log_items lines new_label %}``: the move log's lines of one round, as list items.

A 60-move game's log has some 80 lines, and the template language's loop over them was a sixth
of the game page's render; the same markup built here with ``format_html_join`` costs a fraction
of it (docs/web-performance.md). The lines come from ``games.read.game_parts.log``; every text
is escaped as the template would.
"""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def log_items(lines, new_label) -> SafeString:
    marker = format_html('<span class="log__marker">{}</span> ', new_label)
    return format_html_join(
        "",
        '<li id="{}" class="{}">{}{}</li>',
        ((line["id"], line["css"], marker if line["new"] else "", line["text"]) for line in lines),
    )
