"""Translations are complete, not fuzzy, compiled, and cover every string of the source."""

import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]
SOURCES = ("accounts", "games", "saboteur_site", "templates", "manage.py")


def catalogue(code):
    return ROOT / "locale" / code / "LC_MESSAGES"


def _key(entry):
    return (entry.msgctxt, entry.msgid, entry.msgid_plural)


def _value(entry):
    if entry.msgid_plural:
        return tuple(entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural))
    return entry.msgstr


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy(code):
    po = polib.pofile(str(catalogue(code) / "django.po"))
    untranslated = [e.msgid for e in po.untranslated_entries()]
    fuzzy = [e.msgid for e in po.fuzzy_entries()]
    assert untranslated == []
    assert fuzzy == []
    assert len(po.translated_entries()) > 100


@pytest.mark.parametrize("code", LANGUAGES)
def test_compiled_catalogue_matches_the_source(code):
    po = polib.pofile(str(catalogue(code) / "django.po"))
    mo = polib.mofile(str(catalogue(code) / "django.mo"))
    wanted = {_key(e): _value(e) for e in po.translated_entries()}
    compiled = {_key(e): _value(e) for e in mo if e.msgid}
    assert compiled == wanted, "run: python manage.py compilemessages"


@pytest.mark.skipif(not shutil.which("xgettext"), reason="GNU gettext is needed (.ci/run has it)")
def test_every_string_in_the_code_is_in_each_catalogue(tmp_path):
    """Extract the messages afresh from a copy of the source: nothing may be missing."""
    for name in SOURCES:
        source = ROOT / name
        target = tmp_path / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)
    shutil.copytree(ROOT / "locale", tmp_path / "locale")
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--no-obsolete", "--no-location",
         *[f"-l{code}" for code in LANGUAGES]],
        cwd=tmp_path, check=True, capture_output=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "DJANGO_ENV": "development", "HOME": str(tmp_path)},
    )  # fmt: skip
    for code in LANGUAGES:
        fresh = polib.pofile(str(tmp_path / "locale" / code / "LC_MESSAGES" / "django.po"))
        missing = [e.msgid for e in fresh if not e.obsolete and not e.translated()]
        assert missing == [], f"{code}: run makemessages and translate these"
