"""Pages kept for a viewer's seat, found without reading the game: a round recap and a replay
step are the same page for every viewer in the same seat until the game's revision moves, so a
page asked for again is looked up with the poll's one query (``access.game_head``: the game's
row and the viewer's seat) instead of the game, its state, its seats and their players.
``pages`` builds them, keeps them under the same names (``recap_key``, ``replay_made_of``) and
shows them the same way (``shown_recap``, ``keyed_replay``)."""

from __future__ import annotations

from django.utils.translation import get_language

from . import access, history, kept


def recap_key(game_id: int, revision: int, me: str | None, number: int) -> str:
    # The revision, not the version: a seat taken over changes the names, not the version.
    return f"recap:{game_id}:{revision}:{me}:{number}:{get_language()}"


def shown_recap(recap: dict, game_id: int, name: str, key: str) -> dict:
    """A kept recap as the page shows it; ``key`` names everything it is made of (the template
    keeps its markup under it)."""
    return {**recap, "id": game_id, "name": name, "key": key}


def keyed_replay(page: history.ReplayPage, made_of: tuple) -> history.ReplayPage:
    """A kept replay step named by what it is made of (the template keeps its markup under it)."""
    page.key = kept.digest(*made_of)
    return page


def kept_recap(game_id: int, user, number: int) -> dict | None:
    """The recap of round ``number`` kept for the viewer's seat; None when it is not kept, or
    not to be seen: then ``pages.round_recap_page`` decides, from the game."""
    head = access.game_head(game_id, user)
    if head is None:  # not to be seen: the game's own read says so (404)
        return None
    key = recap_key(game_id, head.revision, head.me, number)
    recap = kept.recalled(key)
    if recap is None:
        return None
    return shown_recap(recap, game_id, head.name, key)


def replay_made_of(game_id: int, name: str, revision: int, step: int | None, me: str | None):
    """What a replay step is made of. A step is the same page for every viewer in the same seat:
    the moves up to it never change, and the revision names everything else that may (a move,
    so the latest step and the game's end, which reveals all; a player's new name, a seat taken
    over, a moderator's line: each gives the game a new revision)."""
    return (game_id, name, revision, step, me)


def kept_replay(game_id: int, user, step: int | None) -> history.ReplayPage | None:
    """The replay step kept for the viewer's seat; None when it is not kept, or not to be seen:
    then ``pages.replay_page`` decides, from the game."""
    head = access.game_head(game_id, user)
    if head is None:  # not to be seen: the game's own read says so (404)
        return None
    made_of = replay_made_of(game_id, head.name, head.revision, step, head.me)
    page = kept.found("replay-page", made_of)
    return None if page is None else keyed_replay(page, made_of)
