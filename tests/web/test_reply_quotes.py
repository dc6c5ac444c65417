"""Nothing quoted reaches the chat, ever (issue 47): a reply to a game email posts only the
player's own new text, however their mail program quoted the email (``reply_shapes``: the
corpus of real-world shapes), and never a text holding the reader's role or hand.

The emails replied to are the site's own, built by the real builder from real outbox rows of
rigged games (tests/web/test_one_tap.py), in each of the site's languages."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import ChatMessage, InboundMail, Notice
from games.outbox import quotes
from games.outbox.emails import build_email
from games.play import replies
from tests.e2e.deals import BASE_DEAL
from tests.players import create_player

from .reply_shapes import SHAPES, Original, Shape
from .test_one_tap import ACTION_DEAL, rigged

pytestmark = pytest.mark.django_db

# Ann a saboteur with a map in hand: her email holds her role, her hand and the one-tap list.
SABOTEUR_DEAL = {
    **ACTION_DEAL,
    "roles": {**BASE_DEAL["roles"], "0": "saboteur", "1": "gold-digger"},
}


def players(language="en"):
    ann = create_player("ann")
    ann.language = language
    ann.save(update_fields=["language"])
    return [ann, create_player("bob"), create_player("cid")]


def original_email(game, user) -> Original:
    notice = Notice.objects.filter(kind=Notice.Kind.TURN, game=game, user=user).latest("pk")
    sent = build_email(notice, user.email)
    html = next(content for content, kind in sent.alternatives if kind == "text/html")
    return Original(text=sent.body, html=str(html), reply_to=sent.extra_headers["Reply-To"])


def secret_lines(original: Original) -> list[str]:
    """The lines of the email that say the reader's role and hand."""
    return [
        line
        for line in original.text.splitlines()
        if line.startswith(("Your role:", "Your hand:", "Role:", "Tvoje role", "Ruka"))
    ]


def answer_lines(user) -> list[str]:
    notice = Notice.objects.filter(kind=Notice.Kind.ANSWER, user=user).latest("pk")
    return notice.data["lines"]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_reply_shape_posts_the_new_text_alone(shape: Shape):
    ann, *_others = team = players()
    game = rigged(team, deal=SABOTEUR_DEAL)
    original = original_email(game, ann)
    assert "Your role: Saboteur" in original.text and "Your hand: 1." in original.text
    got = replies.receive(shape.reply(original))
    assert got == replies.Received(InboundMail.Outcome.CHAT), answer_lines(ann)
    (message,) = ChatMessage.objects.filter(game=game)
    assert message.text == shape.chat
    assert "Saboteur" not in message.text and "Your hand" not in message.text
    assert answer_lines(ann)[0].startswith("Posted to the chat of Deep mine")


def test_the_corpus_has_the_shapes_issue_47_names():
    names = {shape.name for shape in SHAPES}
    assert len(names) == len(SHAPES) >= 25
    for language in ("en", "cs", "sk", "uk", "ro", "de", "fr", "es", "pl"):
        assert any(name.startswith(language + "-") for name in names), language
    for kind in ("bottom", "no-attribution", "html", "outlook"):
        assert any(kind in name for name in names), kind


# The quoting styles as functions of (the email, the new text), for the property below.
STYLES = [shape.make for shape in SHAPES if shape.expected is None]

# New texts: a few lines of words in the scripts players write in (no ">" at a line's start, no
# line ending in ":", no "@": nothing a player writes that looks like a quote's start).
WORD = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzáčďéěíňóřšťúůýžăâîșțабвгдеєжзиіїйклмнопрс"
                             "ABCDĚŠŽБВГ0123456789.,!?'-()"),
    min_size=1,
    max_size=12,
)  # fmt: skip
LINE = (
    st.lists(WORD, min_size=1, max_size=8)
    .map(" ".join)
    .filter(lambda line: not line.startswith("-") and line.strip())
)
NEW_TEXT = st.lists(LINE, min_size=1, max_size=4).map("\n".join)


def meaningful(line: str) -> bool:
    return len(line.strip()) >= 4 and re.search(r"\w", line) is not None


def test_no_line_of_any_turn_email_is_posted_whatever_the_quoting_style():
    """For the "your turn" emails of both rule sets' roles in every language of the site (their
    role line, hand, one-tap links and footer), and any quoting style of the corpus, the text
    posted is the new text, and no line of the quoted email is in it."""
    originals = []
    for language in ("en", "cs", "sk", "uk", "ro"):
        for deal in (ACTION_DEAL, SABOTEUR_DEAL):
            team = [create_player(f"{name}{language}{len(originals)}") for name in "abc"]
            team[0].language = language
            team[0].save(update_fields=["language"])
            game = rigged(team, deal=deal)
            originals.append((team[0].display_name, original_email(game, team[0])))

    # Five times the profile's examples: 10 emails times 38 styles is a wide space.
    examples = settings.default.max_examples * 5

    @settings(max_examples=examples, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(st.sampled_from(originals), st.sampled_from(STYLES), NEW_TEXT)
    def check(reader_and_original, style, new):
        reader, original = reader_and_original
        reply = Shape("property", new, style).reply(original)
        own = quotes.own_text(reply, reader=reader)
        assert own.unsure == ""
        assert own.text == new.strip()
        new_lines = {line.strip() for line in new.splitlines()}
        quoted = {line.strip() for line in original.text.splitlines() if meaningful(line)}
        assert not [line for line in own.text.splitlines() if line.strip() in quoted - new_lines]

    check()


def test_a_text_holding_the_role_or_hand_line_is_never_posted():
    ann, *_others = team = players()
    game = rigged(team, deal=SABOTEUR_DEAL)
    original = original_email(game, ann)
    role_line = next(line for line in original.text.splitlines() if line.startswith("Your role"))
    cases = [
        # The player typed it (or pasted it) above the quote.
        f"Look what I got:\n{role_line}\n\n> Hello Ann,\n",
        # A quote whose beginning is not recognised (the greeting changed, no attribution).
        "Good luck everyone.\n\nIt is your turn in Deep mine.\nPlay a card or pass.\n"
        f"{role_line}\nYour hand: 1. Cross\n",
        # The site's footer unquoted under a signature separator: the quote's start was missed.
        "Good luck.\n\nIt is your turn in Deep mine.\n\n-- \nSaboteur, played slowly.\n",
    ]
    for number, text in enumerate(cases):
        message = Shape("typed", "", lambda o, new, text=text: _plain(text)).reply(original)
        got = replies.receive(message)
        assert got == replies.Received(InboundMail.Outcome.REFUSED), number
        assert not ChatMessage.objects.filter(game=game).exists()
        assert "write your message above the quoted email" in answer_lines(ann)[0]
    # In every language of the site.
    for language in ("cs", "sk", "uk", "ro"):
        from django.utils import translation

        with translation.override(language):
            from django.utils.translation import gettext as _

            line = _("Your role: %(role)s") % {"role": "X"}
        assert quotes.secret_in(f"hi\n{line}"), language
        assert quotes.own_lines(["hi", line]).unsure, language


def _plain(text: str):
    from email.message import EmailMessage

    message = EmailMessage()
    message.set_content(text)
    return message


def test_a_reply_that_is_only_the_quote_posts_nothing_and_says_where_to_write():
    ann, *_others = team = players()
    game = rigged(team)
    original = original_email(game, ann)
    got = replies.receive(SHAPES[0].reply(original, new=""))
    assert got == replies.Received(InboundMail.Outcome.REFUSED)
    assert not ChatMessage.objects.filter(game=game).exists()
    assert "Write your message above the quoted email" in answer_lines(ann)[0]


def test_a_command_above_any_quote_still_makes_its_move():
    ann, *_others = team = players()
    game = rigged(team)
    original = original_email(game, ann)
    for shape in SHAPES:
        if shape.name in ("en-outlook", "apple-mail-html-blockquote", "en-bottom-posting"):
            assert quotes.own_text(shape.reply(original, new="1"), reader="Ann").text == "1"
    got = replies.receive(SHAPES[0].reply(original, new="map north"))
    assert got == replies.Received(InboundMail.Outcome.MOVED)


def test_a_players_own_lines_that_look_like_the_emails_are_posted():
    """What a player writes of their own is posted, though it has a colon, a link to the game, a
    time or a greeting."""
    lines = [
        "Hello everyone,",
        "My plan for 10:30:",
        "north first: http://127.0.0.1:8000/games/1/",
        "- one",
        "Bob wrote: nonsense",
    ]
    assert quotes.own_lines(lines, reader="Ann") == quotes.OwnText("\n".join(lines))
