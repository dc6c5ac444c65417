"""Reply addresses (issue 40): ``reply+<token>@REPLY_DOMAIN`` on every game email, naming its
reader, the game and the decision it was sent for (the game's version then).

The token is 13 bytes (user, game, version: three big-endian 32-bit numbers; then 1 if the email
numbered moves to choose by number, else 0) and the first 10 bytes of their HMAC-SHA256 under
the site's secret key (``salted_hmac``), in lower-case base32 without padding: 37 characters,
so ``reply+`` and it fit the 64 of an address's local part, and
a provider that lower-cases (or upper-cases) the address changes nothing. It says nothing of the
game to whoever sees it and cannot be forged or altered without the secret key. It expires with
the game: ``REPLY_GRACE`` after the game is over (for a "well played" after the end), never
while it runs (a slow game's emails stay answerable); a deleted game's tokens name nothing.
"""

from __future__ import annotations

import base64
import re
import struct
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

SALT = "games.reply"
PREFIX = "reply+"
MAC_BYTES = 10
REPLY_GRACE = timedelta(days=7)
TOKEN = re.compile(r"[a-z2-7]{37}")
PAYLOAD = struct.Struct(">IIIB")


@dataclass(frozen=True)
class ReplyTo:
    user_id: int
    game_id: int
    version: int  # the game's version when the email was made: its decision
    moves: bool = False  # the email numbered moves (and the hand): numbers mean them


def _mac(payload: bytes) -> bytes:
    return salted_hmac(SALT, payload, algorithm="sha256").digest()[:MAC_BYTES]


def reply_token(*, user_id: int, game_id: int, version: int, moves: bool = False) -> str:
    payload = PAYLOAD.pack(user_id, game_id, version, int(moves))
    return base64.b32encode(payload + _mac(payload)).decode().rstrip("=").lower()


def read_reply_token(token: str) -> ReplyTo | None:
    """The token's reader, game and version, or None when it is not one of the site's."""
    token = token.lower()
    if not TOKEN.fullmatch(token):
        return None
    raw = base64.b32decode(token.upper() + "===")
    payload, mac = raw[: PAYLOAD.size], raw[PAYLOAD.size :]
    if not constant_time_compare(mac, _mac(payload)):
        return None
    user_id, game_id, version, moves = PAYLOAD.unpack(payload)
    if moves > 1:
        return None
    found = ReplyTo(user_id, game_id, version, bool(moves))
    if reply_token(user_id=user_id, game_id=game_id, version=version, moves=found.moves) != token:
        return None  # one spelling per token (the last character's unused bits are zero)
    return found


def reply_address(*, user_id: int, game_id: int, version: int, moves: bool = False) -> str | None:
    """The Reply-To of a game email to this reader (``moves``: it numbers moves to choose), or
    None without a ``REPLY_DOMAIN``."""
    if not settings.REPLY_DOMAIN:
        return None
    token = reply_token(user_id=user_id, game_id=game_id, version=version, moves=moves)
    return f"{PREFIX}{token}@{settings.REPLY_DOMAIN}"


def token_in(address: str) -> str | None:
    """The token of a reply address at ``REPLY_DOMAIN`` (any case), or None."""
    local, _at, domain = address.strip().strip("<>").rpartition("@")
    if not settings.REPLY_DOMAIN or domain.lower() != settings.REPLY_DOMAIN:
        return None
    if not local.lower().startswith(PREFIX):
        return None
    return local[len(PREFIX) :]


def expired(game) -> bool:
    """Whether the game's reply addresses no longer work (``REPLY_GRACE`` after its end)."""
    ended = game.finished_at
    if game.status in ("finished", "aborted"):
        return ended is None or timezone.now() - ended > REPLY_GRACE
    return False
