"""Rules for short user texts that travel beyond the page (email subjects, headers, logs), and
for numbers read from requests."""

from __future__ import annotations

import re
import unicodedata

# Control characters (CR, LF, tab, NUL...), and line and paragraph separators.
LINE_BREAKING = {"Cc", "Zl", "Zp"}


def has_line_breaks(text: str) -> bool:
    """True when ``text`` holds a control character or a line/paragraph separator."""
    return any(unicodedata.category(c) in LINE_BREAKING for c in text)


def one_line(text: str) -> str:
    """``text`` as one line: control characters and separators become spaces, runs of white
    space one space. For email subjects built from any stored data (a header with a line
    break is refused by the mail library, and the email would never leave)."""
    cleaned = "".join(" " if unicodedata.category(c) in LINE_BREAKING else c for c in text)
    return " ".join(cleaned.split())


# ASCII digits only, an optional minus sign, and at most 18 digits (it fits a 64-bit column).
_ASCII_INTEGER = re.compile(r"-?[0-9]{1,18}")


def ascii_int(text: str | None) -> int | None:
    """A whole number from a request (a path, a query or a form), or None when ``text`` is not
    one written in ASCII digits.

    Neither ``str.isdigit()`` (true for "²" and "①", which ``int()`` refuses) nor ``int()``
    alone (it takes other scripts' digits, spaces, underscores, "+" and numbers no database
    column holds) decides what a number is here.
    """
    if text is None or not _ASCII_INTEGER.fullmatch(text):
        return None
    return int(text)
