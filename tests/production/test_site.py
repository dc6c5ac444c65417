"""The production site answers what browsers and load balancers ask of it, through the proxy:
the health check (every dependency up, push on), the static files collectstatic made (hashed
names, served by WhiteNoise), the web app manifest, the service worker and the offline page."""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.error import HTTPError


def fetch(url: str) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - our own origin
            return response.status, dict(response.headers), response.read()
    except HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_health_says_every_dependency_answers_and_push_is_on(stack):
    """/health/ checks PostgreSQL, Redis and a Celery worker for real: all three answer. The
    Redis database is shared (README: sites and test runs keep to their own keys and queues), so
    other workers, on queues of their own, answer pings there too: they must not hide the worker
    of this site's queue."""
    status, _headers, body = fetch(f"{stack.origin}/health/?format=json")
    assert status == 200, body[:2000]
    checks = json.loads(body)
    assert checks, checks
    assert all(value == "OK" for value in checks.values()), checks
    assert {key.split("(")[0] for key in checks} >= {"Database", "Cache", "Ping"}, checks
    assert "WebPush(state='on')" in checks, checks


def test_pages_link_the_collected_static_files(stack):
    """The home page's styles and scripts are collectstatic's hashed copies, served (200) with a
    long cache lifetime by WhiteNoise under gunicorn."""
    status, _headers, body = fetch(f"{stack.origin}/")
    assert status == 200
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', body.decode())
    assert any(a.endswith(".css") for a in assets) and any(a.endswith(".js") for a in assets)
    for asset in assets:
        assert re.search(r"\.[0-9a-f]{12}\.\w+$", asset), f"{asset} is not a hashed name"
        status, headers, _ = fetch(stack.origin + asset)
        assert status == 200, asset
        assert "max-age=315360000" in headers.get("Cache-Control", ""), (asset, headers)


def test_the_manifest_the_service_worker_and_the_offline_page_are_served(stack):
    """What makes the site installable answers 200 in production: /manifest.webmanifest (with
    icons that load), /sw.js (a script whose cache list names files that exist) and /offline/."""
    status, headers, body = fetch(f"{stack.origin}/manifest.webmanifest")
    assert status == 200, body[:2000]
    assert "manifest+json" in headers["Content-Type"]
    manifest = json.loads(body)
    for icon in manifest["icons"]:
        assert fetch(stack.origin + icon["src"])[0] == 200, icon

    status, headers, body = fetch(f"{stack.origin}/sw.js")
    assert status == 200, body[:2000]
    assert "javascript" in headers["Content-Type"]
    cached = re.findall(r'"(/static/[^"]+)"', body.decode())
    assert cached, body[:2000]
    for asset in cached:
        assert fetch(stack.origin + asset)[0] == 200, asset

    status, _headers, body = fetch(f"{stack.origin}/offline/")
    assert status == 200
    assert b'data-testid="offline"' in body
