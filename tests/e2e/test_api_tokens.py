"""The API in the browser (issue 54): a player makes a token on their profile's tokens page and
sees it once; the API's documentation (/api/docs) works from the site's own files under its
content security policy."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_token_made_in_the_browser_is_shown_once_and_opens_the_api(
    live_server, make_player, player_page, browser_problems
):
    ann = make_player("ann")
    page = player_page(ann)
    page.goto(f"{live_server.url}/accounts/profile/")
    page.get_by_test_id("tokens-link").click()
    page.get_by_label("Name").fill("my terminal")
    page.get_by_label("read my games").check()
    page.get_by_test_id("token-create").click()
    text = page.get_by_test_id("new-token").inner_text()
    assert re.fullmatch(r"sab_[A-Za-z0-9_-]{43}", text)
    answer = httpx.get(f"{live_server.url}/api/v1/account",
                       headers={"Authorization": f"Bearer {text}"})  # fmt: skip
    assert answer.status_code == 200 and answer.json()["display_name"] == "Ann"
    page.goto(f"{live_server.url}/accounts/tokens/")  # the list, never the token again
    expect(page.get_by_test_id("token")).to_contain_text("my terminal")
    assert text not in page.content()
    page.get_by_test_id("token-revoke").click()
    expect(page.get_by_test_id("token")).to_contain_text("revoked")
    assert browser_problems.problems == []


def test_the_api_docs_work_from_the_sites_own_files(live_server, new_page, csp_watcher):
    page = new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{live_server.url}/api/docs")
    expect(page.get_by_text("/api/v1/games/{game_id}/moves").first).to_be_visible()
    assert all(url.startswith(live_server.url) or url.startswith("data:") for url in requested)
    assert csp_watcher.violations == []
