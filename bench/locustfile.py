"""Locust players for ``bench/cluster.sh`` (not a test; loopback only).

Each simulated player has a logged-in session made by ``bench/cluster.py prepare`` (read from
``CLUSTER_PLAYERS``, a JSON file) and talks to one of the web instances in ``CLUSTER_HOSTS``
(players alternate between them). Players sit at tables of ``CLUSTER_TABLE_SIZE``: the first
creates a game through the lobby's form, the others join it, the first starts it. Then every
player polls ``/games/<pk>/poll/``, now and then chats (sometimes naming another player, which
emails them), and on its turn plays a random legal move found on its own page, as a person
without JavaScript would: pick a playable card in the hand (its link), then one of the
highlighted maze positions or one of the offered choices, else pass. A finished game is followed
by a new one at the same table.

The moves each player was told were made (200 answers) are written to ``CLUSTER_ACKS`` at the
end, for ``bench/cluster.py check``.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
from html.parser import HTMLParser
from itertools import count

import gevent
from locust import HttpUser, between, events, task

PLAYERS = json.loads(open(os.environ["CLUSTER_PLAYERS"]).read())  # noqa: SIM115
HOSTS = os.environ["CLUSTER_HOSTS"].split(",")
TABLE_SIZE = int(os.environ.get("CLUSTER_TABLE_SIZE", "4"))
CSRF = PLAYERS["csrf"]
REVISION = re.compile(r"/poll/\?v=(\d+)")
GAME_URL = re.compile(r"/games/(\d+)/$")
NUMBERS = count()
BOARD_FIELDS = {"version", "key", "csrfmiddlewaretoken", "kind", "card", "turned"}
TABLES: dict[int, dict] = {}
ACKED: dict[str, list[str]] = {}


class Page(HTMLParser):
    """The parts of a game page a player acts on: forms with their fields, cards, positions."""

    def __init__(self, text: str):
        super().__init__()
        self.forms: list[dict] = []
        self.cards: list[str] = []
        self.spots: list[str] = []
        self._form: dict | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._form = {"action": a.get("action", ""), "fields": {}, "options": {}}
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and a.get("name"):
            if a.get("type") in ("radio", "checkbox"):
                self._form["options"].setdefault(a["name"], []).append(a.get("value", ""))
            else:
                self._form["fields"][a["name"]] = a.get("value", "")
        elif tag == "a" and "data-card" in a and "hand-card" in a.get("class", ""):
            self.cards.append(a["data-card"])
        elif tag == "a" and "data-at" in a:
            self.spots.append(a["data-at"])

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None

    def moves(self) -> list[dict]:
        return [f for f in self.forms if "/move/" in f["action"]]


class Player(HttpUser):
    host = HOSTS[0]  # each player then picks its own instance (on_start)
    wait_time = between(0.25, 0.75)

    def on_start(self):
        self.number = next(NUMBERS)
        me = PLAYERS["players"][self.number % len(PLAYERS["players"])]
        self.host_url = HOSTS[self.number % len(HOSTS)]
        self.client.base_url = self.host_url
        self.client.cookies.set("sessionid", me["session"])
        self.client.cookies.set("csrftoken", CSRF)
        self.name_of = me["name"]
        self.table = self.number // TABLE_SIZE
        self.seat = self.number % TABLE_SIZE
        self.rng = random.Random(self.number)  # noqa: S311 - reproducible play, not security
        self.game_id = None
        self.generation = -1
        self.revision = -1
        self.mine = self.finished = False

    # -- the lobby -------------------------------------------------------------------------

    def post(self, path, fields, name, htmx=False):
        headers = {"X-CSRFToken": CSRF, "Referer": self.host_url + "/"}
        if htmx:
            headers["HX-Request"] = "true"
        return self.client.post(
            path, data=fields, headers=headers, name=name, allow_redirects=False
        )

    def sit_down(self) -> bool:
        table = TABLES.setdefault(self.table, {"generation": 0, "game": None, "joined": 0})
        if self.seat == 0 and table["game"] is None:
            fields = {
                "name": f"Cluster table {self.table}.{table['generation']}",
                "ruleset": "base",
                "max_seats": TABLE_SIZE,
                "visibility": "open",
                "turn_limit": str(3600),
            }
            response = self.post("/games/new/", fields, "create")
            match = GAME_URL.search(response.headers.get("Location", ""))
            if response.status_code != 302 or not match:
                return False
            table["game"], table["joined"] = int(match.group(1)), 0
        if table["game"] is None or table["generation"] == self.generation:
            return False  # wait for the table's next game
        if self.seat != 0:
            response = self.post(f"/games/{table['game']}/join/", {}, "join")
            if response.status_code != 302:
                return False
            table["joined"] += 1
        else:
            while table["joined"] < TABLE_SIZE - 1:
                gevent.sleep(0.2)
            response = self.post(f"/games/{table['game']}/start/", {}, "start")
            if response.status_code != 302:
                return False
        self.game_id, self.generation = table["game"], table["generation"]
        self.open_page()
        return True

    def open_page(self):
        response = self.client.get(f"/games/{self.game_id}/", name="page")
        self.read(response.text)

    def read(self, text: str) -> None:
        match = REVISION.search(text)
        if match:
            self.revision = int(match.group(1))
        self.page = Page(text)
        self.mine = "<strong>Your decision.</strong>" in text
        self.finished = "The game is over." in text

    # -- playing ---------------------------------------------------------------------------

    @task
    def turn(self):
        if self.game_id is None and not self.sit_down():
            return
        if self.finished:
            return self.next_game()
        if self.mine:
            return self.play()
        response = self.client.get(
            f"/games/{self.game_id}/poll/?v={self.revision}",
            headers={"HX-Request": "true"},
            name="poll",
        )
        if response.status_code == 200:
            self.read(response.text)
        elif self.rng.random() < 0.1:
            self.chat()

    def next_game(self):
        table = TABLES[self.table]
        if self.seat == 0 and table["generation"] == self.generation:
            table["generation"] += 1
            table["game"] = None
        self.game_id = None

    def chat(self):
        others = [p["name"] for p in PLAYERS["players"] if p["name"] != self.name_of]
        text = "Dig east!" if self.rng.random() < 0.5 else f"@{self.rng.choice(others)} your go"
        self.post(f"/games/{self.game_id}/chat/", {"text": text}, "chat", htmx=True)

    def play(self):
        forms = self.page.moves()
        decisions = [f for f in forms if f["fields"].get("kind") in ("pick-gold", "steal")]
        if decisions:
            return self.submit(self.rng.choice(decisions)["fields"])
        if self.page.cards and self.rng.random() < 0.85:
            card = self.rng.choice(self.page.cards)
            turned = self.rng.choice("01")
            response = self.client.get(
                f"/games/{self.game_id}/?part=play&card={card}&turned={turned}",
                headers={"HX-Request": "true"},
                name="page (card picked)",
            )
            picked = Page(response.text)
            # The maze's form (kind and card, the position comes from a highlighted spot) and
            # the action's choices (a player, a tool or a goal as extra fields).
            board = [
                f
                for f in picked.moves()
                if "kind" in f["fields"] and set(f["fields"]) <= BOARD_FIELDS
            ]
            choices = [
                f
                for f in picked.moves()
                if f["fields"].get("kind") == "action"
                and not set(f["fields"]) <= BOARD_FIELDS
                and "at" not in f["fields"]
            ]
            if picked.spots and board:
                fields = dict(board[0]["fields"], at=self.rng.choice(picked.spots))
                return self.submit(fields)
            if choices:
                return self.submit(self.rng.choice(choices)["fields"])
        passing = [f for f in forms if f["fields"].get("kind") == "pass"]
        if passing:
            fields = dict(passing[0]["fields"])
            options = passing[0]["options"].get("discard", [])
            if options:
                fields["discard"] = self.rng.choice(options)
            return self.submit(fields)
        self.open_page()  # nothing to do after all: look again

    def submit(self, fields):
        fields = {k: v for k, v in fields.items() if k != "csrfmiddlewaretoken"}
        fields["key"] = secrets.token_hex(8)
        response = self.post(f"/games/{self.game_id}/move/", fields, "move", htmx=True)
        if response.status_code == 200:
            ACKED.setdefault(str(self.game_id), []).append(fields["key"])
            self.read(response.text)
        else:
            self.open_page()


@events.quitting.add_listener
def _write_acknowledged(environment, **kwargs):
    with open(os.environ["CLUSTER_ACKS"], "w") as file:
        json.dump(ACKED, file)
