"""Whole pages kept per process (issue 49): a page that is the same for everyone who sees the
same data is rendered once, with stand-ins (``games.read.kept.STAND_INS``) for the form token
and the CSP nonce, and each answer gets its own put in. The parts of other pages are kept by
the ``{% kept %}`` tag (games/templatetags/kept.py)."""

from __future__ import annotations

from django.contrib.messages import get_messages
from django.core.cache import caches
from django.http import HttpResponse
from django.middleware.csp import get_nonce
from django.middleware.csrf import get_token
from django.template.loader import render_to_string

from games.read import kept


def kept_page(request, template_name: str, *data) -> HttpResponse:
    """A whole page that is the same for everyone who sees ``data`` (in their language and time
    zone), like the anonymous home page: rendered once per process with the stand-ins, each
    answer getting its own CSRF token and CSP nonce put in. Rendered afresh while the request
    has messages to show (they are one visitor's)."""
    if len(get_messages(request)):
        return HttpResponse(render_to_string(template_name, request=request))
    key = f"kept:page:{template_name}:{kept.digest(*data)}"
    cache = caches["local"]
    html = cache.get(key)
    if html is None:
        stand_ins = {name: kept.STAND_INS[name] for name in ("csrf_token", "csp_nonce")}
        html = render_to_string(template_name, stand_ins, request=request)
        cache.set(key, html, kept.SECONDS)
    own = {"csrf_token": lambda: get_token(request), "csp_nonce": lambda: str(get_nonce(request))}
    return HttpResponse(kept.put_in(html, own, lambda name: own[name]()))
