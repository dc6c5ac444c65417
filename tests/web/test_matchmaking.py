"""Play now (issue 52): a player's wish seats them at a forming table that fits, or opens one;
the table starts when full or at its start time (bots only if everyone agreed), is left until
then, keeps apart players kept apart by a block, never seats a banned player, and tells everyone
when it starts or waits longer. Through the service and the pages, on PostgreSQL."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from accounts import relations
from games.models import FormingTable, Game, Notice, Seat, TableWish
from games.moderation import tables
from games.outbox import sending
from games.play import lobby, matchmaking
from games.play.errors import ServiceError
from games.play.matchmaking import Wish, seek
from games.play.sweep import sweep
from tests.players import create_player
from tests.threads import at_once


def wish(**fields) -> Wish:
    values = {
        "rulesets": ("base",),
        "min_players": 3,
        "max_players": 4,
        "pace": "2d",
        "languages": ("en",),
    }
    values.update(fields)
    return Wish(**values)


def players(count: int, prefix: str = "p"):
    return [create_player(f"{prefix}{n}") for n in range(count)]


@pytest.mark.django_db
def test_the_first_opens_a_table_the_next_sit_at_it_and_it_starts_when_full():
    ann, bob, cid, dan = players(4)
    now = timezone.now()
    first = seek(user=ann, wish=wish(), now=now)
    table = first.table
    assert table.state == FormingTable.State.FORMING and table.start_at == now + timedelta(hours=24)
    assert table.game.status == Game.Status.LOBBY and table.game.max_seats == 4
    assert table.game.visibility == Game.Visibility.INVITE  # not joined from the lobby
    assert seek(user=bob, wish=wish(), now=now).table == table
    assert seek(user=cid, wish=wish(max_players=6, min_players=3), now=now).table == table
    assert not TableWish.objects.filter(table=table, waiting=False).exists()
    seek(user=dan, wish=wish(), now=now)  # the fourth seat: it starts at once
    table.refresh_from_db()
    game = Game.objects.get(pk=table.game_id)
    assert table.state == FormingTable.State.STARTED and game.status == Game.Status.RUNNING
    assert not TableWish.objects.filter(table=table, waiting=True).exists()
    # Everyone is told once: "started", or "your turn" for the first to move.
    told = Notice.objects.filter(game=game, kind__in=[Notice.Kind.STARTED, Notice.Kind.TURN])
    assert sorted(told.values_list("user_id", flat=True)) == sorted(
        u.pk for u in (ann, bob, cid, dan)
    )


@pytest.mark.django_db
def test_a_table_that_does_not_fit_is_not_taken():
    ann, bob, cid, dan, eve = players(5)
    table = seek(user=ann, wish=wish()).table
    assert seek(user=bob, wish=wish(pace="1d")).table != table  # another pace
    assert seek(user=cid, wish=wish(languages=("cs",))).table != table  # another language
    assert seek(user=dan, wish=wish(min_players=5, max_players=8)).table != table  # bigger
    assert seek(user=eve, wish=wish(rulesets=("saboteur2",))).table != table
    assert table.wishes.count() == 1


@pytest.mark.django_db
def test_players_kept_apart_by_a_block_are_never_seated_together():
    ann, bob, cid = players(3)
    relations.block(bob, ann)  # either way round
    table = seek(user=ann, wish=wish()).table
    assert seek(user=bob, wish=wish()).table != table
    assert seek(user=cid, wish=wish()).table == table  # the fullest that fits: ann's


@pytest.mark.django_db
def test_a_banned_player_is_never_seated_and_one_banned_meanwhile_is_left_out_at_the_start():
    ann, bob, cid, dan = players(4)
    dan.is_active = False
    dan.save()
    with pytest.raises(ServiceError):
        seek(user=dan, wish=wish())
    assert not TableWish.objects.filter(user=dan).exists()
    now = timezone.now()
    table = seek(user=ann, wish=wish(), now=now).table
    for player in (bob, cid):
        seek(user=player, wish=wish(), now=now)
    type(cid).objects.filter(pk=cid.pk).update(is_active=False)  # the moderators' ban
    matchmaking.forming_due(now + timedelta(hours=24))
    table.refresh_from_db()
    assert table.state == FormingTable.State.FORMING and table.postponed == 1  # 2 of 3
    assert not Seat.objects.filter(game=table.game, user=cid).exists()


@pytest.mark.django_db
def test_one_waiting_seat_per_kind_and_a_limit_on_forming_seats():
    ann = create_player("ann")
    seek(user=ann, wish=wish())
    with pytest.raises(ServiceError) as refused:
        seek(user=ann, wish=wish())
    assert refused.value.code == "already-waiting"
    seek(user=ann, wish=wish(pace="1d"))
    seek(user=ann, wish=wish(pace="3d"))
    with pytest.raises(ServiceError) as refused:
        seek(user=ann, wish=wish(pace="7d"))
    assert refused.value.code == "too-many-seats"
    assert TableWish.objects.filter(user=ann, waiting=True).count() == matchmaking.MAX_FORMING_SEATS
    # The database itself refuses a second waiting seat of a kind.
    row = TableWish.objects.filter(user=ann).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        TableWish.objects.create(
            user=ann, table=row.table, kind=row.kind, min_players=3, max_players=4
        )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"min_players": 2}, "is for 3 to 10 players"),  # below the base game's minimum
        ({"max_players": 11}, "is for 3 to 10 players"),
        ({"min_players": 5, "max_players": 4}, "cannot be more"),
        ({"languages": ("xx",)}, "languages"),
        ({"languages": ()}, "languages"),
        ({"pace": "5m"}, "pace"),
        ({"rulesets": ("chess",)}, "Unknown rule set"),
        ({"rulesets": ()}, "Unknown rule set"),
        ({"variants": ("rivalry",), "rulesets": ("saboteur2",), "min_players": 3}, "base game"),
        ({"variants": ("no-such",)}, "base game"),
        ({"min_reliability": 0}, "percentage"),
        ({"min_reliability": 101}, "percentage"),
    ],
)
def test_an_impossible_wish_is_refused_clearly_and_changes_nothing(fields, says):
    ann = create_player("ann")
    with pytest.raises(ServiceError) as refused:
        seek(user=ann, wish=wish(**fields))
    assert says in refused.value.message
    assert not FormingTable.objects.exists() and not Game.objects.exists()


@pytest.mark.django_db
def test_leaving_until_the_start_and_the_last_to_leave_closes_the_table():
    ann, bob = players(2)
    table = seek(user=ann, wish=wish()).table
    seek(user=bob, wish=wish())
    matchmaking.leave(user=ann, table_id=table.pk)  # the table's opener
    game = Game.objects.get(pk=table.game_id)
    assert game.creator == bob and not game.seats.filter(user=ann).exists()
    with pytest.raises(ServiceError):
        matchmaking.leave(user=ann, table_id=table.pk)  # twice: nothing more
    seek(user=ann, wish=wish())  # may ask again: back at the same table
    matchmaking.leave(user=ann, table_id=table.pk)
    matchmaking.leave(user=bob, table_id=table.pk)
    table.refresh_from_db()
    assert table.state == FormingTable.State.CLOSED
    assert Game.objects.get(pk=table.game_id).status == Game.Status.ABORTED


@pytest.mark.django_db
def test_the_lobby_does_not_seat_start_or_unseat_at_a_forming_table():
    ann, bob, cid = players(3)
    table = seek(user=ann, wish=wish()).table
    seek(user=bob, wish=wish())
    seek(user=cid, wish=wish())
    for call in (
        lambda: lobby.seat_join(game_id=table.game_id, user=create_player("eve")),
        lambda: lobby.seat_leave(game_id=table.game_id, user=bob),
        lambda: lobby.game_start(game_id=table.game_id, user=ann),
    ):
        with pytest.raises(ServiceError) as refused:
            call()
        assert refused.value.code == "play-now"
    assert Game.objects.get(pk=table.game_id).seats.count() == 3


@pytest.mark.django_db
def test_at_the_start_time_enough_players_start_without_waiting_for_the_rest():
    ann, bob, cid = players(3)
    now = timezone.now()
    table = seek(user=ann, wish=wish(max_players=6), now=now).table
    seek(user=bob, wish=wish(max_players=6), now=now)
    seek(user=cid, wish=wish(max_players=6), now=now)
    assert matchmaking.forming_due(now + timedelta(hours=23)) == 0
    assert matchmaking.forming_due(now + timedelta(hours=24)) == 1
    game = Game.objects.get(pk=table.game_id)
    assert game.status == Game.Status.RUNNING and game.seats.count() == 3


@pytest.mark.django_db
def test_too_few_players_at_the_start_time_are_told_of_the_new_time_in_their_language():
    ann = create_player("ann", language="cs")
    bob = create_player("bob")
    now = timezone.now()
    table = seek(user=ann, wish=wish(languages=("cs", "en")), now=now).table
    seek(user=bob, wish=wish(languages=("en", "cs")), now=now)
    sweep_at = now + timedelta(hours=24, minutes=1)
    matchmaking.forming_due(sweep_at)
    table.refresh_from_db()
    assert table.state == FormingTable.State.FORMING and table.postponed == 1
    assert table.start_at == now + timedelta(hours=48)
    notices = Notice.objects.filter(kind=Notice.Kind.FORMING, game=table.game)
    assert sorted(notices.values_list("user_id", flat=True)) == sorted([ann.pk, bob.pk])
    mail.outbox.clear()
    for notice in notices:
        sending.send(notice.pk, now=sweep_at)
    by_to = {message.to[0]: message for message in mail.outbox}
    assert "players" in by_to[bob.email].subject and "2 players of the 3" in by_to[bob.email].body
    assert "čeká na hráče déle" in by_to[ann.email].subject  # in Czech, ann's language
    # Nobody is told twice by the next sweep of the same minute.
    matchmaking.forming_due(sweep_at)
    assert notices.count() == 2


@pytest.mark.django_db
def test_bots_fill_the_empty_seats_only_if_everyone_agreed():
    ann, bob, cid, dan = players(4)
    now = timezone.now()
    agreed = seek(user=ann, wish=wish(bots_ok=True, pace="1d"), now=now).table
    seek(user=bob, wish=wish(bots_ok=True, pace="1d"), now=now)
    one_said_no = seek(user=cid, wish=wish(bots_ok=True, pace="3d"), now=now).table
    seek(user=dan, wish=wish(bots_ok=False, pace="3d"), now=now)
    matchmaking.forming_due(now + timedelta(hours=24))
    game = Game.objects.get(pk=agreed.game_id)
    assert game.status == Game.Status.RUNNING
    assert game.seats.filter(bot__isnull=False).count() == 2 and game.seats.count() == 4
    other = Game.objects.get(pk=one_said_no.game_id)
    assert other.status == Game.Status.LOBBY and not other.seats.filter(bot__isnull=False).exists()


@pytest.mark.django_db
def test_a_table_short_of_players_for_a_week_closes_and_says_so():
    ann = create_player("ann")
    now = timezone.now()
    table = seek(user=ann, wish=wish(), now=now).table
    for day in range(1, matchmaking.MAX_POSTPONED + 2):
        matchmaking.forming_due(now + timedelta(days=day))
    table.refresh_from_db()
    assert table.state == FormingTable.State.CLOSED
    last = Notice.objects.filter(kind=Notice.Kind.FORMING, user=ann).order_by("-pk").first()
    assert last.data["closed"] is True
    assert not TableWish.objects.filter(user=ann, waiting=True).exists()


@pytest.mark.django_db
def test_the_minute_sweep_starts_the_tables_whose_time_has_come():
    ann, bob, cid = players(3)
    past = timezone.now() - timedelta(hours=25)
    table = seek(user=ann, wish=wish(), now=past).table
    seek(user=bob, wish=wish(), now=past)
    seek(user=cid, wish=wish(), now=past)
    report = sweep()
    assert report["tables"] == 1 and "failed" not in report
    assert Game.objects.get(pk=table.game_id).status == Game.Status.RUNNING


@pytest.mark.django_db
def test_cancelling_a_table_tells_its_players():
    ann, bob = players(2)
    table = seek(user=ann, wish=wish()).table
    seek(user=bob, wish=wish())
    assert matchmaking.cancel(table_id=table.pk) is True
    assert matchmaking.cancel(table_id=table.pk) is False
    assert Notice.objects.filter(kind=Notice.Kind.FORMING, data__closed=True).count() == 2


@pytest.mark.django_db(transaction=True)
def test_many_seekers_at_once_never_overfill_a_table_nor_sit_twice():
    """Twelve players ask at the same moment, each twice (a double click): tables of 4."""
    people = players(12)
    refusals = []

    def ask(user):
        try:
            seek(user=user, wish=wish())
        except ServiceError as refused:
            refusals.append(refused.code)

    at_once([lambda user=user: ask(user) for user in people * 2])
    # A second ask is refused while the first seat waits; once that table has started, it is
    # a new wish (the first game is no forming table any more).
    assert set(refusals) <= {"already-waiting"}
    assert TableWish.objects.count() + len(refusals) == 24
    for table in FormingTable.objects.all():
        assert table.game.seats.count() <= 4
        assert len(set(table.game.seats.values_list("user", flat=True))) == table.game.seats.count()
    for user in people:
        assert TableWish.objects.filter(user=user, waiting=True).count() <= 1
    # The kind's lock: no half-empty table opened beside another (at most one forming).
    assert FormingTable.objects.filter(state=FormingTable.State.FORMING).count() <= 1
    assert FormingTable.objects.filter(state=FormingTable.State.STARTED).count() >= 3


# The pages.


@pytest.mark.django_db
def test_the_play_now_page_seats_and_shows_where_and_what_the_table_waits_for(client):
    ann = create_player("ann")
    client.force_login(ann)
    page = client.get(reverse("play_now"))
    assert page.status_code == 200 and b'data-testid="play-now-form"' in page.content
    answer = client.post(
        reverse("play_now"),
        {"rulesets": ["base"], "min_players": "3", "max_players": "5", "pace": "2d",
         "languages": ["en"], "min_reliability": ""},
    )  # fmt: skip
    assert answer.status_code == 302 and answer["Location"] == reverse("play_now")
    page = client.get(reverse("play_now"))
    text = page.content.decode()
    assert "1 of 5 seats taken" in text and "Waits for 2 more players to start at" in text
    table = FormingTable.objects.get()
    answer = client.post(reverse("play_leave", args=[table.pk]))
    assert answer.status_code == 302
    assert not TableWish.objects.filter(waiting=True).exists()


@pytest.mark.django_db
def test_a_forged_or_impossible_wish_on_the_page_says_why_and_changes_nothing(client):
    client.force_login(create_player("ann"))
    for fields in (
        {"rulesets": ["base"], "min_players": "2", "max_players": "5", "pace": "2d",
         "languages": ["en"]},
        {"rulesets": ["base"], "min_players": "3", "max_players": "5", "pace": "2d",
         "languages": ["klingon"]},
        {"rulesets": ["base"], "min_players": "3" * 500, "max_players": "5", "pace": "2d",
         "languages": ["en"]},
        {"rulesets": ["x" * 5000], "min_players": "3", "max_players": "5", "pace": "2d",
         "languages": ["en"]},
    ):  # fmt: skip
        answer = client.post(reverse("play_now"), fields)
        assert answer.status_code == 422
        assert b"errorlist" in answer.content
    assert not FormingTable.objects.exists()
    assert client.post(reverse("play_leave", args=[999])).status_code == 302  # a message only


@pytest.mark.django_db
def test_the_home_page_lists_the_forming_tables_apart_from_the_lobbies(
    client, django_assert_num_queries
):
    ann = create_player("ann")
    table = seek(user=ann, wish=wish()).table
    own = lobby.game_create(creator=ann, name="My own lobby", ruleset="base", max_seats=4)
    client.force_login(ann)
    client.get(reverse("home"))  # the header's counts, kept for a while
    # The page's four (tests/web/test_page_costs.py: the tables come with the other lobbies),
    # and one for who waits at them.
    with django_assert_num_queries(5):
        text = client.get(reverse("home")).content.decode()
    assert 'data-testid="forming-tables"' in text and "1 of 4 seats taken" in text
    lobbies = text.split('id="lobby-title"')[1]
    assert own.name in lobbies and table.game.name not in lobbies


@pytest.mark.django_db
def test_the_admin_lists_forming_tables_who_waits_and_closes_one_with_a_reason(client):
    ann, bob = players(2)
    table = seek(user=ann, wish=wish()).table
    seek(user=bob, wish=wish())
    client.force_login(create_player("root", is_staff=True, is_superuser=True))
    listing = client.get(reverse("admin:games_formingtable_changelist"))
    assert listing.status_code == 200 and table.game.name in listing.content.decode()
    page = client.get(reverse("admin:games_formingtable_change", args=[table.pk]))
    assert page.status_code == 200 and bob.display_name in page.content.decode()
    url = reverse("admin:games_formingtable_changelist")
    asked = client.post(url, {"action": "close", "_selected_action": [table.pk]})
    assert asked.status_code == 200 and b"moderation-reason" in asked.content
    client.post(
        url,
        {"action": "close", "_selected_action": [table.pk], "moderation-apply": "1",
         "moderation-reason": "spam table"},
    )  # fmt: skip
    table.refresh_from_db()
    assert table.state == FormingTable.State.CLOSED
    assert Notice.objects.filter(kind=Notice.Kind.FORMING, data__closed=True).count() == 2


@pytest.mark.django_db
def test_the_lobby_filters_by_rule_set_pace_size_language_and_free_seats(client):
    ann = create_player("ann", language="cs")
    bob = create_player("bob", language="en")
    four = lobby.game_create(creator=ann, name="Four base", ruleset="base", max_seats=4)
    lobby.game_create(
        creator=bob, name="Six two", ruleset="saboteur2", max_seats=6, turn_limit=timedelta(days=1)
    )
    lobby.seat_join(game_id=four.pk, user=bob)
    client.force_login(create_player("cid"))

    def shown(query):
        text = client.get(reverse("lobby"), query).content.decode()
        return {name for name in ("Four base", "Six two") if name in text}

    assert shown({}) == {"Four base", "Six two"}
    assert shown({"ruleset": "saboteur2"}) == {"Six two"}
    assert shown({"pace": "1d"}) == {"Six two"}
    assert shown({"pace": "2d"}) == {"Four base"}
    assert shown({"seats": "4"}) == {"Four base"}
    assert shown({"language": "cs"}) == {"Four base"}
    assert shown({"free": "3"}) == {"Six two"}
    assert shown({"free": "2", "ruleset": "base"}) == {"Four base"}
    # Nonsense is "any", never an error.
    assert shown({"free": "x" * 300, "pace": "never", "seats": "٣"}) == {"Four base", "Six two"}
    text = client.get(reverse("lobby")).content.decode()
    assert "waiting since just now" in text  # how long each has waited


@pytest.mark.django_db
def test_a_table_whose_players_all_went_closes_rather_than_seating_bots_alone():
    ann = create_player("ann")
    now = timezone.now()
    table = seek(user=ann, wish=wish(bots_ok=True), now=now).table
    ann.delete()  # the account deleted: its wish goes with it
    matchmaking.forming_due(now + timedelta(hours=24))
    table.refresh_from_db()
    assert table.state == FormingTable.State.CLOSED
    assert not Seat.objects.filter(game=table.game, bot__isnull=False).exists()


@pytest.mark.django_db
def test_a_table_the_moderators_stopped_frees_its_seats_and_closes_at_its_time():
    ann, bob = players(2)
    now = timezone.now()
    table = seek(user=ann, wish=wish(), now=now).table
    seek(user=bob, wish=wish(), now=now)
    tables.game_abort(game_id=table.game_id, reason="spam")  # its players are emailed
    assert Notice.objects.filter(kind=Notice.Kind.ABORTED, game=table.game).count() == 2
    again = seek(user=ann, wish=wish(), now=now)  # the same kind again: a new table
    assert again.table != table
    matchmaking.forming_due(now + timedelta(hours=24))
    table.refresh_from_db()
    assert table.state == FormingTable.State.CLOSED


@pytest.mark.django_db
def test_the_game_page_of_a_forming_table_says_when_it_starts_and_leaves_through_play_now(client):
    ann = create_player("ann")
    table = seek(user=ann, wish=wish()).table
    client.force_login(ann)
    text = client.get(reverse("game", args=[table.game_id])).content.decode()
    assert 'data-testid="forming-start"' in text and "with at least 3 players" in text
    assert reverse("play_leave", args=[table.pk]) in text
    assert reverse("start", args=[table.game_id]) not in text  # no start, invite or join here
    assert reverse("invitation_create", args=[table.game_id]) not in text


@pytest.mark.django_db
def test_the_lobby_filters_and_the_creation_form_have_ids_of_their_own(client):
    client.force_login(create_player("ann"))
    for query in ({}, {"ruleset": "base"}):
        text = client.get(reverse("lobby"), query).content.decode()
        ids = re.findall(r'\bid="([^"]+)"', text)
        assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
