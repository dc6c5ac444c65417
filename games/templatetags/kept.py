"""``{% kept "name" data... %}...{% endkept %}``: a part of a page rendered once per change of its
data (issue 49). A first value that is empty ("", an empty tuple) but not None renders the part
without keeping it (a page made without a digest of what it is made of).

The markup between the tags is kept per process under a digest of the data named in the tag
(``games.read.kept``: the data pickled, with the language and time zone), so the tag must name
everything the markup is made from; viewers who see the same data share the markup, and a part
whose data did not change after a move is not rendered again. Like Django's ``{% cache %}``, but
keyed by the data itself rather than by a name of it, and never holding a viewer's form token:
the part is rendered with stand-ins for the CSRF token, the move key and the CSP nonce (the same for
everyone),
and each answer gets its own put in.
"""

from __future__ import annotations

from django import template
from django.core.cache import caches
from django.utils.safestring import mark_safe

from games.read import kept

register = template.Library()

# Stand-ins for what every render makes anew (games.read.kept).
STAND_INS = kept.STAND_INS


class KeptNode(template.Node):
    def __init__(self, name: str, data: list, nodelist: template.NodeList):
        self.name, self.data, self.nodelist = name, data, nodelist

    def render(self, context) -> str:
        data = [value.resolve(context) for value in self.data]
        if not data[0] and data[0] is not None:
            return self.nodelist.render(context)  # an empty first value: rendered, never kept
        # Which stand-ins this render has (no token without a request): part of the key.
        present = tuple(name for name in STAND_INS if name in context)
        key = f"kept:part:{self.name}:{kept.digest(present, *data)}"
        cache = caches["local"]
        html = cache.get(key)
        if html is None:
            with context.push({name: STAND_INS[name] for name in present}):
                html = self.nodelist.render(context)
            cache.set(key, html, kept.SECONDS)
        html = kept.put_in(html, present, lambda name: str(context[name]))
        return mark_safe(html)  # noqa: S308 - the template's own output, escaped as it rendered


@register.tag("kept")
def do_kept(parser, token):
    """``{% kept "name" value value ... %}``: everything the part is made from, as values."""
    bits = token.split_contents()
    if len(bits) < 3:
        raise template.TemplateSyntaxError(f"{bits[0]} takes a name and the data of the part")
    name = bits[1].strip("\"'")
    nodelist = parser.parse(("endkept",))
    parser.delete_first_token()
    return KeptNode(name, [parser.compile_filter(bit) for bit in bits[2:]], nodelist)
