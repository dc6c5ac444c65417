"""Turn emails, reminders, digests, quiet hours and deadlines, with time travel (PostgreSQL).

Celery runs eagerly here (the on-commit hook really calls the task); the real worker, Redis and
SMTP are in test_email_integration.py.
"""

from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.core import mail, signing
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import engine
from games.models import Game, Move, Notice, Seat
from games.outbox import links, schedule
from games.play import moves
from games.play.errors import MoveRefused
from games.play.lobby import game_create, game_start, invitation_send, seat_join
from games.play.moves import move_submit
from games.play.visits import seat_seen
from games.tasks import send_notice, sweep
from saboteur_site.celery import app
from tests.players import create_player
from tests.threads import at_once

pytestmark = pytest.mark.django_db
START = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def eager_celery():
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def make_player(name, **preferences):
    return create_player(name, password="x", **preferences)


@pytest.fixture
def players(traveller):
    return [make_player(n) for n in ("ann", "bob", "cid")]


def start(players, turn_limit=timedelta(days=1)):
    game = game_create(
        creator=players[0], name="Deep mine", ruleset="base", max_seats=len(players),
        turn_limit=turn_limit,
    )  # fmt: skip
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def mover(game):
    game.refresh_from_db()
    seat = game.seats.select_related("user").get(position=game.to_move)
    return seat, engine.State.from_json(game.snapshot)


def play(game, django_capture_on_commit_callbacks):
    seat, state = mover(game)
    with django_capture_on_commit_callbacks(execute=True):
        move_submit(
            game_id=game.pk, user=seat.user, expected_version=game.version,
            move={"move": "pass", "discard": [state.hands[state.to_move][0]]},
        )  # fmt: skip
    return seat


def sweeps_at_once(count: int) -> None:
    """``count`` minute sweeps started at the same moment, each in a thread of its own."""
    at_once([sweep] * count)


def turn_mails(to=None):
    return [m for m in mail.outbox if "Your turn" in m.subject and (to is None or m.to == [to])]


def test_an_accepted_move_emails_the_next_player_after_commit(
    players, django_capture_on_commit_callbacks
):
    game = start(players)
    mail.outbox.clear()
    play(game, django_capture_on_commit_callbacks)
    seat, _ = mover(game)
    [message] = mail.outbox
    assert message.to == [seat.user.email]
    assert message.subject == "Your turn in Deep mine"
    assert "passed and discarded 1 card" in message.body
    html = message.alternatives[0].content
    assert f"/games/{game.pk}/" in message.body and f"/games/{game.pk}/" in html
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "/unsubscribe/" in message.extra_headers["List-Unsubscribe"]
    # As sent: the header is the URL itself, not folded into encoded words.
    import email.policy

    for policy in (email.policy.default, email.policy.SMTP):
        raw = message.message(policy=policy).as_string()
        assert "List-Unsubscribe: <http://" in raw and "=?utf-8?" not in raw
    assert Notice.objects.get(kind="turn", user=seat.user).status == "sent"


def test_a_rolled_back_move_queues_nothing(players, django_capture_on_commit_callbacks):
    game = start(players)
    Notice.objects.all().delete()
    mail.outbox.clear()
    seat, state = mover(game)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            move_submit(
                game_id=game.pk, user=seat.user, expected_version=game.version,
                move={"move": "pass", "discard": [state.hands[state.to_move][0]]},
            )  # fmt: skip
            raise RuntimeError("rolled back")
    assert callbacks == [] and not Notice.objects.exists() and mail.outbox == []
    assert not Move.objects.exists()


def test_refused_moves_queue_nothing(players, django_capture_on_commit_callbacks):
    game = start(players)
    Notice.objects.all().delete()
    seat, _ = mover(game)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(MoveRefused):
            move_submit(
                game_id=game.pk, user=seat.user, expected_version=game.version,
                move={"move": "place", "card": "cross", "at": [0, 0]},
            )  # fmt: skip
    assert callbacks == [] and not Notice.objects.exists()


def test_no_turn_email_for_those_who_opted_out_or_are_looking(
    players, django_capture_on_commit_callbacks
):
    game = start(players)
    first, _ = mover(game)
    order = sorted(game.seats.select_related("user"), key=lambda s: s.position)
    after = order[(first.position + 1) % 3]
    after.user.email_turns = False
    after.user.save()
    mail.outbox.clear()
    play(game, django_capture_on_commit_callbacks)
    assert turn_mails() == []
    # The next one is on the game page right now.
    third = order[(first.position + 2) % 3]
    seat_seen(game=game, user=third.user)
    play(game, django_capture_on_commit_callbacks)
    assert turn_mails() == []


def test_mail_goes_only_to_verified_addresses(players, django_capture_on_commit_callbacks):
    game = start(players)
    first, _ = mover(game)
    order = sorted(game.seats.select_related("user"), key=lambda s: s.position)
    after = order[(first.position + 1) % 3]
    EmailAddress.objects.filter(user=after.user).update(verified=False)
    mail.outbox.clear()
    play(game, django_capture_on_commit_callbacks)
    assert turn_mails() == []
    assert Notice.objects.get(kind="turn", user=after.user).reason == "no verified address"


def test_reminders_at_half_and_ninety_percent_once_each(players, traveller):
    game = start(players, turn_limit=timedelta(hours=10))
    seat, _ = mover(game)
    mail.outbox.clear()
    reminders = lambda: [m for m in mail.outbox if m.subject.startswith("Reminder")]  # noqa: E731
    traveller.move_to(START + timedelta(hours=4, minutes=59))
    sweep()
    assert reminders() == []
    traveller.move_to(START + timedelta(hours=5))
    sweep()
    sweep()
    assert len(reminders()) == 1 and reminders()[0].to == [seat.user.email]
    traveller.move_to(START + timedelta(hours=9))
    sweep()
    sweep()
    assert len(reminders()) == 2


def test_no_reminder_once_the_turn_has_moved_on(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(hours=10))
    sweep()  # the start's emails
    traveller.move_to(START + timedelta(hours=1))
    play(game, django_capture_on_commit_callbacks)
    mail.outbox.clear()
    traveller.move_to(START + timedelta(hours=5, minutes=30))
    sweep()
    assert [m.subject for m in mail.outbox] == []  # the next player's reminder is due at 6:00
    # Both of the first player's reminders were cancelled when their turn ended.
    skipped = Notice.objects.filter(kind="reminder", status="skipped")
    assert skipped.count() == 2
    assert {n.reason for n in skipped} == {"the turn has moved on"}


def test_quiet_hours_postpone_reminders(players, traveller):
    for user in players:
        user.time_zone = "Europe/Prague"  # UTC+1 in November
        user.quiet_from, user.quiet_until = time(14, 0), time(16, 0)
        user.save()
    start(players, turn_limit=timedelta(hours=10))
    traveller.move_to(START + timedelta(hours=3, minutes=30))  # 14:30 local: quiet
    # The half-time reminder falls due in the quiet hours.
    Notice.objects.filter(key__startswith="reminder50").update(due_at=START + timedelta(hours=3))
    mail.outbox.clear()
    reminders = lambda: [m for m in mail.outbox if m.subject.startswith("Reminder")]  # noqa: E731
    sweep()
    assert reminders() == []
    postponed = Notice.objects.filter(kind="reminder", status="pending").order_by("due_at").first()
    assert postponed.due_at == datetime(2026, 11, 2, 15, 0, tzinfo=UTC)  # 16:00 local
    traveller.move_to(datetime(2026, 11, 2, 15, 0, tzinfo=UTC))
    sweep()
    assert len(reminders()) == 1


def test_daily_digest_instead_of_one_email_per_game(players, traveller):
    ann = players[0]
    ann.email_digest = True
    ann.save()
    games = [start(players) for _ in range(3)]
    waiting = sum(1 for g in games if mover(g)[0].user == ann)
    assert not Notice.objects.filter(kind="turn", user=ann).exists()
    traveller.move_to(datetime(2026, 11, 3, 7, 59, tzinfo=UTC))
    Game.objects.update(deadline=START + timedelta(days=5))
    sweep()
    assert not [m for m in mail.outbox if m.to == [ann.email] and "games" in m.subject]
    traveller.move_to(datetime(2026, 11, 3, 8, 1, tzinfo=UTC))
    sweep()
    sweep()
    digests = [m for m in mail.outbox if m.to == [ann.email] and "It is your turn" in m.subject]
    if waiting:
        assert len(digests) == 1
        assert f"{waiting} game" in digests[0].subject
    else:
        assert digests == []


def test_deadline_makes_a_safe_move_and_three_timeouts_mark_the_seat_absent(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(hours=1))
    absent_seat, _ = mover(game)
    for _ in range(3):
        # The absent player's deadline runs out; the others move at once.
        seat, state = mover(game)
        assert seat == absent_seat
        hand = list(state.hands[state.to_move])
        traveller.shift(timedelta(hours=1, minutes=1))
        sweep()
        automatic = Move.objects.filter(game=game, automatic=True).order_by("-sequence").first()
        assert automatic.seat == absent_seat
        assert automatic.payload["move"] == "pass"
        assert automatic.payload["discard"][0] in hand
        for _other in range(2):
            play(game, django_capture_on_commit_callbacks)
    absent_seat.refresh_from_db()
    assert absent_seat.timeouts_in_a_row == 3 and absent_seat.state == Seat.State.ABSENT
    absent_mails = [m for m in mail.outbox if "absent" in m.subject]
    assert sorted(m.to[0] for m in absent_mails) == sorted(
        s.user.email for s in game.seats.exclude(pk=absent_seat.pk)
    )
    page = Client()
    page.force_login(players[1])
    assert "Time ran out for" in page.get(reverse("game", args=[game.pk])).content.decode()
    # Making a move takes the seat back.
    play(game, django_capture_on_commit_callbacks)
    absent_seat.refresh_from_db()
    assert absent_seat.state == Seat.State.ACTIVE and absent_seat.timeouts_in_a_row == 0


def test_default_decisions_pick_the_highest_gold_and_decline_thefts():
    state = engine.new_game(
        ruleset="base", seats=["a", "b", "c"], round_seeds=["1", "2", "3"], rounds=1
    )
    state.decision, state.offer, state.to_move = engine.PICK_GOLD, [1, 3, 2], 0
    from games.play.moves import default_move

    assert default_move(state, "a", None) == {"move": "pick-gold", "value": 3}
    state.decision = engine.STEAL
    assert default_move(state, "a", None) == {"move": "steal", "victim": None}


def test_sending_three_times_sends_once(players):
    game = start(players)
    notice = Notice.objects.get(kind="turn")
    mail.outbox.clear()
    Notice.objects.filter(pk=notice.pk).update(status="pending")
    for _ in range(3):
        send_notice.delay(notice.pk)
    assert len(mail.outbox) == 1
    assert game.notices.get(pk=notice.pk).status == "sent"


def test_every_attempt_at_one_notice_is_the_same_email_by_its_message_id(players, settings):
    """A send repeated after the SMTP server took the email but before the row was marked sent
    (the sender killed in between) is recognisably the same email: one Message-ID per row."""
    from games.outbox.emails import build_email

    settings.SITE_URL = "https://saboteur.example"
    start(players)
    notices = list(Notice.objects.order_by("pk"))
    assert len(notices) > 1
    ids = [build_email(notice, "x@example.com").message()["Message-ID"] for notice in notices]
    again = [build_email(notice, "x@example.com").message()["Message-ID"] for notice in notices]
    assert ids == again
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("<notice.") and i.endswith("@saboteur.example>") for i in ids)
    # What the outbox sends carries it.
    mail.outbox.clear()
    turn = Notice.objects.get(kind="turn")
    Notice.objects.filter(pk=turn.pk).update(status="pending")
    send_notice.delay(turn.pk)
    [sent] = mail.outbox
    assert sent.message()["Message-ID"] == ids[notices.index(turn)]
    # A row numbered as a lost one was (a database restored from a backup) is another email.
    turn.created_at += timedelta(microseconds=1)
    assert (
        build_email(turn, "x@example.com").message()["Message-ID"] != sent.message()["Message-ID"]
    )


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_send_once():
    with time_machine.travel(START, tick=False):
        players = [make_player(n) for n in ("ann", "bob", "cid")]
        start(players)
        Notice.objects.filter(kind="turn").update(status="pending")
        mail.outbox.clear()
        sweeps_at_once(2)
        assert len(turn_mails()) == 1


def test_emails_show_no_secret_of_another_seat(players, django_capture_on_commit_callbacks):
    """The same email, rebuilt after changing what the recipient may not know, is identical."""
    from games.outbox.emails import build_email

    game = start(players)
    play(game, django_capture_on_commit_callbacks)
    notice = Notice.objects.filter(kind="turn").latest("pk")
    me = int(notice.seat.engine_name)
    original = build_email(notice, "x@example.com")
    game.refresh_from_db()  # the twin differs from the state the email was built from
    state = engine.State.from_json(game.snapshot)
    others = [i for i in range(3) if i != me]
    state.hands[others[0]][0], state.pile[0] = state.pile[0], state.hands[others[0]][0]
    state.roles[others[0]], state.roles[others[1]] = "saboteur", "gold-digger"
    state.pile.reverse()
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())
    notice.game.refresh_from_db()
    twin = build_email(notice, "x@example.com")
    assert (twin.subject, twin.body, twin.alternatives, twin.inline_images) == (
        original.subject, original.body, original.alternatives, original.inline_images,
    )  # fmt: skip
    assert "/tap/" in original.body and original.inline_images  # what is compared is there
    assert state.config.round_seeds[0] not in original.body


def test_unsubscribe_get_changes_nothing_and_one_click_post_works_without_cookies(players):
    ann = players[0]
    token = links.unsubscribe_token(ann, "turns")
    url = reverse("unsubscribe", args=[token])
    client = Client(enforce_csrf_checks=True)
    assert client.get(url).status_code == 200
    ann.refresh_from_db()
    assert ann.email_turns
    response = client.post(url, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200  # an answer, not a redirect
    ann.refresh_from_db()
    assert not ann.email_turns


def test_tampered_expired_or_foreign_tokens_are_refused(players, traveller):
    ann = players[0]
    token = links.unsubscribe_token(ann, "reminders")
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    foreign = signing.dumps({"u": ann.pk, "w": "reminders"}, salt="another.purpose")
    client = Client()
    for bad in (tampered, foreign, "junk"):
        response = client.post(reverse("unsubscribe", args=[bad]))
        assert response.status_code == 400
        assert "does not work" in response.content.decode()
    traveller.shift(timedelta(days=91))
    assert client.post(reverse("unsubscribe", args=[token])).status_code == 400
    ann.refresh_from_db()
    assert ann.email_reminders


def test_invitations_are_emailed_once_per_address(players, django_capture_on_commit_callbacks):
    game = game_create(creator=players[0], name="Friends", ruleset="base", max_seats=4)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        invitation_send(game_id=game.pk, user=players[0], email="Pal@Example.com")
    with django_capture_on_commit_callbacks(execute=True):
        invitation_send(game_id=game.pk, user=players[0], email="pal@example.com")
    [message] = mail.outbox
    assert message.to == ["pal@example.com"]
    assert f"/invite/{game.invite_token}/" in message.body
    assert "List-Unsubscribe" not in message.extra_headers


def test_a_chat_mention_emails_the_player_named(players, django_capture_on_commit_callbacks):
    from games.play.chat import chat_post

    game = start(players)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        chat_post(game_id=game.pk, user=players[0], text="@Bob dig east, @nobody here")
    [message] = mail.outbox
    assert message.to == ["bob@example.com"]
    assert message.subject == "Ann mentioned you in Deep mine"
    assert "dig east" in message.body
    assert "/unsubscribe/" in message.extra_headers["List-Unsubscribe"]
    players[2].email_mentions = False
    players[2].save()
    with django_capture_on_commit_callbacks(execute=True):
        chat_post(game_id=game.pk, user=players[0], text="@Cid?")
    assert len(mail.outbox) == 1


@pytest.mark.parametrize(
    "kind",
    [
        "turn", "reminder", "absent", "mention", "digest", "invitation",
        "started", "timeout", "aborted", "briefing", "replaced", "paused", "resumed", "extended",
        "vacation", "vacation-end",
    ],
)  # fmt: skip
def test_no_email_kind_shows_a_secret_of_another_seat(players, kind):
    """Every email type, rebuilt after changing what its recipient may not know, is identical."""
    from games.outbox.emails import build_email
    from games.play.chat import chat_post

    game = start(players)
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.select_related("user").get(position=game.to_move)
    if kind == "reminder":
        notice = Notice.objects.filter(kind="reminder", seat=seat).first()
    elif kind == "absent":
        schedule.notice_absent(game=game, absent=seat, now=START)
        notice = Notice.objects.filter(kind="absent").first()
    elif kind == "mention":
        other = game.seats.exclude(pk=seat.pk).select_related("user").first()
        chat_post(game_id=game.pk, user=other.user, text=f"@{seat.user.display_name} hi")
        notice = Notice.objects.get(kind="mention")
    elif kind == "invitation":
        Game.objects.filter(pk=game.pk).update(status=Game.Status.LOBBY)
        invitation_send(game_id=game.pk, user=seat.user, email="pal@example.com")
        Game.objects.filter(pk=game.pk).update(status=Game.Status.RUNNING)
        notice = Notice.objects.get(kind="invitation")
    elif kind in ("started", "aborted", "briefing", "replaced", "paused", "resumed", "extended"):
        other = game.seats.exclude(pk=seat.pk).first()
        notice = Notice.objects.create(
            key=f"{kind}-test", kind=kind, user=other.user, game=game, seat=other, due_at=START,
            data={
                "reason": "spam", "old": "Ann", "new": "Bob", "mover": seat.position,
                "deadline": game.deadline.isoformat(), "hours": 2, "left": 3600,
            },
        )  # fmt: skip
    elif kind == "timeout":  # a real one: the email tells the discarded and drawn cards
        Game.objects.filter(pk=game.pk).update(deadline=START)
        moves.turn_timeout(game_id=game.pk, now=START + timedelta(minutes=1))
        notice = Notice.objects.get(kind="timeout")
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
    elif kind in ("vacation", "vacation-end"):
        from games.play.vacations import vacation_declare

        vacation_declare(user=seat.user, days=2)
        notice = Notice.objects.filter(kind=kind).first()
    elif kind == "digest":
        notice = Notice.objects.create(
            key="digest-test", kind="digest", user=seat.user, due_at=START,
            data={"games": [game.pk]},
        )  # fmt: skip
    else:
        notice = Notice.objects.get(kind="turn", seat=seat)
    me = state.seat_index(notice.seat.engine_name) if notice.seat else None
    original = build_email(notice, "x@example.com")
    others = [i for i in range(3) if i != me]
    state.hands[others[0]][0], state.pile[0] = state.pile[0], state.hands[others[0]][0]
    state.roles[others[0]], state.roles[others[1]] = state.roles[others[1]], state.roles[others[0]]
    state.pile.reverse()
    state.set_aside.reverse()
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())
    notice = Notice.objects.get(pk=notice.pk)
    twin = build_email(notice, "x@example.com")
    texts = lambda m: (m.subject, m.body, m.alternatives, m.extra_headers, m.inline_images)  # noqa: E731
    assert texts(twin) == texts(original)
    assert state.config.round_seeds[0] not in original.body
