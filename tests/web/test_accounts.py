import re

import pytest
import redis
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from tests.redis_space import RUN_PREFIX

from .conftest import PASSWORD

User = get_user_model()


def sign_up(client, *, display_name="Gimli", email="gimli@example.com", password=PASSWORD):
    return client.post(
        reverse("account_signup"),
        {
            "display_name": display_name,
            "email": email,
            "password1": password,
            "password2": password,
        },
    )


def log_in(client, email, password=PASSWORD):
    return client.post(reverse("account_login"), {"login": email, "password": password})


def confirmation_url(message) -> str:
    match = re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+/)", message.body)
    assert match, message.body
    return match.group(1)


@pytest.mark.django_db
def test_sign_up_needs_email_verification_before_login(client):
    response = sign_up(client)
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in client.session

    user = User.objects.get(email="gimli@example.com")
    assert user.display_name == "Gimli"
    assert "gimli" not in user.username.lower() or user.username == "gimli"
    assert not EmailAddress.objects.get(user=user).verified
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["gimli@example.com"]

    # Unverified: the right password still does not log in.
    response = log_in(client, "gimli@example.com")
    assert response.headers["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in client.session

    # The link shows a page; only the POST confirms (link scanners must not verify).
    url = confirmation_url(mail.outbox[-1])
    assert client.get(url).status_code == 200
    assert not EmailAddress.objects.get(user=user).verified
    client.post(url)
    assert EmailAddress.objects.get(user=user).verified

    response = log_in(client, "gimli@example.com")
    assert response.headers["Location"] == reverse("home")
    assert client.session["_auth_user_id"] == str(user.pk)


@pytest.mark.django_db
def test_sign_up_requires_a_display_name(client):
    response = sign_up(client, display_name="  ")
    assert response.status_code == 200
    assert "display_name" in response.context["form"].errors
    assert not User.objects.exists()


@pytest.mark.django_db
def test_display_names_are_unique_ignoring_case(client, user):
    response = sign_up(client, display_name=user.display_name.upper())
    assert response.status_code == 200
    assert "display_name" in response.context["form"].errors
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_database_enforces_unique_display_name_and_email(user):
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="x1", email="x1@example.com", display_name="ANN")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="x2", email=user.email, display_name="Other")


@pytest.mark.django_db
def test_sign_up_with_a_taken_email_does_not_reveal_the_account(client, user):
    response = sign_up(client, display_name="Someone", email=user.email)
    # Same answer as a fresh sign-up; the owner gets an email instead.
    assert response.headers["Location"] == reverse("account_email_verification_sent")
    assert User.objects.count() == 1
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [user.email]


@pytest.mark.django_db
def test_failed_reauthentications_are_locked_out_with_429_too(client, user):
    # Asking for the password again (before changing the email address) counts failures like
    # the login page, under the same limits.
    client.force_login(user)
    url = reverse("account_reauthenticate")
    statuses = [client.post(url, {"password": "wrong-password"}).status_code for _ in range(5)]
    assert statuses == [200] * 5
    response = client.post(url, {"password": PASSWORD})
    assert response.status_code == 429
    assert "Too many failed login attempts" in response.content.decode()


@pytest.mark.django_db
def test_a_wrong_password_alone_is_still_a_normal_form_error(client, user):
    response = log_in(client, user.email, password="wrong-password")
    assert response.status_code == 200
    assert "Too many failed login attempts" not in response.content.decode()


@pytest.mark.django_db
def test_password_reset_sends_a_link(client, user):
    response = client.post(reverse("account_reset_password"), {"email": user.email})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert "/accounts/password/reset/key/" in mail.outbox[0].body


@pytest.mark.django_db
def test_failed_logins_hit_the_rate_limit_in_redis(client, user):
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    # Documented threshold: 5 failed logins per address in 5 minutes.
    for _ in range(5):
        response = log_in(client, user.email, password="wrong-password")
        assert response.status_code == 200
        assert "_auth_user_id" not in client.session
    # Now even the right password is refused for a while: 429, with the message on the form.
    response = log_in(client, user.email)
    assert "_auth_user_id" not in client.session
    assert response.status_code == 429
    assert "Too many failed login attempts" in response.content.decode()
    assert 'name="password"' in response.content.decode()  # the form, to try again later
    # The counters really are in Redis.
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    assert list(client.scan_iter(match=f"{RUN_PREFIX}:*login_failed*"))
    client.close()


@pytest.mark.django_db
def test_login_requests_per_ip_are_rate_limited(client, user):
    # Documented threshold: 30 login requests per minute per IP address. Incomplete forms, so
    # that no login fails (failed logins have their own, lower limits: the test above).
    statuses = [log_in(client, "", "").status_code for _ in range(31)]
    assert 429 not in statuses[:30]
    assert statuses[30] == 429


@pytest.mark.django_db
def test_seed_demo_is_idempotent_and_makes_verified_players(client):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert sorted(User.objects.values_list("username", flat=True)) == ["ann", "bob", "cid", "dan"]
    assert EmailAddress.objects.filter(verified=True, primary=True).count() == 4
    # Hashed once for the four (the site's hasher is slow on purpose; make run seeds at each start).
    assert len(set(User.objects.values_list("password", flat=True))) == 1
    response = log_in(client, "ann@example.com", "saboteur-demo")
    assert response.headers["Location"] == reverse("home")


@pytest.mark.django_db
def test_the_session_key_changes_at_login(client, user):
    session = client.session
    session["before-login"] = True
    session.save()
    before = session.session_key
    response = log_in(client, user.email)
    assert response.status_code == 302
    assert client.session.session_key != before
    assert client.session["_auth_user_id"] == str(user.pk)


@pytest.mark.django_db
def test_login_and_reset_do_not_tell_which_addresses_have_accounts(client, user):
    def normalised(response):
        body = response.content.decode()
        body = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", body)
        body = re.sub(r'nonce="[^"]+"', "", body)
        body = re.sub(r'"X-CSRFToken": "[^"]+"', "", body)
        return response.status_code, body.replace("nobody@example.com", user.email)

    known = log_in(client, user.email, password="wrong-password")
    unknown = log_in(client, "nobody@example.com", password="wrong-password")
    assert normalised(known) == normalised(unknown)
    known = client.post(reverse("account_reset_password"), {"email": user.email})
    unknown = client.post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    assert (known.status_code, known.get("Location")) == (
        unknown.status_code,
        unknown.get("Location"),
    )


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["cs", "sk", "uk", "ro"])
def test_the_sign_up_and_log_in_forms_are_translated(client, language):
    for name in ("account_signup", "account_login"):
        body = client.get(reverse(name), headers={"Accept-Language": language}).content.decode()
        labels = re.findall(r"<label[^>]*>([^<]*)</label>", body)
        assert labels and not any(label.strip(": ") in ("Email", "Password") for label in labels)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "site_url", ["http://play.example:8123", "https://saboteur.example", "https://x.example:8443"]
)
def test_allauths_links_follow_the_site_url_not_the_request(client, user, settings, site_url):
    """Verification and reset links were built from the request's host, and always https in
    production whatever SITE_URL said: a site on http (a trial without TLS) or behind a proxy
    that passes another Host sent links that did not open. They follow SITE_URL, as the site's
    own emails do."""
    settings.SITE_URL = site_url
    settings.ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"  # production's old value, whatever the site
    sign_up(client)  # asked of "testserver", the host the request came to
    client.post(reverse("account_reset_password"), {"email": user.email})
    verification, reset = mail.outbox[-2:]
    assert f"{site_url}/accounts/confirm-email/" in verification.body
    assert f"{site_url}/accounts/password/reset/key/" in reset.body
    for message in (verification, reset):
        assert "testserver" not in message.body
