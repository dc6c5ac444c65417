"""An administrator made on the command line of the production stack logs in to /admin/."""

from __future__ import annotations

import secrets

from playwright.sync_api import expect


def test_an_administrator_from_admin_create_logs_in_to_the_admin(stack, new_page):
    """``manage.py admin_create`` with ADMIN_PASSWORD (the README's production command) makes an
    account that can log in to /admin/ at once, by its email address, and see the users."""
    password = secrets.token_urlsafe(18)
    done = stack.manage(
        "admin_create",
        "overseer@example.com",
        "--name",
        "Overseer",
        name="admin_create",
        ADMIN_PASSWORD=password,
    )
    assert f"{stack.origin}/admin/" in done.stdout, done.stdout

    page = new_page("admin")
    page.goto(f"{stack.origin}/admin/")
    page.get_by_label("Username").fill("overseer@example.com")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="Users").first).to_be_visible()
    page.get_by_role("link", name="Users").first.click()
    expect(page.locator("#result_list")).to_contain_text("overseer@example.com")
