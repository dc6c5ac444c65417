"""The one exception an illegal move raises, with the reason codes of docs/rules.md 9."""

from __future__ import annotations


def gettext_noop(message: str) -> str:
    """Marks a message for translation (``makemessages`` finds it); the web translates it."""
    return message


REASONS = {
    "not-your-decision": gettext_noop("It is not your decision now, or this move does not fit it."),
    "malformed": gettext_noop("The move is incomplete or names something that does not exist."),
    "not-in-hand": gettext_noop("That card is not in your hand."),
    "wrong-card": gettext_noop("That card cannot be played this way."),
    "occupied": gettext_noop("That position already holds a card."),
    "no-neighbour": gettext_noop("A path card must be placed next to a card already on the table."),
    "edge-mismatch": gettext_noop("The card's edges do not fit its neighbours."),
    "not-joined": gettext_noop("The card's tunnels must be joined to the start."),
    "tool-broken": gettext_noop("You cannot place path cards while one of your tools is broken."),
    "trapped": gettext_noop("You cannot place path cards while you are trapped."),
    "ladder-next-to-goal": gettext_noop("A ladder may not be placed next to a goal card."),
    "bad-target": gettext_noop("That player cannot receive this card."),
    "already-has": gettext_noop("That player already has a card of this kind in front of them."),
    "nothing-to-repair": gettext_noop(
        "There is nothing matching this card in front of that player."
    ),
    "bad-position": gettext_noop("A rockfall must remove a path card from the maze."),
    "bad-goal": gettext_noop("That goal card is already face up."),
    "wrong-count": gettext_noop("Wrong number of cards for this move."),
    "not-in-front": gettext_noop("That card is not lying in front of you."),
    "bad-pick": gettext_noop("That gold card is not among the cards offered to you."),
    "bad-victim": gettext_noop("You cannot steal from that player."),
}


class IllegalMove(Exception):
    """A refused move. ``code`` is a stable reason code; ``message`` is plain English."""

    def __init__(self, code: str, detail: str | None = None):
        assert code in REASONS, code
        self.code = code
        self.message = detail or REASONS[code]
        super().__init__(f"{code}: {self.message}")


class BadSetup(ValueError):
    """A game cannot be set up as asked (wrong player count, impossible rigged deal)."""

    def __init__(self, field: str, why: str):
        self.field = field
        self.why = why
        super().__init__(f"{field}: {why}")
