"""Results are read whole (issue 50, point 3), at 1366x768, 1920x1080 and on a 390x844 phone: a
round's result (while its gold is shared, and in the next round until the player decides) and the
game's end are shown whole (winners, gold, roles, everyone's guesses beside the true roles) where
the eyes are, in no box that scrolls, and the maze does not move when they appear.

What went wrong: at 1366x768 the last round's result beside the log was a 75 px box (its
"Winners" line cut); on the phone the round's end was a 136 px box (the roles cut); on desktop the
round's end was inserted above the maze (which jumped 90 px down and shrank); at the game's end the
guesses were a count ("Good guesses so far: N") and what each guessed was only on the round's
recap page.

Measured in the page: the result's box against the viewport and the bar, every box in and around
it that would clip or scroll it, and hit tests over a grid of its points.
"""

import re

import pytest
from playwright.sync_api import expect

from games.play import suspicions

from .deals import BASE_DEAL, BASE_ROW
from .test_game_play import WAIT, game_url, settled
from .test_table import SIZES, submit

# Problems of a result shown whole: [] when it is all in view above the bar (``in_view``), no box
# in or around it scrolls or clips it, and nothing covers any of 9 x 9 points of it.
WHOLE = """([selector, inView]) => {
    const result = document.querySelector(selector);
    if (!result || !result.checkVisibility()) return ["not shown"];
    const problems = [];
    const r = result.getBoundingClientRect();
    const clips = e => ["auto", "scroll", "hidden", "clip"].some(v =>
        [getComputedStyle(e).overflowX, getComputedStyle(e).overflowY].includes(v));
    for (const e of [result, ...result.querySelectorAll("*")]) {
        if (clips(e) && (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1))
            problems.push(`a box that scrolls: ${e.tagName}.${e.className}`);
    }
    for (let e = result.parentElement; e && e !== document.body; e = e.parentElement) {
        const a = e.getBoundingClientRect();
        if (clips(e) && (r.top < a.top - 1 || r.bottom > a.bottom + 1 || r.left < a.left - 1
                || r.right > a.right + 1))
            problems.push(`clipped by ${e.tagName}.${e.className}`);
    }
    const bar = document.querySelector("#bar").getBoundingClientRect();
    if (inView && (r.top < -0.5 || r.left < -0.5 || r.right > innerWidth + 0.5
            || r.bottom > Math.min(innerHeight, bar.top) + 0.5))
        problems.push(`not all in view above the bar: ${JSON.stringify(r)}, bar at ${bar.top}`);
    for (let i = 0; i < 9; i++) for (let j = 0; j < 9; j++) {
        const x = r.left + r.width * (i + 0.5) / 9, y = r.top + r.height * (j + 0.5) / 9;
        if (y < 0 || y > innerHeight) continue;
        const hit = document.elementFromPoint(x, y);
        if (!hit || !result.contains(hit))
            problems.push(`covered at ${Math.round(x)},${Math.round(y)} by `
                + (hit ? `${hit.tagName}.${hit.className}` : "nothing"));
    }
    return problems;
}"""

LIVE = 20_000  # the open page learns of a move live (or by its poll, every 10 s)


def area(page):
    settled(page)
    page.wait_for_function("() => !!document.querySelector('#board table.maze').style.zoom")
    return page.locator("[data-maze-area]").bounding_box()


def stays(page, before):
    """The maze's area starts where it did before the result appeared, and is what it is without
    the result (closed): the result takes nothing from it. (It may be another height than before
    the round ended: the bar is lower once the hand folds away for the gold, higher when the
    player decides.)"""
    now = area(page)
    assert [round(now["x"]), round(now["y"])] == [round(before["x"]), round(before["y"])]
    page.locator("[data-round-toast]").evaluate("toast => { toast.hidden = true; }")
    without = area(page)
    page.locator("[data-round-toast]").evaluate("toast => { toast.hidden = false; }")
    assert area(page) == now == without, (now, without)


def guess(game, user, target, mark):
    suspicions.mark_set(game_id=game.pk, user=user, target=target, mark=mark)


def to_the_last_move(game, ann, bob, cid):
    """The rigged first round up to Cid's last move (the cross that reaches the treasure)."""
    submit(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    submit(game, bob, move="action", card="map", goal="north")
    submit(game, cid, move="pass", discard=["dead-n"])
    for seat, card, x in BASE_ROW[:-1]:
        submit(game, (ann, bob, cid)[seat], move="place", card=card, at=[x, 0])


def roles_and_guesses(result):
    """Every role face up, with each player's guesses beside their own."""
    roles = result.locator("li", has_text="Ann: Gold digger")
    expect(roles).to_contain_text("guessed Bob: Saboteur (right), Cid: Saboteur (wrong)")
    expect(result.locator("li", has_text="Cid: Gold digger")).to_contain_text(
        "guessed Ann: Saboteur (wrong)"
    )
    expect(result.locator("li", has_text=re.compile("^Bob: Saboteur"))).to_have_count(1)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
def test_a_rounds_result_is_shown_whole_and_the_maze_stays_where_it_is(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, rounds=2)
    url = game_url(live_server, game)
    guess(game, ann, "1", "saboteur")
    guess(game, ann, "2", "saboteur")
    guess(game, cid, "0", "saboteur")
    to_the_last_move(game, ann, bob, cid)
    b = player_page(bob, **SIZES[size])
    b.goto(url)
    expect(b.get_by_test_id("turn-line")).to_contain_text("Waiting for Cid", timeout=WAIT)
    before = area(b)

    # The round ends while Bob's page is open: its result appears, and the maze stays put.
    seat, card, x = BASE_ROW[-1]
    submit(game, cid, move="place", card=card, at=[x, 0])
    end = b.get_by_test_id("round-end")
    expect(end).to_contain_text("Round 1 is over", timeout=LIVE)
    stays(b, before)
    expect(end).to_contain_text("Winners: Ann, Cid")
    roles_and_guesses(end)
    assert b.evaluate(WHOLE, ["[data-round-toast]", True]) == []  # the result and its Close

    # The gold shared, round 2 begins: the last round's result stays, whole, until Bob decides.
    submit(game, cid, move="pick-gold", value=3)
    submit(game, ann, move="pick-gold", value=2)
    result = b.get_by_test_id("round-result")
    expect(result).to_contain_text("Round 1 is over", timeout=LIVE)
    stays(b, before)
    roles_and_guesses(result)
    assert b.evaluate(WHOLE, ["[data-round-toast]", True]) == []
    assert browser_problems.problems == []


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
def test_the_games_end_is_shown_whole_with_everyones_guesses_beside_the_roles(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Deep mine")
    guess(game, ann, "1", "saboteur")
    guess(game, ann, "2", "saboteur")
    guess(game, cid, "0", "saboteur")
    to_the_last_move(game, ann, bob, cid)
    seat, card, x = BASE_ROW[-1]
    submit(game, cid, move="place", card=card, at=[x, 0])
    submit(game, cid, move="pick-gold", value=3)
    submit(game, ann, move="pick-gold", value=2)
    a = player_page(ann, **SIZES[size])
    a.goto(game_url(live_server, game))
    over = a.get_by_test_id("game-over")
    expect(over).to_be_visible(timeout=WAIT)
    expect(over.get_by_role("heading", name="Cid wins with 4 gold!")).to_be_in_viewport()
    expect(over.locator(".gold-table")).to_contain_text("Ann")
    roles_and_guesses(over.get_by_test_id("roles-by-round"))
    # The count of good guesses is the game's, not "so far".
    expect(over.get_by_test_id("guesses")).to_have_text("Good guesses: Ann 1, Cid 0")
    phone = size == "phone"
    # On a wide screen all of it at once; on the phone one thing after another, each whole.
    assert a.evaluate(WHOLE, ['[data-testid="game-over"]', not phone]) == [] or phone
    parts = ["game-end", "standings", "roles-by-round"]
    for testid in parts:
        a.get_by_test_id(testid).scroll_into_view_if_needed()
        assert a.evaluate(WHOLE, [f'[data-testid="{testid}"]', True]) == [], testid
    assert browser_problems.problems == []
