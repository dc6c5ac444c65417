"""Request checks that belong to no single view."""

from __future__ import annotations

import json
import re

from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

# What PostgreSQL cannot store in a text column (NUL) and what cannot be encoded as UTF-8 at all
# (lone surrogates, which a JSON body's "\ud800" escapes produce).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

# Bodies Django itself reads into request.POST: checked field by field there.
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _unstorable(request) -> bool:
    if UNSTORABLE.search(request.path_info):
        return True
    for data in (request.GET, request.POST if request.method == "POST" else None):
        if data is None:
            continue
        for key, values in data.lists():
            if UNSTORABLE.search(key) or any(UNSTORABLE.search(v) for v in values):
                return True
    return _unstorable_body(request)


def _unstorable_body(request) -> bool:
    """Any other body (a view may read it as JSON whatever its content type says, as the push
    subscription does): a NUL byte in it, or, read as JSON, a NUL or a lone surrogate in any key
    or string. A body that is not JSON (or not UTF-8) is left to the view, which refuses it."""
    if request.content_type in FORM_TYPES:
        return False
    body = request.body  # bounded by DATA_UPLOAD_MAX_MEMORY_SIZE (Django answers 400 beyond)
    if not body:
        return False
    if b"\x00" in body:
        return True
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return False
    pending = [data]
    while pending:  # not recursive: a deeply nested body must not exhaust the stack here
        item = pending.pop()
        if isinstance(item, str):
            if UNSTORABLE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _wants_json(request) -> bool:
    return "json" in request.content_type or "application/json" in request.headers.get("Accept", "")


class RefuseUnstorableTextMiddleware:
    """Refuse, with a clear 400 (a page, or ``{"error": ...}`` to a JSON request), any request
    whose path, fields or body hold text the database cannot store: a NUL byte (``%00``,
    ``\\u0000``) or a lone surrogate (``\\ud800`` in JSON).

    Without it such text reaches a query and PostgreSQL refuses it, which is an HTTP 500 on any
    route that looks something up by a path parameter or saves a field without a form (chat),
    and a lone surrogate cannot even be encoded to be logged or shown on a debug page.
    Checking here covers every route, ours and the libraries', before any view runs.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            unstorable = _unstorable(request)
        except RequestDataTooBig:
            # Too large to read here: a view that reads it meets Django's own 400; one that
            # answers without reading it (an inbound webhook dropping a huge email) may.
            unstorable = False
        if unstorable:
            reason = _(
                "Your request contained characters the site cannot accept (such as a "
                "NUL byte). Nothing was changed."
            )
            if _wants_json(request):
                return JsonResponse({"error": reason}, status=400)
            return render(request, "400.html", {"reason": reason}, status=400)
        return self.get_response(request)
