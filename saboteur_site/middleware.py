"""Request checks that belong to no single view."""

from __future__ import annotations

import re

from django.shortcuts import render
from django.utils.translation import gettext as _

# What PostgreSQL cannot store in a text column (NUL) and what cannot be encoded as UTF-8 at all
# (lone surrogates, which a JSON body's "\ud800" escapes produce).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _unstorable(request) -> bool:
    if UNSTORABLE.search(request.path_info):
        return True
    for data in (request.GET, request.POST if request.method == "POST" else None):
        if data is None:
            continue
        for key, values in data.lists():
            if UNSTORABLE.search(key) or any(UNSTORABLE.search(v) for v in values):
                return True
    return False


class RefuseUnstorableTextMiddleware:
    """Refuse, with a clear 400 page, any request whose path or fields hold text the database
    cannot store: a NUL byte (``%00``) or a lone surrogate.

    Without it such text reaches a query and PostgreSQL refuses it, which is an HTTP 500 on any
    route that looks something up by a path parameter or saves a field without a form (chat).
    Checking here covers every route, ours and the libraries', before any view runs.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _unstorable(request):
            return render(
                request,
                "400.html",
                {
                    "reason": _(
                        "Your request contained characters the site cannot accept (such as a "
                        "NUL byte). Nothing was changed."
                    )
                },
                status=400,
            )
        return self.get_response(request)
