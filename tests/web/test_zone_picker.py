"""Time-zone pickers (issue 36, point 11): grouped by region, each zone as its city and current
offset, searchable (static/js/zones.js, tested in a browser in tests/e2e/test_zone_picker.py),
the browser's zone offered to a player who never chose one; the stored values stay IANA names."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.zone_choices import offset_text, zone_choices
from accounts.zones import zone_names
from games.models import Game
from tests.players import create_player

WINTER = datetime(2026, 12, 4, 9, tzinfo=UTC)
SUMMER = datetime(2026, 7, 4, 9, tzinfo=UTC)


def options(choices) -> list[tuple[str, str, str | None]]:
    """(value, label, group) of every option."""
    found = []
    for value, label in choices:
        if isinstance(label, list | tuple):
            found += [(v, text, value) for v, text in label]
        else:
            found.append((value, label, None))
    return found


def test_zones_are_grouped_by_region_with_city_and_offset():
    with translation.override("en"):
        choices = zone_choices(WINTER)
        summer = dict((v, t) for v, t, _g in options(zone_choices(SUMMER)))
    listed = options(choices)
    by_value = {value: (label, group) for value, label, group in listed}
    assert listed[0] == ("UTC", "UTC", None)
    assert by_value["Europe/Prague"] == ("Prague (UTC+1)", "Europe")
    assert summer["Europe/Prague"] == "Prague (UTC+2)"
    assert by_value["Asia/Kolkata"] == ("Kolkata (UTC+5:30)", "Asia")
    assert by_value["America/Argentina/Buenos_Aires"] == (
        "Buenos Aires, Argentina (UTC-3)", "Americas"
    )  # fmt: skip
    assert by_value["US/Eastern"] == ("US/Eastern (UTC-5)", "Other zones")
    groups = [value for value, label in choices[1:]]
    assert groups[-1] == "Other zones" and groups[:-1] == sorted(groups[:-1])
    assert {"Europe", "Asia", "Africa", "Pacific Ocean"} <= set(groups)
    # Every zone the profile accepts, once, under its IANA name: nothing stored is lost.
    values = [value for value, _label, _group in listed]
    assert sorted(values) == sorted(zone_names()) and len(values) == len(set(values))


@pytest.mark.parametrize(
    ("minutes", "text"), [(0, "UTC"), (60, "UTC+1"), (-180, "UTC-3"), (345, "UTC+5:45")]
)
def test_offsets_are_written_as_typed(minutes, text):
    from datetime import timedelta

    assert offset_text(timedelta(minutes=minutes)) == text


def test_region_names_are_translated():
    for language in ("cs", "sk", "uk", "ro"):
        with translation.override(language):
            groups = [value for value, label in zone_choices(WINTER)[1:]]
        assert "Europe" not in groups and "Other zones" not in groups, language
        assert len(groups) == 11, language


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def select_html(page: str, name: str) -> str:
    found = re.search(rf'<select name="{name}".*?</select>', page, flags=re.DOTALL)
    assert found, name
    return found.group()


@pytest.mark.django_db
def test_the_profile_offers_the_grouped_searchable_picker_and_the_browsers_zone():
    ann = create_player("ann")
    page = client_for(ann).get(reverse("profile")).content.decode()
    select = select_html(page, "time_zone")
    assert '<optgroup label="Europe">' in select
    assert re.search(r'<option value="Europe/Prague">Prague \(UTC\+[12]\)</option>', select)
    assert '<option value="UTC" selected>UTC</option>' in select
    assert "data-zone-picker" in select and 'data-browser-default="UTC"' in select
    assert re.search(r'<script src="/static/js/zones\.js" nonce="[^"]+" defer>', page)
    # A player who chose a zone keeps it: no browser zone is offered over it.
    bea = create_player("bea", time_zone="Europe/Lisbon")
    select = select_html(client_for(bea).get(reverse("profile")).content.decode(), "time_zone")
    assert "data-browser-default" not in select
    assert '<option value="Europe/Lisbon" selected>Lisbon (UTC' in select


@pytest.mark.django_db
def test_the_profile_stores_the_iana_name():
    ann = create_player("ann")
    client = client_for(ann)
    form = client.get(reverse("profile")).context["form"]
    fields = {k: v for k, v in form.initial.items() if v not in (None, False)}
    response = client.post(reverse("profile"), {**fields, "time_zone": "Europe/Prague"})
    assert response.status_code == 302
    ann.refresh_from_db()
    assert ann.time_zone == "Europe/Prague"
    response = client.post(reverse("profile"), {**fields, "time_zone": "Prague (UTC+1)"})
    assert response.status_code == 422  # a label is no zone


@pytest.mark.django_db
def test_the_game_creation_form_has_the_same_picker_after_my_time_zone():
    ann = create_player("ann")
    client = client_for(ann)
    page = client.get(reverse("lobby")).content.decode()
    select = select_html(page, "clock_zone")
    first = re.search(r"<option[^>]*>([^<]*)</option>", select)
    assert first.group(0).startswith('<option value=""') and first.group(1) == "My time zone"
    assert '<optgroup label="Asia">' in select and "Kolkata (UTC+5:30)" in select
    assert "data-zone-picker" in select and "data-browser-default" not in select
    assert re.search(r'<script src="/static/js/zones\.js" nonce="[^"]+" defer>', page)
    fields = {"name": "Far mine", "ruleset": "base", "visibility": "open", "max_seats": "4"}
    fields |= {"turn_limit": "3600", "weekends_off": "on", "clock_zone": "Asia/Kolkata"}
    assert client.post(reverse("game_create"), fields).status_code == 302
    assert Game.objects.get(name="Far mine").clock_zone == "Asia/Kolkata"
