"""The play area as parts, and what an open page is sent after a move: only the parts that changed.

The game page's play area (``games/game.html#play``) is built from parts: each is an element with
an id between ``<!--p:ID-->`` and ``<!--/p:ID-->`` (the turn line, the bar's actions, the hand,
the maze, the log, the players' strip...). Four of them are lists of items with ids of their
own: the players' chips, the players' cards (what each was seen doing), the maze's cells (in rows
and columns that can grow) and the log's lines (newest first, in one list per round). What is left
of the play area without its parts is its *shell* (which panels there are: the game's end, a
round's result, a briefing...).

Every time a page is sent the play area, what it got is remembered under a token of that page and
its user (the play area itself, compressed, in Django's cache; its digests, ``Sent``, a hash per
part and per item, worked out when the page asks, once per process for every page that got it).
When the page asks for the new state after a move (``games.web.views.game_poll``), it is sent,
as htmx out-of-band swaps, only the parts and items whose markup changed, the new log lines, the
rows and columns the maze grew by; when the shell changed, or nothing is remembered for that
page, the whole play area. Applying those swaps to the page gives exactly the play area a fresh
page would show (``tests/e2e/test_live_parts.py``).

A form's CSRF token and move key change at every render without changing what the page does:
they are left out of the hashes, so a part is not sent again for them alone.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.utils.html import format_html
from django.utils.safestring import mark_safe

PART = re.compile(r"<!--p:(?P<id>[\w-]+)-->(?P<html>.*?)<!--/p:(?P=id)-->", re.S)
SEAT = re.compile(r'<li class="seat[^"]*" id="(?P<id>seat-\d+)".*?</li>', re.S)
# A player's card holds two items: what they were seen doing (no <div> inside) and the viewer's
# marks (a form).
CARD = re.compile(
    r'<(?P<tag>div|form) class="did-pop__(?:said|marks)" id="(?P<id>(?:said|marks)-\d+)"'
    r".*?</(?P=tag)>",
    re.S,
)
# A player's row of the ledger's table beside the log.
LEDGER_ROW = re.compile(r'<tr id="(?P<id>ledger-\d+)">.*?</tr>', re.S)
GROUP = re.compile(r'<ol class="log" id="(?P<id>log-r\d+)"[^>]*>(?P<html>.*?)</ol>', re.S)
LINE = re.compile(r'<li id="(?P<id>l\d+-\d+)".*?</li>', re.S)
HEAD = re.compile(r'<thead id="mzh">.*?</thead>', re.S)
ROW = re.compile(r'<tr id="mzr(?P<y>-?\d+)">(?P<html>.*?)</tr>', re.S)
CELL = re.compile(r'<td id="mz(?P<x>-?\d+)_(?P<y>-?\d+)".*?</td>', re.S)
# A cell's name for screen readers says its neighbours: a card placed renames the cells around.
CELL_NAME = re.compile(r'<span class="visually-hidden" id="cell--?\d+--?\d+">.*?</span>')
FIRST_TAG = re.compile(r"^\s*<(?P<tag>[a-zA-Z][\w-]*)")
# A form's token and move key: new at every render, the same for what the page does.
VOLATILE = re.compile(r'(name="(?:csrfmiddlewaretoken|key)" value=")[^"]*(")')
REVISION = re.compile(r"[?&]v=(\d+)")
# The poll element's URL in a play area as sent: the revision it shows and the page's token.
POLLED = re.compile(r"/poll/\?v=(?P<revision>\d+)&amp;p=(?P<token>[\w-]+)")
TOKEN = re.compile(r"[A-Za-z0-9_-]{8,32}")
# Set in the poll URL of the play area when it is rendered, replaced by the page's own token.
TOKEN_PLACEHOLDER = "PAGETOKEN0"  # noqa: S105 - not a secret: where the page's token goes

SENT_SECONDS = 12 * 3600  # a page left open longer gets the whole play area, once


BETWEEN_TAGS = re.compile(r">\s+<")


def compact(markup: str) -> str:
    """Markup without the templates' indentation: the runs of white space between two tags
    become one space, which a browser shows the same (the play area has no ``<pre>``)."""
    return BETWEEN_TAGS.sub("> <", markup)


def digest(html: str) -> str:
    return hashlib.blake2b(VOLATILE.sub(r"\1\2", html).encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Maze:
    head: str
    columns: tuple[int, ...]
    rows: dict[int, str]  # y -> the row's markup, top to bottom
    cells: dict[tuple[int, int], str]

    @classmethod
    def parse(cls, html: str) -> Maze:
        head = HEAD.search(html)
        rows = {int(m["y"]): m[0] for m in ROW.finditer(html)}
        cells = {(int(m["x"]), int(m["y"])): m[0] for m in CELL.finditer(html)}
        columns = tuple(sorted({x for x, _y in cells}))
        return cls(head[0] if head else "", columns, rows, cells)


@dataclass(frozen=True)
class Play:
    """The play area of one rendering, cut into its parts."""

    html: str  # the whole play area: the #play element
    parts: dict[str, str]  # part id -> its element's markup, in page order
    shell: str  # the digest of the play area without its parts

    @classmethod
    def of(cls, page_html: str) -> Play | None:
        """The play area in a rendered page or part; None when it holds none."""
        found = next((m for m in PART.finditer(page_html) if m["id"] == "play"), None)
        if found is None:
            return None
        html = found["html"]
        parts = {m["id"]: m["html"] for m in PART.finditer(html)}
        shell = PART.sub(lambda m: f"<!--p:{m['id']}-->", html)
        return cls(html=html, parts=parts, shell=digest(shell))

    @property
    def revision(self) -> int | None:
        """The revision the play area shows (its poll URL's); None for a game no page follows."""
        found = REVISION.search(self.parts.get("poll", ""))
        return int(found[1]) if found else None

    def sent(self, revision: int) -> Sent:
        """What a page that got this play area has: a digest per part and item."""
        items: dict[str, str] = {}
        structure: dict[str, Any] = {}
        for key, pattern in (("seats", SEAT), ("cards", CARD), ("ledger", LEDGER_ROW)):
            if key in self.parts:
                found = {m["id"]: m[0] for m in pattern.finditer(self.parts[key])}
                items |= {item: digest(html) for item, html in found.items()}
                structure[key] = (digest(pattern.sub("", self.parts[key])), tuple(found))
        if "log" in self.parts:
            log = self.parts["log"]
            structure["log"] = (digest(LINE.sub("", log)), _log_lines(log))
            items |= {m["id"]: digest(m[0]) for m in LINE.finditer(log)}
        if "maze" in self.parts:
            maze = Maze.parse(self.parts["maze"])
            structure["maze"] = (maze.columns, tuple(maze.rows))
            for at, html in maze.cells.items():
                name = CELL_NAME.search(html)
                items[_cell_id(at)] = digest(CELL_NAME.sub("", html))
                items[_name_id(at)] = digest(name[0] if name else "")
            items["mzh"] = digest(maze.head)
        return Sent(
            revision=revision,
            shell=self.shell,
            # "" for a part with no element (the chat of someone without a seat).
            parts={
                key: digest(html) if FIRST_TAG.match(html) else ""
                for key, html in self.parts.items()
            },
            items=items,
            structure=structure,
        )


def _cell_id(at: tuple[int, int]) -> str:
    return f"mz{at[0]}_{at[1]}"


def _name_id(at: tuple[int, int]) -> str:
    return f"cell-{at[0]}-{at[1]}"


def _log_lines(log: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The log's rounds and their lines' ids, newest first."""
    return tuple(
        (group["id"], tuple(m["id"] for m in LINE.finditer(group["html"])))
        for group in GROUP.finditer(log)
    )


@dataclass(frozen=True)
class Sent:
    """What one open page was sent last: the revision, and a digest per part and item."""

    revision: int
    shell: str
    parts: dict[str, str]
    items: dict[str, str] = field(default_factory=dict)
    # Per list part what makes its shape: the seats' ids, the log's rounds and lines, the
    # maze's columns and rows.
    structure: dict[str, Any] = field(default_factory=dict)


def new_token() -> str:
    return secrets.token_urlsafe(9)


def valid_token(text: str | None) -> str | None:
    return text if text and TOKEN.fullmatch(text) else None


# The play area in a page: from its opening marker to its closing one (found with str.find: a
# lazy regex over a 40 KB page took a third of a millisecond).
PLAY_OPEN, PLAY_CLOSE = "<!--p:play-->", "<!--/p:play-->"


def play_span(html: str) -> tuple[int, int] | None:
    """Where the play area (``<!--p:play-->...<!--/p:play-->``) lies in ``html``, or None."""
    start = html.find(PLAY_OPEN)
    end = html.find(PLAY_CLOSE, start) if start >= 0 else -1
    return (start, end + len(PLAY_CLOSE)) if end >= 0 else None


@lru_cache(maxsize=64)
def analysed(markup: str) -> tuple[Play, Sent] | None:
    """The play area in ``markup`` (``<!--p:play-->...<!--/p:play-->``) and its digests, kept per
    process: the pages watching a game without a seat all get the same one at a revision."""
    play = Play.of(markup)
    if play is None:
        return None
    return play, play.sent(play.revision or 0)


# What a page got is kept under its token as the digest of the play area it got, and the play
# area itself (compressed) once under that digest: a page's render only stores it, the digests are
# worked out when the page asks for what changed (and kept per process: watchers share them).
_SEEN: OrderedDict[str, None] = OrderedDict()
# What a page that got one play area (by its key) is sent to show another: the same for every
# page that got the same (the watchers of a game, a player's tabs), so worked out once per
# process (issue 49: a watcher's answer is computed once per revision, not once per page).
_UPDATES: OrderedDict[tuple[str | None, str, int], str] = OrderedDict()
_UPDATES_LOCK = threading.Lock()
KEPT_UPDATES = 256


def play_key(plain: str) -> str:
    """The key of a play area without its forms' tokens (``plain``)."""
    return hashlib.blake2b(plain.encode(), digest_size=12).hexdigest()


def remember(owner: int, token: str, markup: str, key: str | None = None) -> None:
    """Keep what the page ``token`` of user ``owner`` got (``markup``: the play area as
    ``play_span`` finds it, or without its tokens already when ``key`` is given); another
    user's page is never compared with it (its digests would tell whether their hand is the
    same as yours)."""
    plain = markup if key is not None else VOLATILE.sub(r"\1\2", markup)
    key = key or play_key(plain)
    cache = caches[settings.LIVE_PARTS_CACHE]
    cache.set(f"parts:{owner}:{token}", key, SENT_SECONDS)
    if key not in _SEEN:
        cache.add(f"parts:play:{key}", zlib.compress(plain.encode(), 1), SENT_SECONDS)
        _SEEN[key] = None
        while len(_SEEN) > 256:
            _SEEN.popitem(last=False)


def recalled_key(owner: int, token: str | None) -> str | None:
    """The key of the play area the page ``token`` of user ``owner`` got, or None."""
    cache = caches[settings.LIVE_PARTS_CACHE]
    key = cache.get(f"parts:{owner}:{token}") if token is not None else None
    return key if isinstance(key, str) else None


def sent_of(key: str | None) -> Sent | None:
    """The digests of the play area kept under ``key`` (None when it is gone)."""
    if key is None:
        return None
    stored = caches[settings.LIVE_PARTS_CACHE].get(f"parts:play:{key}")
    if not isinstance(stored, bytes):
        return None
    found = analysed(zlib.decompress(stored).decode())
    return found[1] if found else None


def recall(owner: int, token: str | None) -> Sent | None:
    """What the page ``token`` of user ``owner`` got, or None when nothing is known of it."""
    return sent_of(recalled_key(owner, token))


def update_for(before: str | None, plain: str, key: str, shown: int) -> str | None:
    """What a page that got the play area ``before`` (its key) and shows revision ``shown`` is
    sent to show ``plain`` (a play area without its forms' tokens, whose key is ``key``): the
    parts that changed, or the play area whole, as out-of-band swaps. Kept per process under
    the three: every page that got the same asks for the same. None: ``plain`` holds no play
    area."""
    memo = (before, key, shown)
    with _UPDATES_LOCK:
        update = _UPDATES.get(memo)
        if update is not None:
            _UPDATES.move_to_end(memo)
            return update
    analysed_play = analysed(plain)
    if analysed_play is None:
        return None
    play, now = analysed_play
    # The poll element is among the changes: the revision in its URL is new.
    swaps = changes(sent_of(before), play, shown, now)
    update = oob(play.html) if swaps is None else "".join(swaps)
    with _UPDATES_LOCK:
        _UPDATES[memo] = update
        while len(_UPDATES) > KEPT_UPDATES:
            _UPDATES.popitem(last=False)
    return update


def _tokens(markup: str) -> dict[str, str] | None:
    """The forms' token and move key in ``markup`` (one of each: one render's), by field
    name; None when a field holds two values (then the markup is compared as it is)."""
    found: dict[str, str] = {}
    for match in VOLATILE_VALUE.finditer(markup):
        if found.setdefault(match["name"], match["value"]) != match["value"]:
            return None
    return found


VOLATILE_VALUE = re.compile(r'name="(?P<name>csrfmiddlewaretoken|key)" value="(?P<value>[^"]*)"')
EMPTIED = re.compile(r'name="(?P<name>csrfmiddlewaretoken|key)" value=""')


def _with_tokens(update: str, tokens: dict[str, str]) -> str:
    """``update`` (made from a play area without its forms' tokens) with this render's put back."""
    if not tokens:
        return update
    return EMPTIED.sub(lambda m: f'name="{m["name"]}" value="{tokens[m["name"]]}"', update)


def _prepared(found: str) -> tuple[str, str, str, dict[str, str] | None]:
    """The play area as found in a rendered page: without indentation (the page and its updates
    alike), without its forms' tokens too, that one's key, and the tokens."""
    tokens = _tokens(found)
    if tokens is None:  # two tokens of one field: compared as it is
        markup = compact(found)
        plain = VOLATILE.sub(r"\1\2", markup)
        return markup, plain, play_key(plain), None
    plain, key = _plain(VOLATILE.sub(r"\1\2", found))
    return _with_tokens(plain, tokens), plain, key, tokens


@lru_cache(maxsize=64)
def _plain(without_tokens: str) -> tuple[str, str]:
    """A play area without its forms' tokens, without indentation, and its key: kept per process
    for the play areas rendered alike (a watcher's at a revision, a player's page asked again:
    only the tokens differ)."""
    plain = compact(without_tokens)
    return plain, play_key(plain)


def sent_in_parts(html: str, *, owner: int, asked: str | None, shown: int | None) -> str:
    """A rendered page or part (``html``) as it is sent: its play area remembered under a token
    of that page (the one it ``asked`` with when it polls, else a new one); a polling page, which
    shows revision ``shown``, gets only the parts that changed since (the play area whole when
    they cannot say it), all as out-of-band swaps: its poll element swaps nothing itself.

    The play area is compared without its forms' token and move key (new at every render, the
    same for what the page does), and this render's are put back into what is sent."""
    span = play_span(html)
    if span is None:
        return html
    start, end = span
    markup, plain, key, tokens = _prepared(html[start:end])
    update = markup
    token = valid_token(asked) if shown is not None else None
    if shown is not None:
        if tokens is not None:
            changed = update_for(recalled_key(owner, token), plain, key, shown)
            update = _with_tokens(changed, tokens) if changed is not None else markup
        elif (analysed_play := analysed(markup)) is not None:
            play, now = analysed_play
            swaps = changes(recall(owner, token), play, shown, now)
            update = oob(play.html) if swaps is None else "".join(swaps)
    html = html[:start] + update + html[end:]
    token = token or new_token()
    if REVISION.search(markup):  # a game the page follows
        remember(owner, token, plain, key)
    return html.replace(TOKEN_PLACEHOLDER, token)


def oob(html: str, how: str = "true") -> str:
    """An element swapped out of band (its id's element replaced), wrapped in a ``<template>``
    when it is a table's row, cell or head (htmx's way for those)."""
    tag = FIRST_TAG.match(html)
    if tag is None:
        return ""
    name = tag["tag"].lower()
    marked = f'{html[: tag.end()]} hx-swap-oob="{how}"{html[tag.end() :]}'
    return f"<template>{marked}</template>" if name in {"td", "tr", "thead", "tbody"} else marked


def changes(
    sent: Sent | None, play: Play, revision_shown: int | None, now: Sent | None = None
) -> list[str] | None:
    """The out-of-band swaps that turn what a page was sent into ``play`` (whose digests are
    ``now``), or None when only the whole play area will do (nothing remembered, another
    revision, another shell)."""
    if sent is None or sent.revision != revision_shown or sent.shell != play.shell:
        return None
    if set(sent.parts) != set(play.parts):
        return None
    now = now or play.sent(sent.revision)
    swaps: list[str] = []
    for key, html in play.parts.items():
        if now.parts[key] == sent.parts[key]:
            continue
        if not now.parts[key] or not sent.parts[key]:
            return None  # a part with no element now, or none before: nothing to swap
        list_swaps = _LISTS[key](sent, now, html) if key in _LISTS else None
        swaps.extend(list_swaps if list_swaps is not None else [oob(html)])
    return swaps


def _changed_items(sent: Sent, now: Sent, items: dict[str, str]) -> list[str]:
    return [oob(html) for key, html in items.items() if sent.items.get(key) != now.items[key]]


def _seats(sent: Sent, now: Sent, html: str) -> list[str] | None:
    if sent.structure.get("seats") != now.structure["seats"]:
        return None  # players came or went: the strip whole
    return _changed_items(sent, now, {m["id"]: m[0] for m in SEAT.finditer(html)})


def _items_of(key: str, pattern: re.Pattern[str]):
    """A list part whose items are swapped one by one (the part whole when its shape changed)."""

    def changed(sent: Sent, now: Sent, html: str) -> list[str] | None:
        if sent.structure.get(key) != now.structure[key]:
            return None
        return _changed_items(sent, now, {m["id"]: m[0] for m in pattern.finditer(html)})

    return changed


def _log(sent: Sent, now: Sent, html: str) -> list[str] | None:
    """New lines at the top of their round, lines gone (the log keeps the newest), lines changed;
    the log whole when its rounds changed."""
    before, after = sent.structure.get("log"), now.structure["log"]
    if not isinstance(before, tuple) or before[0] != after[0]:
        return None
    old_groups, new_groups = dict(before[1]), dict(after[1])
    if list(old_groups) != list(new_groups):
        return None
    lines = {m["id"]: m[0] for m in LINE.finditer(html)}
    old_ids = {key for ids in old_groups.values() for key in ids}
    swaps: list[str] = []
    for group, ids in new_groups.items():
        kept = [key for key in old_groups[group] if key in lines]
        added = ids[: len(ids) - len(kept)]
        if list(ids[len(added) :]) != kept or old_ids.intersection(added):
            return None  # not only new lines at the top: the log whole
        if added:
            inserted = "".join(lines[key] for key in added)
            rendered = mark_safe(inserted)  # noqa: S308 - lines of the rendered page
            swaps.append(format_html('<ol hx-swap-oob="afterbegin:#{}">{}</ol>', group, rendered))
        gone = [key for key in old_groups[group] if key not in lines]
        swaps += [format_html('<li id="{}" hx-swap-oob="delete"></li>', key) for key in gone]
        swaps += [oob(lines[key]) for key in kept if sent.items.get(key) != now.items[key]]
    return swaps


def _maze(sent: Sent, now: Sent, html: str) -> list[str] | None:
    """The cells that changed; when the maze grew, its new columns and rows too (a maze that
    shrank or moved, a new round's, is sent whole)."""
    before, after = sent.structure.get("maze"), now.structure["maze"]
    if not isinstance(before, tuple) or not before[0] or not before[1]:
        return None
    (old_columns, old_rows), (columns, rows) = before, after
    west, east = _grown(old_columns, columns)
    north, south = _grown(old_rows, rows)
    if west is None or north is None:
        return None
    maze = Maze.parse(html)
    swaps = _new_columns(maze, old_rows, west, east or [])
    if north:
        swaps.append(_template("tbody", "afterbegin:#mzb", "".join(maze.rows[y] for y in north)))
    if south:
        swaps.append(_template("tbody", "beforeend:#mzb", "".join(maze.rows[y] for y in south)))
    old = {(x, y) for x in old_columns for y in old_rows}
    return swaps + [
        swap
        for at, cell in maze.cells.items()
        if at in old and (swap := _cell(sent, now, at, cell))
    ]


def _grown(old: tuple[int, ...], new: tuple[int, ...]) -> tuple[list[int] | None, list[int] | None]:
    """What ``new`` (columns or rows) adds before and after ``old``; (None, None) when it is not
    ``old`` grown at its ends."""
    before = [n for n in new if n < old[0]]
    after = [n for n in new if n > old[-1]]
    if (*before, *old, *after) != new:
        return None, None
    return before, after


def _new_columns(maze: Maze, rows: tuple[int, ...], west: list[int], east: list[int]) -> list[str]:
    """The head, and in each row the cells of the columns added on either side."""
    if not west and not east:
        return []
    swaps = [oob(maze.head)]
    for y in rows:
        if west:
            cells = "".join(maze.cells[(x, y)] for x in west)
            swaps.append(_template("tr", f"afterend:#mzl{y}", cells))
        if east:
            cells = "".join(maze.cells[(x, y)] for x in east)
            swaps.append(_template("tr", f"beforeend:#mzr{y}", cells))
    return swaps


def _cell(sent: Sent, now: Sent, at: tuple[int, int], cell: str) -> str:
    """A cell sent again when it changed; only its name when only its neighbours did."""
    if sent.items.get(_cell_id(at)) != now.items[_cell_id(at)]:
        return oob(cell)
    if sent.items.get(_name_id(at)) != now.items[_name_id(at)]:
        name = CELL_NAME.search(cell)
        return oob(name[0]) if name else oob(cell)
    return ""


def _template(tag: str, how: str, content: str) -> str:
    """Table rows or cells put in at ``how`` ("afterend:#mzl3"): htmx inserts the content."""
    rendered = mark_safe(content)  # noqa: S308 - rows or cells of the rendered page
    return format_html('<template><{0} hx-swap-oob="{1}">{2}</{0}></template>', tag, how, rendered)


_LISTS = {
    "seats": _seats,
    # The players' cards and the ledger's rows: only those that changed (the mover's, mostly).
    "cards": _items_of("cards", CARD),
    "ledger": _items_of("ledger", LEDGER_ROW),
    "log": _log,
    "maze": _maze,
}
