"""What a reply to a game email says of its own (issue 47): the player's new text, without the
email it quotes, in whatever way their mail program quoted it.

A reply's text goes to the table's chat, and the email it answers holds the reader's secrets
(their role, hand and peeks). So this module errs on one side only: a line it cannot tell from
the quote is never posted. It reads the reply line by line and drops:

- quoted lines (``>``, at any depth; an HTML ``<blockquote>`` becomes such lines), which keeps
  the new text above a quote (top-posting), below it (bottom-posting) and between its parts;
- an attribution line ("On ... wrote:", in any of the languages below, or any line ending in
  ":" that names a sender address) when a quote follows it;
- from a header block ("From: / Sent: / To: / Subject:" in those languages, Outlook's way of
  quoting without ``>``), a separator ("-----Original Message-----", Outlook's line of
  underscores) or the first line of the site's own email (its greeting, its role or hand line,
  its footer) on: an unmarked quote runs to the end of the reply;
- the signature ("-- " and what follows, "Sent from my iPhone" and the like).

Then ``OwnText.unsure`` says why the rest must not be posted when it still holds a line of the
site's email that only a quote could hold (the role line, the hand line, a reply address): the
caller posts nothing and asks the player to write above the quote.

mail-parser-reply's tables of quote headers (``MAIL_LANGUAGES``: German, French, Spanish,
Polish, Czech and others) are used as they are; its parser is not, since it keeps only the text
above the first header it knows and lets a quote without one through whole.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from mailparser_reply.constants import MAIL_LANGUAGES

MAX_TEXT = 4000  # characters of a reply's new text that are read at all

SITE_LANGUAGES = [code for code, _name in settings.LANGUAGES]

# -- Quoted lines, attributions, header blocks, separators, signatures ---------------------------

QUOTED = re.compile(r"^\s*>")

# The verb of an attribution line ("On ... Ann wrote:") in the languages players write in.
WROTE = (
    r"wrote|writes|schrieb|a\s+écrit|escribió|ha\s+scritto|scrisse|schreef|skrev|kirjoitti|"
    r"napsal(?:a|\(a\))?|odesílatel|napísal(?:a|\(a\))?|odosielateľ|napisał(?:a|\(a\))?|"
    r"pisze|пише|написав|написала|написал|a\s+scris"
)
VERB = re.compile(rf"(?i)(?<!\w)(?:{WROTE})(?!\w)")
TIME = re.compile(r"\d{1,2}[:.]\d{2}")
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

# The fields of a quoted email's header block, as mail programs write them in each language.
HEADER_FIELDS = (
    "From|Sent|To|Subject|Date|Cc|"  # English
    "Von|Gesendet|An|Betreff|Datum|"  # German
    "De|Envoyé|À|Objet|"  # French
    "Enviado|Para|Asunto|Fecha|"  # Spanish
    "Od|Wysłane|Wysłano|Do|Temat|Data|DW|"  # Polish
    "Odesláno|Komu|Předmět|Kopie|"  # Czech
    "Odoslané|Predmet|Dátum|Kópia|"  # Slovak
    "Від|Надіслано|Кому|Тема|Дата|Копія|"  # Ukrainian
    "De la|Trimis|Către|Subiect"  # Romanian
)
HEADER_LINE = re.compile(rf"(?i)^\s*\**\s*(?:{HEADER_FIELDS})\s*\**\s*:")
FROM_LINE = re.compile(r"(?i)^\s*\**\s*(?:From|Von|De|Od|Від|De la)\s*\**\s*:")

SEPARATOR = re.compile(
    r"(?i)^\s*(?:_{20,}|-{2,}\s*(?:Original Message|Forwarded message|Ursprüngliche Nachricht|"
    r"Message d'origine|Mensaje original|Wiadomość oryginalna|Oryginalna wiadomość|"
    r"Původní zpráva|Pôvodná správa|Оригінальне повідомлення|Вихідне повідомлення|"
    r"Mesaj original|Messaggio originale)\s*-*)\s*$"
)
SIGNATURE = re.compile(r"^--\s*$")


@functools.cache
def _headers_of_the_library() -> tuple[re.Pattern, ...]:
    """mail-parser-reply's "On ... wrote:" lines of every language it knows."""
    return tuple(
        re.compile(table["wrote_header"], re.I | re.M)
        for table in MAIL_LANGUAGES.values()
        if table.get("wrote_header")
    )


@functools.cache
def _sent_from() -> re.Pattern:
    """ "Sent from my iPhone", "Odesláno z mého iPhonu" ... (mail-parser-reply's tables)."""
    phrases = [t["sent_from"] for t in MAIL_LANGUAGES.values() if t.get("sent_from")]
    return re.compile(rf"(?i)^\s*(?:{'|'.join(phrases)}|Odesláno z|Odoslané z|Trimis de pe)\b")


# -- The site's own email --------------------------------------------------------------------

# Lines of the site's game emails that no reply of a player's own holds (their English text; each
# is read in all the site's languages; a placeholder stands for any text): the footer, the
# heading of the one-tap links, and the lines that hold a secret.
EMAIL_MARKS = (
    "Saboteur, played slowly.",
    "To stop these emails:",
    "Decide from here (each link asks you to confirm):",
)
# The lines that say a secret: no text holding the first two anywhere is posted, and a line that
# is any of them marks a quote.
SECRET_MARKS = ("Your role: %(role)s", "Your hand:")
PRIVATE_LINES = (
    "You are the greedy dwarf this round.",
    "You saw: the %(goal)s goal is %(card)s.",
    "You saw: %(target)s is %(role)s.",
    "Your new role: %(role)s.",
    "Your hand is now: %(cards)s.",
    "You drew %(cards)s.",
    "You discarded %(cards)s.",
)


def _pattern(text: str) -> str:
    """A line's pattern: the text, its placeholders any words, spaces any spaces."""
    parts = re.split(r"%\(\w+\)s", text)
    escaped = [r"\s+".join(re.escape(word) for word in part.split()) for part in parts]
    return r".{1,80}?".join(escaped)


@functools.cache
def _in_every_language(texts: tuple[str, ...]) -> str:
    found: set[str] = set()
    for code in SITE_LANGUAGES:
        with translation.override(code):
            found.update(_pattern(_(text)) for text in texts)
    return "|".join(sorted(found))


@functools.cache
def _marks() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """(a line of the site's email, a line holding a secret, a secret anywhere in a text)."""
    secrets = _in_every_language(SECRET_MARKS)
    private = _in_every_language(PRIVATE_LINES)
    return (
        re.compile(rf"(?i)^\s*(?:{_in_every_language(EMAIL_MARKS)})"),
        re.compile(rf"(?i)^\s*(?:-\s+)?(?:(?:{secrets})|(?:{private})\s*$)"),
        re.compile(rf"(?i)(?:{secrets})"),
    )


def _greeting(name: str) -> re.Pattern | None:
    """The first line of every game email to a reader of that display name, in any language."""
    if not name:
        return None
    found: set[str] = set()
    for code in SITE_LANGUAGES:
        with translation.override(code):
            found.add(re.escape(_("Hello %(name)s,") % {"name": name}))
    return re.compile(rf"(?i)^\s*(?:{'|'.join(sorted(found))})\s*$")


def _site_link(line: str) -> bool:
    """A link line of the site's email that no player writes: a one-tap link ("- 2. Look at the
    north goal: https://.../tap/...") or the footer's unsubscribe link. (A player may well paste
    a link to the game itself.)"""
    host = re.escape(settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0])
    return re.search(rf":\s+https?://{host}/(?:tap|unsubscribe)/", line) is not None


def secret_in(text: str) -> bool:
    """Whether ``text`` holds the site's role line or hand line anywhere (only a quote of its
    email does: a player who must write their role writes it in their own words)."""
    return _marks()[2].search(text) is not None


# -- From an email to its lines --------------------------------------------------------------

QUOTE_ENDS_ALL = "\x00the rest is quoted\x00"  # a line no email has: what follows is a quote


class _Lines(HTMLParser):
    """An HTML body as lines of text: a ``<blockquote>``'s lines start with "> " (one per
    level), and what follows the quote containers of Outlook and Yahoo is marked quoted."""

    BLOCKS = frozenset(
        "address article aside blockquote br dd div dl dt footer form h1 h2 h3 h4 h5 h6 header "
        "hr li main nav ol p pre section table tbody td tfoot th thead tr ul".split()
    )
    SKIPPED = frozenset(("head", "script", "style", "title", "template"))
    CONTAINERS = re.compile(r"(?i)\b(divRplyFwdMsg|appendonsend|yahoo_quoted|OutlookMessageHeader)")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0
        self.skipping = 0
        self.ended = False

    def _break(self, *, blank: bool = False) -> None:
        """End the line being read; ``blank``: an empty one too (``<br>`` on a line of its own,
        a paragraph's end), as the HTML shows it."""
        text = re.sub(r"[ \t\xa0\u200b]+", " ", "".join(self.current)).strip()
        self.current = []
        if text:
            self.lines.append("> " * self.depth + text)
        elif blank:
            self.lines.append(">" * self.depth)

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIPPED:
            self.skipping += 1
        marks = " ".join(str(value) for name, value in attrs if name in ("id", "class"))
        if not self.ended and self.CONTAINERS.search(marks):
            self._break()
            self.lines.append(QUOTE_ENDS_ALL)
            self.ended = True
        if tag in self.BLOCKS:
            self._break(blank=tag == "br")
        if tag == "blockquote":
            self.depth += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        if tag in self.BLOCKS:
            self._break(blank=tag == "p")
        if tag == "blockquote":
            self.depth = max(0, self.depth - 1)

    def handle_data(self, data):
        if not self.skipping:
            self.current.append(data.replace("\n", " "))


def html_lines(html: str) -> list[str]:
    parser = _Lines()
    parser.feed(html)
    parser.close()
    parser._break()
    return parser.lines


def body_lines(message: Message) -> list[str]:
    """The reply's lines: its plain text part, else its HTML part made into lines (attachments
    are never read)."""
    if not isinstance(message, EmailMessage):
        return []
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return []
    try:
        body = part.get_content()
    except (LookupError, KeyError, ValueError, AssertionError):
        return []
    if not isinstance(body, str):
        return []
    body = body[: MAX_TEXT * 8]  # quotes included: the new text itself is cut to MAX_TEXT
    if part.get_content_subtype() == "html":
        return html_lines(body)
    return body.replace("\r\n", "\n").replace("\r", "\n").split("\n")


# -- The player's own lines ------------------------------------------------------------------

START, INSIDE = "start", "inside"  # where an unmarked quote was found: at its start, or within


@dataclass(frozen=True)
class OwnText:
    """The new text of a reply, and why it must not be posted (``unsure``), if it must not."""

    text: str
    unsure: str = ""


def own_text(message: Message, *, reader: str = "") -> OwnText:
    """The new text of ``message``, a reply by the player whose display name is ``reader``."""
    return own_lines(body_lines(message), reader=reader)


def own_lines(lines: list[str], *, reader: str = "") -> OwnText:
    """The player's own lines of a reply's ``lines`` (see the module's docstring)."""
    greeting = _greeting(reader)
    kept: list[str] = []
    unsure = ""
    at = 0
    while at < len(lines):
        line = lines[at]
        if QUOTED.match(line):
            at += 1
            continue
        begins = _unmarked_quote(lines, at, greeting)
        if begins:
            if begins == INSIDE:  # its first lines were not recognised: they may be kept above
                unsure = "the quoted email's beginning was not found"
            break
        size = _attribution(lines, at, greeting)
        if size:
            at += size
            continue
        if SIGNATURE.match(line) or _sent_from().match(line):
            following = [x for x in lines[at + 1 :] if x.strip()][:1]
            if following and _unmarked_quote(following, 0, greeting) == INSIDE:
                unsure = "the quoted email's beginning was not found"  # its footer follows
            break
        kept.append(line.rstrip())
        at += 1
    text = _tidy(kept)[:MAX_TEXT].strip()
    return OwnText(text, unsure or _why_unsure(text))


def _unmarked_quote(lines: list[str], at: int, greeting) -> str:
    """Whether a quote without ``>`` begins at line ``at``: ``START`` at a header block, a
    separator, the HTML's quote container or the site's greeting; ``INSIDE`` at a line of the
    site's email that is not its first; "" otherwise."""
    line = lines[at]
    if line == QUOTE_ENDS_ALL or SEPARATOR.match(line):
        return START
    if greeting is not None and greeting.match(line):
        return START
    if FROM_LINE.match(line):
        fields = [x for x in lines[at : at + 8] if x.strip()][:4]
        if sum(1 for x in fields if HEADER_LINE.match(x)) >= 2:
            return START
    email_line, secret_line, _anywhere = _marks()
    if email_line.match(line) or secret_line.match(line) or _site_link(line):
        return INSIDE
    return ""


def _attribution(lines: list[str], at: int, greeting) -> int:
    """How many lines (one, or two: mail programs wrap long ones) of an attribution begin at
    ``at``, if a quote follows them (quoted lines or the site's email); else 0."""
    for size in (1, 2):
        if at + size > len(lines) or QUOTED.match(lines[at + size - 1]):
            return 0
        text = " ".join(line.strip() for line in lines[at : at + size])
        if size == 1 and not _looks_like_attribution(text):
            continue
        if size == 2 and not _wrapped_attribution(lines[at], lines[at + 1], text):
            continue
        following = [x for x in lines[at + size :] if x.strip()][:1]
        if following and (QUOTED.match(following[0]) or _unmarked_quote(following, 0, greeting)):
            return size
    return 0


def _library_header(text: str) -> bool:
    return any(header.match(text) for header in _headers_of_the_library())


def _looks_like_attribution(text: str) -> bool:
    """ "On ... Ann <ann@...> wrote:" in any language: a line ending in ":" that has the verb or
    names an address and a time."""
    text = text.strip()
    if not text.endswith(":") or len(text) > 300:
        return False
    if _library_header(text) or VERB.search(text):
        return True
    return ADDRESS.search(text) is not None and TIME.search(text) is not None


def _wrapped_attribution(first: str, second: str, joined: str) -> bool:
    """An attribution wrapped over two lines: the first has its time, the second its end; and
    the second is not a whole attribution of its own ("Meet at 10:30" above "On ... wrote:")."""
    if not TIME.search(first) or _library_header(second.strip()):
        return False
    return _looks_like_attribution(joined) and not _looks_like_attribution(first)


def _tidy(lines: Iterable[str]) -> str:
    """The lines kept, without the blank lines a removed quote leaves behind."""
    text = "\n".join(lines)
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text).strip()


def _why_unsure(text: str) -> str:
    """Why ``text`` may still hold part of the quoted email (then nothing is posted), or ""."""
    if secret_in(text):
        return "a line of the site's email (the role or the hand)"
    if re.search(r"(?i)\breply\+[a-z0-9]{20,}@", text):
        return "a reply address of the site"
    if QUOTE_ENDS_ALL in text:
        return "a quote marker"
    return ""
