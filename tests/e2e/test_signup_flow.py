import re

import pytest
from django.core import mail
from playwright.sync_api import expect

PASSWORD = "a-long-and-unusual-password"


@pytest.mark.django_db(transaction=True)
def test_visitor_signs_up_verifies_email_and_logs_in(live_server, new_page, csp_watcher, settings):
    settings.SITE_URL = live_server.url  # the site's address: the emailed links lead there
    page = new_page()
    page.goto(live_server.url)
    assert page.evaluate("typeof window.htmx") == "object", "htmx must load under the CSP"
    page.get_by_role("main").get_by_role("link", name="Sign up").click()

    page.get_by_label("Display name").fill("Thorin")
    page.get_by_label("Email").fill("thorin@example.com")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again):").fill(PASSWORD)
    page.get_by_role("button", name="Sign Up").click()
    expect(page.get_by_role("heading", name="Verify Your Email Address")).to_be_visible()

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["thorin@example.com"]
    link = re.search(r"http://\S+/accounts/confirm-email/\S+/", message.body).group(0)
    assert link.startswith(live_server.url)

    # The link is opened elsewhere (the mail app), as a stranger to this session.
    mail_page = new_page()
    mail_page.goto(link)
    mail_page.get_by_role("button", name="Confirm").click()

    mail_page.goto(f"{live_server.url}/accounts/login/")
    mail_page.get_by_label("Email").fill("thorin@example.com")
    mail_page.get_by_label("Password").fill(PASSWORD)
    mail_page.get_by_role("button", name="Sign In").click()

    expect(mail_page).to_have_url(f"{live_server.url}/")
    expect(mail_page.get_by_test_id("display-name")).to_have_text("Thorin")
    assert "thorin@example.com" not in mail_page.content()

    assert csp_watcher.violations == []


@pytest.mark.django_db(transaction=True)
def test_csp_watcher_sees_violations(live_server, new_page, csp_watcher):
    """Control for the test above: an inline style is refused and reported."""
    page = new_page()
    page.goto(live_server.url)
    page.evaluate(
        "() => { const s = document.createElement('style');"
        " s.textContent = 'body { color: red }'; document.head.appendChild(s); }"
    )
    page.wait_for_timeout(500)
    assert any("style-src" in v for v in csp_watcher.violations), csp_watcher.violations
