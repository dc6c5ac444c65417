"""The time-zone pickers' choices (the profile's zone, a new game's clock): every IANA zone
this machine knows, grouped by region, each as its city and current offset ("Prague (UTC+1)").

The stored value stays the IANA name; only what the player reads changes. Region names are
translated; city names are the IANA ones, made readable ("Buenos Aires, Argentina"). Zones
outside the regions (legacy aliases such as "US/Eastern", "Etc/GMT+5") stay selectable, under
"Other zones", so a value stored long ago is still in the list.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from .zones import zone, zone_names

REGIONS = {
    "Africa": _("Africa"),
    "America": _("Americas"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("Arctic"),
    "Asia": _("Asia"),
    "Atlantic": _("Atlantic Ocean"),
    "Australia": _("Australia"),
    "Europe": _("Europe"),
    "Indian": _("Indian Ocean"),
    "Pacific": _("Pacific Ocean"),
}
OTHER = _("Other zones")

_cache: dict[tuple[str, str], list] = {}


def offset_text(offset: timedelta) -> str:
    """ "UTC", "UTC+1", "UTC-3", "UTC+5:30" (ASCII, so that typing "utc+1" finds it)."""
    minutes = round(offset.total_seconds() / 60)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def city(name: str) -> str:
    """ "Europe/Prague" -> "Prague"; "America/Argentina/Buenos_Aires" -> "Buenos Aires,
    Argentina"."""
    parts = [part.replace("_", " ") for part in name.split("/")[1:]]
    return ", ".join(reversed(parts))


def label(name: str, at: datetime) -> str:
    offset = offset_text(zone(name).utcoffset(at) or timedelta(0))
    if name == "UTC":
        return "UTC"
    region = name.split("/")[0]
    shown = city(name) if region in REGIONS and "/" in name else name
    return f"{shown} ({offset})"


def zone_choices(now: datetime | None = None) -> list:
    """Choices for a ``ChoiceField`` with optgroups: UTC first, then each region (in the
    language's order of its name) with its zones by label, then the other zones. Built once
    per language and hour (offsets change at daylight saving time, on the hour)."""
    at = (now or timezone.now()).astimezone(UTC)
    key = (get_language() or "", at.strftime("%Y-%m-%dT%H"))
    if key not in _cache:
        if len(_cache) > 50:
            _cache.clear()
        _cache[key] = _built(at.replace(minute=0, second=0, microsecond=0))
    return _cache[key]


def _built(at: datetime) -> list:
    groups: dict[str, list[tuple[str, str]]] = {}
    others = []
    for name in zone_names():
        if name == "UTC":
            continue
        region = name.split("/")[0]
        if region in REGIONS and "/" in name:
            groups.setdefault(region, []).append((name, label(name, at)))
        else:
            others.append((name, label(name, at)))
    regions = sorted(groups, key=lambda region: str(REGIONS[region]).casefold())
    choices: list = [("UTC", "UTC")]
    for region in regions:
        choices.append((str(REGIONS[region]), sorted(groups[region], key=_by_label)))
    choices.append((str(OTHER), sorted(others, key=_by_label)))
    return choices


def _by_label(choice: tuple[str, str]) -> str:
    return choice[1].casefold()


def offsets_key(now: datetime | None = None) -> str:
    """What the rendered choices depend on besides the language: the hour (for caches of a
    rendered form)."""
    return (now or timezone.now()).astimezone(UTC).strftime("%Y%m%d%H")


def picker_attrs(*, browser_default: str | None = None) -> dict:
    """The select's attributes for static/js/zones.js, which adds a search box above it (the
    select works without it). ``browser_default``: the field's default value, while the field
    still holds it; the script then selects the browser's own zone, and says so."""
    attrs = {
        "data-zone-picker": "",
        "data-search-label": _("Find a time zone"),
        "data-search-placeholder": _("City, region or UTC offset"),
        "data-found": _("Time zones found: %(count)s"),
        "data-none": _("No time zone matches. Try a city, a region or an offset such as UTC+1."),
    }
    if browser_default is not None:
        attrs["data-browser-default"] = browser_default
        attrs["data-browser-chosen"] = _(
            "Your browser's time zone is selected: %(zone)s. Save to keep it."
        )
    return attrs
