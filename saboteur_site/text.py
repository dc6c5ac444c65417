"""Rules for short user texts that travel beyond the page (email subjects, headers, logs)."""

from __future__ import annotations

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
