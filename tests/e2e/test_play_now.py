"""Play now, friends and challenges in the browser (issue 52): on a phone, by keyboard alone, a
player asks for a table, sees where they sit and what it waits for, and leaves it; a challenged
friend accepts in one click from the challenge's page, by keyboard."""

import pytest
from playwright.sync_api import expect

from .test_keyboard import tab_to

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def fits_the_width(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.django_db(transaction=True)
def test_asking_for_a_table_and_leaving_it_on_a_phone_by_keyboard(
    live_server, make_player, player_page, browser_problems
):
    ann = make_player("ann")
    page = player_page(ann, **PHONE)
    page.goto(f"{live_server.url}/play/")
    expect(page.get_by_test_id("play-now-form")).to_be_visible()
    assert fits_the_width(page)
    # The defaults (the base game, 3 to 6 players, 2 days per turn, the page's language): only
    # the submit button, reached and pressed by keyboard.
    tab_to(page, '[data-testid="play-now-form"] button[type="submit"]')
    page.keyboard.press("Enter")
    table = page.get_by_test_id("forming-table")
    expect(table).to_contain_text("1 of 6 seats taken")
    expect(table).to_contain_text("Waits for 2 more players to start at")
    assert fits_the_width(page)
    tab_to(page, '[data-testid="forming-table"] button[type="submit"]')
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("forming-table")).to_have_count(0)
    page.goto(f"{live_server.url}/games/")
    expect(page.get_by_test_id("lobby-filters")).to_be_visible()
    assert fits_the_width(page)
    assert not browser_problems.problems, browser_problems.problems


@pytest.mark.django_db(transaction=True)
def test_a_challenged_friend_accepts_by_keyboard(
    live_server, make_player, player_page, browser_problems
):
    from accounts import relations
    from games.models import Challenge, Game
    from games.play import challenges

    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    for other in (bob, cid):
        relations.follow(ann, other)
        relations.follow(other, ann)
    game = challenges.challenge_send(
        challenger=ann, friends=[bob.pk, cid.pk], ruleset="base", pace="2d"
    )
    page = player_page(bob, **PHONE)
    page.goto(f"{live_server.url}/friends/")
    expect(page.get_by_test_id("challenges-received")).to_contain_text("Ann")
    page.get_by_test_id("challenges-received").get_by_role("link").first.click()
    expect(page.get_by_test_id("challenge-answer")).to_be_visible()
    assert fits_the_width(page)
    tab_to(page, '[data-testid="challenge-answer"] button[value="accept"]')
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/games/{game.pk}/")
    assert Challenge.objects.get(challenged=bob).state == Challenge.State.ACCEPTED
    assert Game.objects.get(pk=game.pk).seats.filter(user=bob).exists()
    assert not browser_problems.problems, browser_problems.problems
