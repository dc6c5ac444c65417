import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"


@pytest.mark.django_db
def test_home_explains_the_game_and_links_to_sign_up_and_log_in(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "saboteurs" in body
    assert reverse("account_signup") in body
    assert reverse("account_login") in body


@pytest.mark.django_db
def test_home_loads_vendored_htmx_and_sends_csrf_header_from_body(client):
    response = client.get(reverse("home"))
    body = response.content.decode()
    match = re.search(r'<script src="(/static/django_htmx/htmx-2\.min\.js)"', body)
    assert match, "htmx must come from our own static files, not a CDN"
    assert finders.find("django_htmx/htmx-2.min.js")
    assert client.get(match.group(1)).status_code == 200
    # The answer's own token (the page itself is kept: games/web/kept_pages.py), in the form
    # and in the header htmx sends.
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)[1]
    assert "!" not in token
    assert f"""<body hx-headers='{{"X-CSRFToken": "{token}"}}'>""" in body


@pytest.mark.django_db
def test_htmx_middleware_is_on(client):
    response = client.get(reverse("home"), headers={"HX-Request": "true"})
    assert response.wsgi_request.htmx
    assert not client.get(reverse("home")).wsgi_request.htmx


@pytest.mark.django_db
def test_locale_middleware_picks_a_supported_language(client):
    response = client.get(reverse("home"), headers={"Accept-Language": "cs"})
    assert response.headers["Content-Language"] == "cs"
    response = client.get(reverse("home"), headers={"Accept-Language": "de"})
    assert response.headers["Content-Language"] == "en"


@pytest.mark.django_db
def test_header_shows_display_name_not_email(client, user):
    client.force_login(user)
    body = client.get(reverse("home")).content.decode()
    assert user.display_name in body
    assert user.email not in body


INLINE_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
INLINE_STYLE = re.compile(r"<[^>]*\sstyle\s*=|<style", re.IGNORECASE)


@pytest.mark.parametrize(
    "template", sorted(TEMPLATES_DIR.rglob("*.html")), ids=lambda p: str(p.name)
)
def test_templates_have_no_inline_scripts_handlers_or_styles(template):
    text = template.read_text()
    assert not INLINE_HANDLER.search(text)
    assert not INLINE_SCRIPT.search(text)
    assert not INLINE_STYLE.search(text)
