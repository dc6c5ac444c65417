"""Community safety (issue 53): reports, the moderators' queue, chat mutes, blocks and one's own
data. Built through the services; the pages asked as the players would."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.core import mail
from django.db import IntegrityError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import relations
from accounts.models import Ban
from games import tasks
from games.models import ChatMessage, ChatMute, Notice, Report, Seat
from games.moderation import reports
from games.play import chat
from games.play.lobby import game_create, game_start, seat_join
from tests.web.test_admin import run_action

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def world(make_user):
    """Ann, Bob and Cid at a running private table; Dan outside it."""

    class World:
        ann, bob, cid, dan = (make_user(n) for n in ("ann", "bob", "cid", "dan"))

    w = World()
    game = game_create(
        creator=w.ann, name="Deep mine", ruleset="base", max_seats=3, visibility="private"
    )
    for user in (w.bob, w.cid):
        seat_join(game_id=game.pk, user=user)
    w.game = game_start(game_id=game.pk, user=w.ann)
    return w


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def say(world, user, text) -> ChatMessage:
    return chat.chat_post(game_id=world.game.pk, user=user, text=text)


# -- Reports ---------------------------------------------------------------------------------


def test_a_chat_message_is_reported_from_the_game_page_once(world):
    line = say(world, world.bob, "You are all idiots")
    ann = logged_in(world.ann)
    page = ann.get(reverse("game", args=[world.game.pk])).content.decode()
    url = reverse("report", args=["message", line.pk])
    assert url in page  # the line's "Report" link
    assert ann.get(url).status_code == 200
    response = ann.post(url, {"reason": "abuse", "text": "Insults"})
    assert response.status_code == 302 and response["Location"] == reverse("my_reports")
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.game_id) == (
        world.ann,
        world.bob,
        world.game.pk,
    )
    assert report.quoted == "You are all idiots" and report.outcome == Report.Outcome.OPEN
    again = ann.post(url, {"reason": "spam", "text": "Again"})
    assert again.status_code == 422
    assert "You have reported this already" in again.content.decode()
    assert Report.objects.count() == 1
    mine = ann.get(reverse("my_reports")).content.decode()
    assert "Waiting for a moderator" in mine and "You are all idiots" in mine


def test_own_lines_have_no_report_link_and_cannot_be_reported(world):
    line = say(world, world.ann, "Hello")
    ann = logged_in(world.ann)
    page = ann.get(reverse("game", args=[world.game.pk])).content.decode()
    assert reverse("report", args=["message", line.pk]) not in page
    assert ann.get(reverse("report", args=["message", line.pk])).status_code == 404


def test_a_player_of_a_game_and_a_player_are_reported(world):
    ann = logged_in(world.ann)
    url = reverse("report", args=["game", world.game.pk])
    page = ann.get(url).content.decode()
    assert "Bob" in page and "Cid" in page
    missing = ann.post(url, {"reason": "cheating", "text": "They share cards"})
    assert missing.status_code == 422 and not Report.objects.exists()  # no player chosen
    stranger = ann.post(url, {"reason": "cheating", "player": world.dan.pk})
    assert stranger.status_code == 422 and not Report.objects.exists()  # not at this table
    ann.post(url, {"reason": "cheating", "player": world.bob.pk, "text": "Collusion"})
    ann.post(reverse("report", args=["player", world.bob.pk]), {"reason": "name"})
    things = sorted(Report.objects.values_list("thing", flat=True))
    assert things == [f"game:{world.game.pk}:{world.bob.pk}", f"player:{world.bob.pk}"]


@pytest.mark.parametrize("kind", ["message", "game", "player"])
def test_outsiders_and_forged_ids_get_404_and_nothing_is_stored(world, kind):
    line = say(world, world.bob, "Secret table talk")
    ids = {"message": line.pk, "game": world.game.pk, "player": world.dan.pk}
    dan = logged_in(world.dan)
    url = reverse("report", args=[kind, ids[kind]])
    if kind == "player":  # oneself
        assert dan.get(url).status_code == 404
    else:  # a private table's line and game: Dan does not sit there
        assert dan.get(url).status_code == 404
        assert dan.post(url, {"reason": "abuse", "player": world.bob.pk}).status_code == 404
    forged = reverse("report", args=[kind, 987654321])
    assert dan.post(forged, {"reason": "abuse"}).status_code == 404
    assert dan.put(url).status_code == 405
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    assert not Report.objects.exists()


def test_the_service_refuses_the_same_thing_twice_and_too_many_a_day(world, make_user):
    reports.report_create(reporter=world.ann, reason="abuse", user_id=world.bob.pk)
    with pytest.raises(reports.ReportRefused):
        reports.report_create(reporter=world.ann, reason="spam", user_id=world.bob.pk)
    others = [make_user(f"p{i}") for i in range(reports.REPORTS_PER_DAY)]
    for other in others[:-1]:
        reports.report_create(reporter=world.ann, reason="spam", user_id=other.pk)
    with pytest.raises(reports.ReportRefused) as refused:
        reports.report_create(reporter=world.ann, reason="spam", user_id=others[-1].pk)
    assert refused.value.code == "rate-limited"
    assert Report.objects.filter(reporter=world.ann).count() == reports.REPORTS_PER_DAY


def test_the_database_holds_one_report_per_thing_per_reporter(world):
    Report.objects.create(reporter=world.ann, reported=world.bob, thing="player:x", reason="spam")
    with pytest.raises(IntegrityError):
        Report.objects.create(
            reporter=world.ann, reported=world.bob, thing="player:x", reason="abuse"
        )


# -- The moderators' queue -------------------------------------------------------------------


def two_reports(world):
    line = say(world, world.bob, "Idiots, all of you")
    one = reports.report_create(reporter=world.ann, reason="abuse", message_id=line.pk)
    two = reports.report_create(reporter=world.cid, reason="spam", user_id=world.bob.pk)
    return line, one, two


def test_the_queue_groups_reports_by_player_with_the_chat_around_the_line(world, admin_client):
    say(world, world.ann, "Good luck all")
    line, one, _two = two_reports(world)
    say(world, world.cid, "Calm down")
    body = admin_client.get(reverse("admin:games_report_changelist")).content.decode()
    assert body.count("Bob") >= 2 and ">2<" in body  # two open reports about Bob
    page = admin_client.get(reverse("admin:games_report_change", args=[one.pk])).content.decode()
    for text in ("Good luck all", "Idiots, all of you", "Calm down"):
        assert text in page
    assert reverse("admin:games_game_change", args=[world.game.pk]) in page


def test_the_queue_opens_on_the_reports_waiting_and_shows_the_others_on_asking(world, admin_client):
    _line, one, two = two_reports(world)
    run_action(admin_client, Report, "dismiss", [one.pk], reason="Banter")
    queue = reverse("admin:games_report_changelist")

    def listed(query=""):
        response = admin_client.get(queue + query)
        assert response.status_code == 200
        return {report.pk for report in response.context["cl"].result_list}

    assert listed() == {two.pk}  # waiting for a moderator
    assert listed("?outcome=dismissed") == {one.pk}
    assert listed("?outcome=all") == {one.pk, two.pk}
    assert listed("?outcome=nonsense") == set()
    body = admin_client.get(queue).content.decode()
    selected = re.findall(r'<li class="selected">\s*<a href="([^"]*)"', body)
    assert "?outcome=open" in selected  # the filter says what the queue shows


MODERATION_SUBJECTS = (
    "A warning from the moderators", "You are muted in the chat", "Your report was handled",
)  # fmt: skip


def sent_to(user) -> list:
    """The moderation emails ``user`` was sent (in English)."""
    return [
        m for m in mail.outbox
        if m.to == [user.email] and any(subject in m.subject for subject in MODERATION_SUBJECTS)
    ]  # fmt: skip


def test_warning_tells_the_reporters_the_outcome_and_the_player_never_who(world, admin_client):
    _line, one, two = two_reports(world)
    response = run_action(
        admin_client, Report, "warn", [one.pk, two.pk], reason="Insults at Deep mine"
    )
    assert response.status_code == 302
    one.refresh_from_db()
    two.refresh_from_db()
    assert {one.outcome, two.outcome} == {Report.Outcome.WARNED}
    assert one.handled_by.username == "root"
    entries = LogEntry.objects.filter(object_id=str(one.pk)).values_list(
        "change_message", flat=True
    )
    assert any("Warned. Reason: Insults at Deep mine" in entry for entry in entries)
    mail.outbox.clear()
    tasks.sweep()
    warnings = sent_to(world.bob)
    assert len(warnings) == 1 and "warning" in warnings[0].subject
    body = warnings[0].body
    assert "Abuse or harassment" in body
    for secret in ("Ann", "Cid", "ann@", "cid@", "Insults at Deep mine"):
        assert secret not in body
    assert "The player was warned" in sent_to(world.ann)[0].body
    assert len(sent_to(world.cid)) == 1


def test_a_mute_refuses_chat_with_its_end_and_keeps_nothing(world, admin_client):
    _line, one, _two = two_reports(world)
    run_action(admin_client, Report, "mute", [one.pk], reason="Insults", hours=24)
    mute = ChatMute.objects.get(user=world.bob)
    assert timedelta(hours=23) < mute.until - timezone.now() <= timedelta(hours=24)
    with pytest.raises(chat.ChatMuted):
        say(world, world.bob, "Still here")
    bob = logged_in(world.bob)
    url = reverse("chat", args=[world.game.pk])
    lines = ChatMessage.objects.count()
    refused = bob.post(url, {"text": "Let me speak"}, headers=HTMX)
    assert refused.status_code == 422
    assert "muted you in the chat until" in refused.content.decode()
    assert ChatMessage.objects.count() == lines
    plain = bob.post(url, {"text": "Without scripts"})  # a plain form: the text comes back
    assert plain.status_code == 422 and 'value="Without scripts"' in plain.content.decode()
    assert ChatMessage.objects.count() == lines
    tasks.sweep()
    assert [m.subject for m in sent_to(world.bob)] == ["You are muted in the chat"]
    assert "until" in sent_to(world.bob)[0].body
    # Once it ends, the player writes again.
    mute.until = timezone.now() - timedelta(seconds=1)
    mute.save()
    say(world, world.bob, "Sorry, all")


def test_a_ban_from_the_queue_is_the_existing_ban(world, admin_client):
    _line, one, two = two_reports(world)
    response = run_action(admin_client, Report, "ban", [one.pk, two.pk], reason="Repeated abuse")
    response = admin_client.get(response["Location"])
    # As the users' ban does: a link to hand the seat over (one, for the one player banned).
    replace = reverse("admin:games_game_moderate", args=[world.game.pk, "replace_seat"])
    assert response.content.decode().count(replace) == 1
    assert Ban.objects.filter(user=world.bob, reason="Repeated abuse").count() == 1
    world.bob.refresh_from_db()
    assert not world.bob.is_active
    assert set(Report.objects.values_list("outcome", flat=True)) == {Report.Outcome.BANNED}
    assert world.game.seats.get(user=world.bob).state == Seat.State.ABSENT


def test_a_dismissal_tells_only_the_reporter_and_a_handled_report_stays_handled(
    world, admin_client
):
    _line, one, _two = two_reports(world)
    run_action(admin_client, Report, "dismiss", [one.pk], reason="Banter")
    # Handled reports leave the queue's first view; among all of them, a second action is refused.
    run_action(
        admin_client, Report, "warn", [one.pk], query="?outcome=all", reason="Changed my mind"
    )
    one.refresh_from_db()
    assert one.outcome == Report.Outcome.DISMISSED
    tasks.sweep()
    assert sent_to(world.bob) == []
    assert "Looked at: no action" in sent_to(world.ann)[0].body


def test_the_outcome_is_told_in_the_reporters_language(world, admin_client):
    world.ann.language = "cs"
    world.ann.save(update_fields=["language"])
    _line, one, _two = two_reports(world)
    run_action(admin_client, Report, "dismiss", [one.pk], reason="Banter")
    tasks.sweep()
    notice = Notice.objects.get(kind=Notice.Kind.REPORT_DONE)
    assert notice.status == Notice.Status.SENT
    to_ann = [m for m in mail.outbox if m.to == [world.ann.email]]
    assert to_ann and not sent_to(world.ann)  # sent, and not in English


# -- Blocks ----------------------------------------------------------------------------------


def test_a_block_hides_the_blocked_players_chat_for_the_blocker_only(world):
    say(world, world.bob, "Bob was here")
    say(world, world.cid, "Cid was here")
    ann, cid = logged_in(world.ann), logged_in(world.cid)
    game_url = reverse("game", args=[world.game.pk])
    assert "Bob was here" in ann.get(game_url).content.decode()
    blocked = ann.post(reverse("block", args=[world.bob.pk]), {"next": "https://evil.example/"})
    assert blocked.status_code == 302 and blocked["Location"] == reverse("profile")
    page = ann.get(game_url).content.decode()
    assert "Bob was here" not in page and "Cid was here" in page
    # The live part too (htmx asks for the play area).
    part = ann.get(game_url, {"part": "play"}, headers=HTMX).content.decode()
    assert "Bob was here" not in part
    assert "Bob was here" in cid.get(game_url).content.decode()
    profile = ann.get(reverse("profile")).content.decode()
    assert "Bob" in profile and reverse("unblock", args=[world.bob.pk]) in profile
    ann.post(reverse("unblock", args=[world.bob.pk]))
    assert "Bob was here" in ann.get(game_url).content.decode()


def test_the_player_page_offers_block_and_report_and_nobody_blocks_themselves(world):
    ann = logged_in(world.ann)
    page = ann.get(reverse("player", args=["Bob"])).content.decode()
    assert reverse("block", args=[world.bob.pk]) in page
    assert reverse("report", args=["player", world.bob.pk]) in page
    mine = ann.get(reverse("player", args=["Ann"])).content.decode()
    assert reverse("block", args=[world.ann.pk]) not in mine
    assert ann.post(reverse("block", args=[world.ann.pk])).status_code == 404
    assert ann.post(reverse("block", args=[987654321])).status_code == 404
    assert ann.get(reverse("block", args=[world.bob.pk])).status_code == 405
    assert not relations.blocked_ids(world.ann)


def test_mentions_by_a_blocked_player_send_nothing(world):
    relations.block(world.ann, world.bob)
    say(world, world.bob, "@Ann and @Cid, look")
    mentioned = set(Notice.objects.filter(kind=Notice.Kind.MENTION).values_list("user", flat=True))
    assert mentioned == {world.cid.pk}


def test_a_mention_waiting_when_its_author_is_blocked_is_not_sent(world):
    say(world, world.bob, "@Ann first")
    say(world, world.bob, "@Ann second")  # waits an hour after the first
    relations.block(world.ann, world.bob)
    waiting = Notice.objects.filter(
        user=world.ann, status=Notice.Status.PENDING, kind=Notice.Kind.MENTION
    ).latest("due_at")
    waiting.due_at = timezone.now()
    waiting.save()
    mail.outbox.clear()
    tasks.sweep()
    waiting.refresh_from_db()
    assert waiting.status == Notice.Status.SKIPPED and waiting.reason == "the author is blocked"


# -- Your data -------------------------------------------------------------------------------


def test_the_download_holds_ones_data_and_no_one_elses_secrets(world):
    say(world, world.ann, "My own words")
    say(world, world.bob, "Bob's words")
    reports.report_create(reporter=world.ann, reason="abuse", user_id=world.bob.pk)
    reports.report_create(reporter=world.bob, reason="spam", user_id=world.ann.pk)
    relations.block(world.ann, world.cid)
    response = logged_in(world.ann).get(reverse("my_data"))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["profile"]["email"] == "ann@example.com" and "password" not in data["profile"]
    assert [line["text"] for line in data["games"][0]["your_chat"]] == ["My own words"]
    assert [r["player"] for r in data["reports_made"]] == ["Bob"]
    assert [b["player"] for b in data["blocked_players"]] == ["Cid"]
    text = response.content.decode()
    assert "Bob's words" not in text and "spam" not in text  # Bob's report of Ann stays his
    assert "snapshot" not in text and "role" not in text
    assert Client().get(reverse("my_data")).status_code == 302
    assert logged_in(world.ann).post(reverse("my_data")).status_code == 405


def strip(text: str) -> str:
    """A page without what differs at every request (its CSRF token and script nonces)."""
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)
    text = re.sub(r'"X-CSRFToken": "[^"]*"', "", text)
    return re.sub(r'nonce="[^"]*"', "", text)


def test_the_blocked_player_sees_no_sign_of_the_block(world):
    say(world, world.ann, "Ann writes")
    bob = logged_in(world.bob)
    game_url = reverse("game", args=[world.game.pk])
    ann_page = reverse("player", args=["Ann"])
    before = bob.get(ann_page).content.decode()
    relations.block(world.ann, world.bob)
    after = bob.get(ann_page).content.decode()
    assert strip(before) == strip(after)
    assert "Ann writes" in bob.get(game_url).content.decode()
    say(world, world.bob, "Bob still writes")  # refused nothing, told nothing
    data = bob.get(reverse("my_data")).content.decode()
    assert "blocked" in data and "Ann" not in data.split('"blocked_players"')[1].split("]")[0]
