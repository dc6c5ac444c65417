"""A small bot for the Saboteur site's public API (docs/api.md): it starts a practice game against
the site's bots and plays it to the end, choosing at random among the legal moves.

Standard library and httpx only. Make a token with the scope "play" (or "bot" for a bot
account) on your profile's API tokens page, then:

    python examples/bot.py --url http://127.0.0.1:8000 --token sab_...

Every decision is read from the API (``/legal``: the moves allowed now, at the game's version)
and sent with that version and an idempotency key, so that a retried request is made once.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid

import httpx


def play_practice(client: httpx.Client, *, bots: int = 2, rounds: int = 1, pause: float = 0.2,
                  limit: float = 600.0, rng: random.Random | None = None) -> dict:  # fmt: skip
    """Start a practice game and play it to its end; returns the finished game."""
    rng = rng or random.Random()  # noqa: S311 (choosing a move, not a secret)
    made = client.post("/api/v1/games/practice", json={"bots": bots, "rounds": rounds})
    made.raise_for_status()
    game_id = made.json()["id"]
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        game = client.get(f"/api/v1/games/{game_id}").json()
        if game["status"] != "running":
            return game
        legal = client.get(f"/api/v1/games/{game_id}/legal").json()
        if not legal["moves"]:
            time.sleep(pause)  # the site's bots are thinking
            continue
        move = rng.choice(legal["moves"])
        body = {"move": move, "version": legal["version"], "key": uuid.uuid4().hex}
        answer = client.post(f"/api/v1/games/{game_id}/moves", json=body)
        if answer.status_code == 429:
            time.sleep(float(answer.headers.get("Retry-After", "1")))
        elif answer.status_code not in (200, 409):  # 409: someone moved first; look again
            raise RuntimeError(f"move refused: {answer.status_code} {answer.text}")
    raise TimeoutError(f"game {game_id} did not end within {limit} seconds")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    headers = {"Authorization": f"Bearer {args.token}"}
    with httpx.Client(base_url=args.url, headers=headers, timeout=30) as client:
        game = play_practice(client, bots=args.bots, rounds=args.rounds)
    print(f"game {game['id']} is {game['status']}")
    return 0 if game["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
