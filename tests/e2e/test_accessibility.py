"""axe-core in the browser (issue 13): no serious or critical violation on the home, lobby,
game (base and Saboteur 2), profile, player, leaderboard, vacation and rules pages, and the
report form and one's reports (issue 53), and issue 52's play now, friends and challenge pages.

axe is vendored from its npm package (tests/e2e/vendor/axe-core) and injected by Playwright's
``evaluate``, which the site's CSP does not apply to; the site never serves it.
"""

from pathlib import Path

import pytest
from django.utils import timezone

from accounts import relations
from games.models import Challenge, Rating
from games.play import challenges, matchmaking
from games.play.lobby import game_create, seat_join
from games.play.matchmaking import Wish

from .deals import BASE_DEAL, SABOTEUR2_DEAL

AXE = (Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
BAD = ("serious", "critical")


def violations(page) -> list[str]:
    page.evaluate(AXE)
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ["violations"]});
            return result.violations.map(v => ({
                id: v.id, impact: v.impact,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
            }));
        }"""
    )
    return [f"{v['id']} ({v['impact']}): {v['nodes']}" for v in found if v["impact"] in BAD]


@pytest.mark.django_db(transaction=True)
def test_no_serious_violation_on_the_main_pages(
    live_server, make_player, rigged_game, player_page, new_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    base = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Base")
    expansion = rigged_game([ann, bob, cid], ruleset="saboteur2", deal=SABOTEUR2_DEAL, name="S2")
    # Ratings to show (issue 28): on the player page, the leaderboard and an open table.
    for user, mu, rounds in ((ann, 30.0, 12), (bob, 27.0, 4)):
        for kind in ("all", "digger"):
            Rating.objects.create(
                user=user, ruleset="base", kind=kind, mu=mu, sigma=3.0, score=mu - 9.0,
                rounds=rounds, last_round_at=timezone.now(),
            )  # fmt: skip
    table = game_create(creator=bob, name="Open table", ruleset="base", max_seats=4,
                        min_reliability=75)  # fmt: skip
    seat_join(game_id=table.pk, user=ann)
    for other in (bob, cid):
        relations.follow(ann, other)
        relations.follow(other, ann)
    matchmaking.seek(user=ann, wish=Wish(rulesets=("base",), min_players=3, max_players=5,
                                         pace="2d", languages=("en",)))  # fmt: skip
    challenges.challenge_send(challenger=bob, friends=[ann.pk], ruleset="saboteur2", pace="1d")
    challenge = Challenge.objects.get(challenged=ann)
    anonymous = new_page()
    anonymous.goto(f"{live_server.url}/")
    problems = {"home": violations(anonymous)}
    anonymous.goto(f"{live_server.url}/rules/")
    problems["rules"] = violations(anonymous)
    page = player_page(ann)
    for label, path in [
        ("dashboard", "/"),
        ("lobby", "/games/"),
        ("profile", "/accounts/profile/"),
        ("player", "/players/Ann/"),
        ("another player (block, report)", "/players/Bob/"),
        ("report a player of a game", f"/report/game/{base.pk}/"),
        ("your reports", "/reports/"),
        ("leaderboard", "/leaderboards/base/"),
        ("vacation", "/vacation/"),
        ("game base", f"/games/{base.pk}/"),
        ("game base, card chosen", f"/games/{base.pk}/?card=t-new"),
        ("game saboteur2", f"/games/{expansion.pk}/"),
        # Issue 52: play now (with a forming table), friends (with a challenge), a challenge,
        # another player's page (follow), the lobby's filters in use.
        ("play now", "/play/"),
        ("friends", "/friends/"),
        ("challenge", f"/challenges/{challenge.token}/"),
        ("player bob", "/players/Bob/"),
        ("lobby filtered", "/games/?ruleset=base&free=1"),
    ]:
        page.goto(f"{live_server.url}{path}")
        problems[label] = violations(page)
    for phone_page in (player_page(ann, viewport={"width": 390, "height": 844}),):
        phone_page.goto(f"{live_server.url}/games/{base.pk}/?card=t-new&turned=1")
        problems["game on a phone"] = violations(phone_page)
    assert {label: found for label, found in problems.items() if found} == {}
    assert browser_problems.problems == []
