"""Display names cannot pose as another player's: invisible and bidirectional control characters
are refused, names are NFKC-normalised, and look-alikes (TR39 skeleton) count as taken."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
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
