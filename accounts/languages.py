"""Each language by its own name, as a reader of that language looks for it in a list.

Not translated on purpose: a Czech reader on the English site looks for "Čeština". Django's
``name_local`` says "česky" and "Slovensky" (adverbs), which is why the names are ours.
"""

from django.conf import settings

NATIVE_NAMES = {
    "en": "English",
    "cs": "Čeština",
    "sk": "Slovenčina",
    "uk": "Українська",
    "ro": "Română",
}


def native_name(code: str) -> str:
    return NATIVE_NAMES.get(code, code)


def native_choices() -> list[tuple[str, str]]:
    """(code, own name) for every language of the site, in the settings' order."""
    return [(code, native_name(code)) for code, _name in settings.LANGUAGES]
