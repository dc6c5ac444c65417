"""The API with all its calls: ``site``'s API object, the router of ``games``, ``streams`` and
``challenges`` added (kept apart from ``site``, which the calls' modules import), and its URL
patterns, whose answer to a method a path does not take is JSON like every other refusal."""

from __future__ import annotations

import functools

from django.http import HttpResponseNotAllowed
from django.urls import URLPattern
from django.utils.translation import gettext as _

from . import challenges, games, streams
from .site import api, error

__all__ = ["api", "challenges", "streams", "urls"]

api.add_router("/", games.router)


def _json_405(view):
    @functools.wraps(view)  # its csrf_exempt too: a token call has no CSRF to check
    def answered(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseNotAllowed):
            message = _("This address does not take %(method)s.") % {"method": request.method}
            refused = error(request, 405, "method", message)
            refused["Allow"] = response["Allow"]
            return refused
        return response

    return answered


def urls():
    """``api.urls`` with each view's 405 answered as JSON (django-ninja's is plain text)."""
    patterns, app_name, namespace = api.urls
    wrapped = [
        URLPattern(p.pattern, _json_405(p.callback), p.default_args, p.name)
        if isinstance(p, URLPattern)
        else p
        for p in patterns
    ]
    return wrapped, app_name, namespace
