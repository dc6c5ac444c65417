"""Display names cannot pose as another player's: invisible and bidirectional control characters
are refused, names are NFKC-normalised, and look-alikes (TR39 skeleton) count as taken."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from accounts import names
from accounts import services as accounts
from tests.players import PASSWORD, create_player

pytestmark = pytest.mark.django_db
User = get_user_model()

INVISIBLE = ["A\u200bnn", "Ann\u200b", "\u2060", "\u202eAnn", "An\u2066n", "Ann\x07", "A\u00adnn"]
LOOK_ALIKES = ["\u0410nn", "\u0391nn", "A\u0578\u0578", "ANN", "\uff21nn", "Ann\u200a"]


def sign_up(client, display_name, email="new@example.com"):
    return client.post(
        reverse("account_signup"),
        {
            "display_name": display_name,
            "email": email,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


@pytest.mark.parametrize("name", INVISIBLE)
def test_invisible_and_control_characters_are_refused_at_sign_up(client, name):
    response = sign_up(client, name)
    assert response.status_code == 200  # the form again, with the error
    assert "invisible or control characters" in response.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_look_alike_of_an_existing_name_is_taken(client, name):
    create_player("ann")
    response = sign_up(client, name)
    assert "looks too much like one that is" in response.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()


def test_the_profile_and_the_service_apply_the_same_rules():
    create_player("ann")
    bob = create_player("bob")
    for name in [*INVISIBLE, *LOOK_ALIKES]:
        with pytest.raises(ValidationError):
            accounts.profile_update(user=bob, display_name=name)
    bob.refresh_from_db()
    assert bob.display_name == "Bob"
    # Full-width letters are normalised (NFKC) and saved as plain ones.
    accounts.profile_update(user=bob, display_name="\uff22\uff4f\uff42 the Dwarf")
    bob.refresh_from_db()
    assert bob.display_name == "Bob the Dwarf"


def test_names_in_other_scripts_are_welcome():
    ann = create_player("ann")
    for name in ["Ганна", "Ștefan", "Čestmír", "Łucja"]:
        accounts.profile_update(user=ann, display_name=name)
        ann.refresh_from_db()
        assert ann.display_name == name


def test_the_database_refuses_a_look_alike_written_past_the_services():
    create_player("ann")
    with pytest.raises(IntegrityError), transaction.atomic():
        create_player("mallory", display_name="\u0410nn")


def test_the_admin_form_refuses_a_look_alike(client):
    create_player("ann")
    bob = create_player("bob")
    staff = create_player("sam", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[bob.pk])
    page = client.get(url)
    assert page.status_code == 200
    data = {
        "username": "bob",
        "email": "bob@example.com",
        "display_name": "\u0410nn",
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "time_zone": "UTC",
        "email_turns": "on",
    }
    response = client.post(url, data)
    assert response.status_code == 200
    assert "looks too much like one that is" in response.content.decode()
    bob.refresh_from_db()
    assert bob.display_name == "Bob"


def test_skeleton_matches_tr39_examples():
    assert names.skeleton("\u0410nn") == names.skeleton("ann")
    assert names.skeleton("paypal") == names.skeleton(
        "\U0001d52d\U0001d4b6\u1eff\U0001d561\U0001d552\u2113"
    )
    assert names.skeleton("Ann") != names.skeleton("Anna")


# -- Issue 23: spaces and punctuation do not tell names apart; the site's own words are kept ---

PUNCTUATED = ["A nn", "Ann.", "A.n.n", "A-nn", "_Ann_", "Ann!", "Ann ♥", "“Ann”", "A n n"]


@pytest.mark.parametrize("name", PUNCTUATED)
def test_a_name_differing_only_by_spaces_or_punctuation_is_taken(client, name):
    create_player("ann")
    response = sign_up(client, name)
    assert "looks too much like one that is" in response.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()


def test_the_database_refuses_a_punctuated_look_alike_written_past_the_services():
    create_player("ann")
    with pytest.raises(IntegrityError), transaction.atomic():
        create_player("mallory", display_name="A.nn")


RESERVED = [
    "deleted player",
    "Deleted Player",
    "Deleted.Player",
    "deletedplayer",
    "Deleted player 2",
    "smazaný hráč",  # Czech, as the site writes it
    "zmazaný hráč",  # Slovak
    "видалений гравець",  # Ukrainian
    "jucător șters",  # Romanian
    "Admin",
    "Ann the admin",
    "Admin1",
    "ADMINISTRATOR",
    "Moderator",
    "Mod.erator",
    "модератор",
    "správce",
    "System",
    "B.o.t",
    "Bot2",
]


@pytest.mark.parametrize("name", RESERVED)
def test_the_sites_own_words_are_refused(client, name):
    response = sign_up(client, name)
    text = response.content.decode()
    assert "is kept for the site" in text or "kept for the site's bots" in text
    assert not User.objects.filter(email="new@example.com").exists()


@pytest.mark.parametrize(
    "name", ["Badminton", "Robot", "Systematic Sam", "Deleted", "Player One", "Ann 2", "R2-D2"]
)
def test_names_merely_containing_those_letters_are_welcome(client, name):
    create_player("ann")
    response = sign_up(client, name)
    assert response.status_code == 302, response.content.decode()
    assert User.objects.get(email="new@example.com").display_name == name


def test_the_refusal_names_the_word_in_the_players_language(client):
    response = sign_up(client, "Smazaný.Hráč")
    assert "“smazaný hráč” is kept for the site itself" in response.content.decode()


def test_a_name_needs_a_letter_or_a_digit(client):
    response = sign_up(client, "!!! ...")
    assert "at least one letter or digit" in response.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()


def test_skeleton_ignores_spaces_punctuation_and_symbols():
    assert names.skeleton("A nn") == names.skeleton("Ann.") == names.skeleton("ann") == "ann"
    assert names.skeleton("Ann 2") == names.skeleton("Ann2") != names.skeleton("Ann")
    assert names.skeleton("Ánn") != names.skeleton("Ann")  # a mark is visible


# -- The migration: existing keys are recomputed, and look-alike pairs do not stop it ---------


def _migrate(target):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    targets = executor.loader.graph.leaf_nodes() if target is None else [target]
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def latest_schema_after():
    """The test moves the schema back and forth; later tests need today's (every leaf)."""
    yield
    _migrate(None)


@pytest.mark.django_db(transaction=True)
def test_the_migration_recomputes_keys_and_grandfathers_later_look_alikes(
    client, latest_schema_after
):
    from datetime import UTC, datetime

    before = ("accounts", "0004_reminder_hours")
    after = ("accounts", "0005_display_name_key_ignores_punctuation")
    old_apps = _migrate(before)
    OldUser = old_apps.get_model("accounts", "User")
    rows = [  # (username, display name, the key the old rule gave, joined on)
        ("ann2", "A nn", "a nn", 2),
        ("ann", "Ann", "ann", 1),
        ("ann3", "Ann.", "ann.", 3),
        ("bob", "Bob the Dwarf", "bob the dwarf", 4),
    ]
    for username, display_name, key, day in rows:
        OldUser.objects.create(
            username=username,
            email=f"{username}@example.com",
            display_name=display_name,
            display_name_key=key,
            date_joined=datetime(2026, 1, day, tzinfo=UTC),
        )
    NewUser = _migrate(after).get_model("accounts", "User")
    keys = dict(NewUser.objects.values_list("username", "display_name_key"))
    # The first to take the name keeps the key; the later look-alikes keep their names, unkeyed.
    assert keys == {"ann": "ann", "ann2": None, "ann3": None, "bob": "bobthedwarf"}
    assert NewUser.objects.get(username="ann3").display_name == "Ann."
    _migrate(None)  # today's schema, for today's code below

    # A grandfathered player goes on as before: password, profile, login...
    late = User.objects.get(username="ann3")
    late.set_password(PASSWORD)
    late.save()
    EmailAddress.objects.create(user=late, email=late.email, verified=True, primary=True)
    accounts.profile_update(user=late, display_name="Ann.", language="cs")
    response = client.post(reverse("account_login"), {"login": late.email, "password": PASSWORD})
    assert response.status_code == 302
    page = client.post(
        reverse("profile"), {"display_name": "Ann.", "language": "sk", "time_zone": "UTC"}
    )
    assert page.status_code == 302
    late.refresh_from_db()
    assert (late.display_name, late.language, late.display_name_key) == ("Ann.", "sk", None)
    # ...but a change of name meets today's rules, and a new player cannot copy theirs.
    with pytest.raises(ValidationError):
        accounts.profile_update(user=late, display_name="A.n.n.")
    accounts.profile_update(user=late, display_name="Annabel")
    late.refresh_from_db()
    assert late.display_name_key == "annabel"
    assert "looks too much like" in sign_up(Client(), "Ann!").content.decode()
