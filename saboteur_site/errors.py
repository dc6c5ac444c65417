"""The site's answer when one of its servers is away: 503 with a clear page, never a 500.

PostgreSQL restarting, refusing connections or out of connections (the pool's wait ran out)
raises ``OperationalError`` (or ``InterfaceError`` on a connection it had closed) wherever the
request happened to be: in a view, in the session or authentication middleware, while saving the
session. Django would answer 500 ("Server Error"); the request did nothing lasting, since its
transaction could not commit, and the same request will work once the server is back. So the
site answers 503 with ``Retry-After`` and a page that says so.

The page is built without the database (a request's user, its session, the header's counts are
all out of reach): a plain template, in the language the request already has. It shows no
detail of the error; the log keeps that.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template import loader
from django.templatetags.static import static
from django.utils.cache import add_never_cache_headers
from django.views.defaults import server_error as django_server_error

# Seconds a client (or a polling page) should wait before trying again.
RETRY_AFTER = 30

UNAVAILABLE = (OperationalError, InterfaceError)


def service_unavailable() -> HttpResponse:
    """The 503 page: no request context (it would read the user and the session)."""
    try:
        stylesheet = static("css/site.css")
    except ValueError:  # no static files manifest (collectstatic not run): a plain page then
        stylesheet = None
    page = loader.render_to_string("503.html", {"stylesheet": stylesheet})
    response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    add_never_cache_headers(response)
    return response


def server_error(request, template_name: str = "500.html") -> HttpResponse:
    """``handler500``: a server of the site away answers 503; any other error, Django's 500."""
    error = sys.exception()
    if isinstance(error, UNAVAILABLE):
        return service_unavailable()
    return django_server_error(request, template_name=template_name)
