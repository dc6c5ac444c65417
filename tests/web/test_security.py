import re

import pytest
from django.test import Client
from django.urls import reverse

from .conftest import PASSWORD


def csp_directives(response) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.mark.django_db
def test_home_sends_a_strict_csp_with_a_nonce_matching_the_scripts(client):
    response = client.get(reverse("home"))
    csp = csp_directives(response)
    assert csp["default-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["form-action"] == ["'self'"]
    assert "'self'" in csp["script-src"]
    assert "'unsafe-inline'" not in csp["script-src"]
    nonces = [v for v in csp["script-src"] if v.startswith("'nonce-")]
    assert len(nonces) == 1
    nonce = nonces[0][len("'nonce-") : -1]
    scripts = re.findall(r"<script[^>]*>", response.content.decode())
    assert scripts
    for tag in scripts:
        assert f'nonce="{nonce}"' in tag
    # A fresh nonce per response.
    assert csp_directives(client.get(reverse("home")))["script-src"] != csp["script-src"]


@pytest.mark.django_db
@pytest.mark.parametrize("url_name", ["account_login", "account_signup", "account_reset_password"])
def test_account_pages_use_our_layout_and_csp(client, url_name):
    response = client.get(reverse(url_name))
    assert response.status_code == 200
    assert "Content-Security-Policy" in response.headers
    assert 'class="site-header"' in response.content.decode()


@pytest.mark.django_db
def test_logged_in_pages_are_not_stored(client, user):
    anonymous = client.get(reverse("home"))
    assert "no-store" not in anonymous.headers.get("Cache-Control", "")
    client.force_login(user)
    for url in (reverse("home"), reverse("account_email")):
        response = client.get(url)
        assert response.status_code == 200
        assert "no-store" in response.headers["Cache-Control"]
        assert "private" in response.headers["Cache-Control"]


@pytest.mark.django_db
def test_logout_refuses_get(client, user):
    client.force_login(user)
    client.get(reverse("account_logout"))
    assert "_auth_user_id" in client.session, "a GET (link scanner, prefetch) must not log out"
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_logout_post_needs_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(reverse("account_logout")).status_code == 403
    assert "_auth_user_id" in client.session


@pytest.mark.django_db
def test_login_post_without_csrf_token_is_refused(user):
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("account_login"), {"login": user.email, "password": PASSWORD})
    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_next_to_another_host_falls_back_to_home(client, user):
    response = client.post(
        reverse("account_login") + "?next=https://evil.example/steal",
        {"login": user.email, "password": PASSWORD, "next": "https://evil.example/steal"},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("home")
    assert "_auth_user_id" in client.session


@pytest.mark.django_db
def test_next_to_our_own_page_is_followed(client, user):
    target = reverse("account_email")
    response = client.post(
        reverse("account_login"), {"login": user.email, "password": PASSWORD, "next": target}
    )
    assert response.headers["Location"] == target
