"""The installable site: the web app manifest, the service worker and the offline page.

The service worker is served from the site's root (``/sw.js``), so that its scope is the whole
site. It keeps only the static assets and the offline page in its cache: nothing of a game (its
pages, partials and polls are never cached, they go to the network or fail), and it shows the
push notifications of ``games.outbox.push``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import PrefixNode, static
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

THEME = "#1f1a17"  # the header's ink (static/css/site.css)
BACKGROUND = "#faf6f0"  # the page's paper

# What the service worker keeps for offline use (and to start fast): static files only, the
# site's own styles and scripts (whatever static/css and static/js hold), htmx and the icons.
EXTRA_ASSETS = (
    "django_htmx/htmx-2.min.js",
    "favicon.svg",
    "icons/icon-192.png",
    "icons/badge-96.png",
)


def assets() -> list[str]:
    root = Path(settings.STATICFILES_DIRS[0])
    own = sorted(
        path.relative_to(root).as_posix()
        for folder, pattern in (("css", "*.css"), ("js", "*.js"))
        for path in (root / folder).glob(pattern)
    )
    return [*own, *EXTRA_ASSETS]


@require_safe
def manifest(request):
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("icons/maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
        {"src": static("favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
    ]
    data = {
        "id": "/",
        "name": _("Saboteur"),
        "short_name": _("Saboteur"),
        "description": _("Play Saboteur and Saboteur 2 with friends, one move at a time."),
        "lang": get_language(),
        "start_url": reverse("home"),  # "My games" for a player who is logged in
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME,
        "background_color": BACKGROUND,
        "icons": icons,
    }
    response = JsonResponse(data, content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response


def _worker_source() -> str:
    urls = [static(path) for path in assets()]
    offline = reverse("offline")
    context = {
        "assets": mark_safe(json.dumps(urls)),  # noqa: S308 - our own static URLs, as JSON
        "offline": mark_safe(json.dumps(offline)),  # noqa: S308
        # STATIC_URL as pages link it (with the script prefix), not static(""): under the
        # manifest storage of production, static("") asks the manifest for a file named "" and
        # fails, which made /sw.js answer 500 after collectstatic.
        "static_prefix": mark_safe(json.dumps(PrefixNode.handle_simple("STATIC_URL"))),  # noqa: S308
        "icon": mark_safe(json.dumps(static("icons/icon-192.png"))),  # noqa: S308
        "badge": mark_safe(json.dumps(static("icons/badge-96.png"))),  # noqa: S308
    }
    # The cache's name changes with the asset list (hashed names in production) and the code.
    body = render_to_string("pwa/sw.js", {**context, "version": ""})
    version = hashlib.sha256(body.encode()).hexdigest()[:12]
    return render_to_string("pwa/sw.js", {**context, "version": version})


@require_safe
def service_worker(request):
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    # Browsers check for a new worker on each visit; no cache in between keeps that honest.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline(request):
    """The page the service worker shows when the network is away: the same for everyone (it is
    cached), so it shows nothing of the player or their games."""
    response = render(request, "pwa/offline.html")
    response["Cache-Control"] = "no-cache"
    return response
