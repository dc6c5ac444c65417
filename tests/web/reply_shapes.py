"""How people's mail programs write a reply to a game email: the fixture corpus of issue 47.

Each ``Shape`` makes the reply a mail program writes to a real email of the site (its plain text,
its HTML, its sender and date), given the player's new text, and says what the chat must read
(``expected``: the new text itself unless said otherwise). The attribution lines, header blocks
and HTML are those of the programs named, in their languages (Gmail, Outlook, Apple Mail,
Thunderbird, Yahoo, mutt; English, Czech, Slovak, Ukrainian, Romanian, German, French, Spanish,
Polish), as they wrote them in December 2026.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid

SENDER = "Saboteur"


@dataclass(frozen=True)
class Original:
    """The email replied to: what a mail program quotes of it."""

    text: str
    html: str
    reply_to: str

    @property
    def html_body(self) -> str:
        """The HTML's body, as mail programs put it inside their quote."""
        found = re.search(r"(?is)<body[^>]*>(.*)</body>", self.html)
        return found[1] if found else self.html


def prefixed(text: str, mark: str = "> ") -> str:
    """Every line quoted, an empty one as ">" (Gmail, Thunderbird, mutt)."""
    return "\n".join(mark + line if line.strip() else mark.strip() for line in text.split("\n"))


def plain(body: str) -> EmailMessage:
    message = EmailMessage()
    message.set_content(body)
    return message


def html_only(body: str) -> EmailMessage:
    message = EmailMessage()
    message.set_content(f"<html><body>{body}</body></html>", subtype="html")
    return message


def both(text: str, html: str) -> EmailMessage:
    message = EmailMessage()
    message.set_content(text)
    message.add_alternative(f"<html><body>{html}</body></html>", subtype="html")
    return message


def _first(text: str) -> str:
    return text.split("\n", 1)[0]


def _rest(text: str) -> str:
    return text.split("\n", 1)[1] if "\n" in text else ""


def paragraphs(text: str) -> str:
    return "".join(f"<div>{line or '<br>'}</div>" for line in text.split("\n"))


@dataclass(frozen=True)
class Shape:
    name: str
    new: str  # the player's new text
    make: Callable[[Original, str], EmailMessage]
    expected: str | None = None  # the chat's text, when not ``new``

    def reply(self, original: Original, new: str | None = None, *, sender="ann@example.com"):
        message = self.make(original, self.new if new is None else new)
        message["From"] = f"Ann <{sender}>"
        message["To"] = original.reply_to
        message["Subject"] = "Re: Your turn in Deep mine"
        message["Message-ID"] = make_msgid(domain="mail.example.com")
        return message

    @property
    def chat(self) -> str:
        return self.new if self.expected is None else self.expected


def addr(o: Original) -> str:
    return f"{SENDER} <{o.reply_to}>"


# -- Top-posting with an attribution line and ">" ----------------------------------------------


def gmail(attribution: Callable[[Original], str]):
    def make(o: Original, new: str) -> EmailMessage:
        return plain(f"{new}\n\n{attribution(o)}\n\n{prefixed(o.text)}\n")

    return make


def gmail_html(attribution: Callable[[Original], str]):
    def make(o: Original, new: str) -> EmailMessage:
        html = (
            f'<div dir="ltr">{paragraphs(new)}</div><br><div class="gmail_quote">'
            f'<div dir="ltr" class="gmail_attr">{attribution(o)}<br></div>'
            '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
            f'border-left:1px solid rgb(204,204,204);padding-left:1ex">{o.html_body}</blockquote>'
            "</div>"
        )
        return both(f"{new}\n\n{attribution(o)}\n\n{prefixed(o.text)}\n", html)

    return make


def wrapped(line: str) -> str:
    """Gmail's plain text wraps a long attribution before the address."""
    head, sep, tail = line.partition(" <")
    return f"{head} <\n{tail}" if sep else line


SHAPES = [
    Shape(
        "en-gmail",
        "I have a lamp to spare, Bob.",
        gmail(lambda o: wrapped(f"On Sun, Dec 6, 2026 at 4:49 PM {addr(o)} wrote:")),
    ),
    Shape(
        "en-apple-mail",
        "Going north next turn.",
        gmail(lambda o: f"On 6 Dec 2026, at 16:49, {addr(o)} wrote:"),
    ),
    Shape(
        "en-thunderbird",
        "Cid, please fix my pickaxe.",
        gmail(lambda o: f"On 12/6/26 4:49 PM, {SENDER} wrote:"),
    ),
    Shape(
        "cs-gmail",
        "Bob lže, sever je kámen.",
        gmail(lambda o: wrapped(f"ne 6. 12. 2026 v 16:49 odesílatel {addr(o)} napsal:")),
    ),
    Shape(
        "cs-thunderbird",
        "Kdo mi opraví lampu?",
        gmail(lambda o: f"Dne 06. 12. 26 v 16:49 {SENDER} napsal(a):"),
    ),
    Shape(
        "sk-gmail",
        "Idem na juh, kto ide so mnou?",
        gmail(lambda o: wrapped(f"ne 6. 12. 2026 o 16:49 {addr(o)} napísal(a):")),
    ),
    Shape(
        "sk-thunderbird",
        "Dobrý ťah, Cid.",
        gmail(lambda o: f"Dňa 6. 12. 2026 o 16:49 {SENDER} napísal(a):"),
    ),
    Shape(
        "uk-gmail",
        "Боб — сапер, я бачив.",
        gmail(lambda o: wrapped(f"нд, 6 груд. 2026 р. о 16:49 {addr(o)} пише:")),
    ),
    Shape(
        "ro-gmail",
        "Eu merg spre nord.",
        gmail(lambda o: wrapped(f"Pe dum., 6 dec. 2026 la 16:49, {addr(o)} a scris:")),
    ),
    Shape(
        "de-gmail",
        "Ich repariere deine Lampe.",
        gmail(lambda o: wrapped(f"Am So., 6. Dez. 2026 um 16:49 Uhr schrieb {addr(o)}:")),
    ),
    Shape(
        "de-thunderbird",
        "Gut gespielt!",
        gmail(lambda o: f"Am 06.12.26 um 16:49 schrieb {SENDER}:"),
    ),
    Shape(
        "fr-gmail",
        "Je passe mon tour, désolé.",
        gmail(lambda o: wrapped(f"Le dim. 6 déc. 2026 à 16:49, {addr(o)} a écrit :")),
    ),
    Shape(
        "es-gmail",
        "Bob es el saboteador, seguro.",
        gmail(lambda o: f"El dom, 6 dic 2026 a las 16:49, {SENDER} (<{o.reply_to}>) escribió:"),
    ),
    Shape(
        "pl-gmail",
        "Naprawię ci kilof.",
        gmail(lambda o: wrapped(f"niedz., 6 gru 2026 o 16:49 {addr(o)} napisał(a):")),
    ),
    Shape(
        "pl-thunderbird",
        "Idę na północ.",
        gmail(lambda o: f"W dniu 6.12.2026 o 16:49, {SENDER} pisze:"),
    ),
    Shape(
        "en-yahoo-unprefixed",
        "Count me in for the next round.",
        lambda o, new: plain(
            f"{new}\n\n\nOn Sunday, December 6, 2026 at 04:49:12 PM GMT+1, {addr(o)} wrote:\n\n"
            f"\n{o.text}\n"
        ),
    ),
    # -- Quoted without an attribution line ----------------------------------------------------
    Shape(
        "mutt-no-attribution",
        "Nice one.\nSecond line of mine.",
        lambda o, new: plain(f"{new}\n\n{prefixed(o.text)}\n"),
    ),
    Shape(
        "quote-first-no-attribution",
        "Agreed, north it is.",
        lambda o, new: plain(f"{prefixed(o.text)}\n\n{new}\n"),
    ),
    # -- Bottom-posting ------------------------------------------------------------------------
    Shape(
        "en-bottom-posting",
        "My answer below the quote, as on mailing lists.",
        lambda o, new: plain(
            f"On Sun, Dec 6, 2026 at 4:49 PM {addr(o)} wrote:\n{prefixed(o.text)}\n\n{new}\n"
        ),
    ),
    Shape(
        "cs-bottom-posting",
        "Odpovídám pod citací.",
        lambda o, new: plain(
            f"Dne 06. 12. 26 v 16:49 {SENDER} napsal(a):\n{prefixed(o.text)}\n\n{new}\n\n-- \n"
            "Jana Nováková\n+420 777 123 456\n"
        ),
    ),
    Shape(
        "inline-answers",
        "Yes, that one.\nAnd this too.",
        lambda o, new: plain(
            f"On 12/6/26 4:49 PM, {SENDER} wrote:\n{prefixed(_first(o.text))}\n{_first(new)}\n"
            f"{prefixed(_rest(o.text))}\n{_rest(new)}\n"
        ),
    ),
    # -- Outlook: a header block, the email unquoted -------------------------------------------
    Shape(
        "en-outlook",
        "Thanks, see you at the table.",
        lambda o, new: plain(
            f"{new}\n\n________________________________\nFrom: {addr(o)}\n"
            "Sent: Sunday, December 6, 2026 4:49 PM\nTo: Ann <ann@example.com>\n"
            f"Subject: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "de-outlook",
        "Danke, bis gleich.",
        lambda o, new: plain(
            f"{new}\n\nVon: {addr(o)}\nGesendet: Sonntag, 6. Dezember 2026 16:49\n"
            f"An: Ann <ann@example.com>\nBetreff: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "cs-outlook",
        "Díky, jdu na to.",
        lambda o, new: plain(
            f"{new}\n\nOd: {addr(o)}\nOdesláno: neděle 6. prosince 2026 16:49\n"
            f"Komu: Ann <ann@example.com>\nPředmět: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "uk-outlook",
        "Дякую, граю.",
        lambda o, new: plain(
            f"{new}\n\nВід: {addr(o)}\nНадіслано: 6 грудня 2026 р. 16:49\n"
            f"Кому: Ann <ann@example.com>\nТема: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "ro-outlook",
        "Mulțumesc, joc acum.",
        lambda o, new: plain(
            f"{new}\n\nDe la: {addr(o)}\nTrimis: duminică, 6 decembrie 2026 16:49\n"
            f"Către: Ann <ann@example.com>\nSubiect: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "fr-outlook",
        "Merci, j'arrive.",
        lambda o, new: plain(
            f"{new}\n\nDe : {addr(o)}\nEnvoyé : dimanche 6 décembre 2026 16:49\n"
            f"À : Ann <ann@example.com>\nObjet : Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "es-outlook",
        "Gracias, ya voy.",
        lambda o, new: plain(
            f"{new}\n\nDe: {addr(o)}\nEnviado: domingo, 6 de diciembre de 2026 16:49\n"
            f"Para: Ann <ann@example.com>\nAsunto: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "pl-outlook",
        "Dzięki, gram.",
        lambda o, new: plain(
            f"{new}\n\nOd: {addr(o)}\nWysłane: niedziela, 6 grudnia 2026 16:49\n"
            f"Do: Ann <ann@example.com>\nTemat: Your turn in Deep mine\n\n{o.text}\n"
        ),
    ),
    Shape(
        "outlook-original-message",
        "Old Outlook, old habits.",
        lambda o, new: plain(
            f"{new}\n\n-----Original Message-----\nFrom: {addr(o)}\n"
            f"Sent: Sunday, December 6, 2026 4:49 PM\nSubject: Your turn\n\n{o.text}\n"
        ),
    ),
    Shape(
        "unprefixed-no-attribution",
        "Pasted under my words by a webmail.",
        lambda o, new: plain(f"{new}\n\n{o.text}\n"),
    ),
    # -- HTML only -----------------------------------------------------------------------------
    Shape(
        "apple-mail-html-blockquote",
        "Bob, your lantern is next.",
        lambda o, new: html_only(
            f'{paragraphs(new)}<div><br><blockquote type="cite">{o.html_body}</blockquote></div>'
        ),
    ),
    Shape(
        "gmail-html-only",
        "Hraju sever.",
        lambda o, new: html_only(
            f'<div dir="ltr">{paragraphs(new)}</div><br><div class="gmail_quote">'
            f'<div class="gmail_attr">ne 6. 12. 2026 v 16:49 odesílatel {SENDER} &lt;'
            f'{o.reply_to}&gt; napsal:<br></div><blockquote class="gmail_quote">{o.html_body}'
            "</blockquote></div>"
        ),
    ),
    Shape(
        "outlook-html",
        "Thanks from Outlook on the web.",
        lambda o, new: html_only(
            f'{paragraphs(new)}<div id="appendonsend"></div><hr style="display:inline-block">'
            f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> {SENDER} '
            f"&lt;{o.reply_to}&gt;<br><b>Sent:</b> Sunday, December 6, 2026 4:49 PM<br>"
            "<b>To:</b> Ann<br><b>Subject:</b> Your turn</font><div>&nbsp;</div></div>"
            f"<div>{o.html_body}</div>"
        ),
    ),
    Shape(
        "thunderbird-html-bottom",
        "Below the quote, in HTML.",
        lambda o, new: html_only(
            f'<div class="moz-cite-prefix">On 12/6/26 4:49 PM, {SENDER} wrote:<br></div>'
            f'<blockquote type="cite" cite="mid:x@y">{o.html_body}</blockquote>'
            f"{paragraphs(new)}"
        ),
    ),
    Shape(
        "gmail-both-parts",
        "Ich nehme die Karte.",
        gmail_html(lambda o: f"Am So., 6. Dez. 2026 um 16:49 Uhr schrieb {addr(o)}:"),
    ),
    # -- Signatures ----------------------------------------------------------------------------
    Shape(
        "iphone-signature",
        "On my way.",
        lambda o, new: plain(
            f"{new}\n\nSent from my iPhone\n\nOn 6 Dec 2026, at 16:49, {addr(o)} wrote:\n\n"
            f"{prefixed(o.text)}\n"
        ),
    ),
    Shape(
        "dash-signature",
        "I will repair you next.",
        lambda o, new: plain(
            f"{new}\n\n-- \nAnn Example\nhttps://ann.example.com\n\n"
            f"On Sun, Dec 6, 2026 at 4:49 PM {addr(o)} wrote:\n{prefixed(o.text)}\n"
        ),
    ),
    # -- A line of the player's own that looks like the start of a quote -----------------------
    Shape(
        "own-line-ending-in-a-colon",
        "Here is my plan:\nnorth first, then the middle.",
        gmail(lambda o: f"On Sun, Dec 6, 2026 at 4:49 PM {addr(o)} wrote:"),
    ),
]
