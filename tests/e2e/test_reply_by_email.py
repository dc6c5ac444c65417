"""Answering the emails, end to end under `make run`'s own stack (issue 40, point 5): scripts/run.sh
runs as a player would start it (runserver, the Celery worker and beat, the local SMTP server for
replies, SQLite, mail written to .run/mail/). The demo game's one email, its player to move's
"your turn" (issue 47), is in the file run.sh names; a reply to it through the local SMTP server
makes the move; the next player gets their turn email; their reply with a message posts it to the
chat, and the table, open in a browser, sees it live."""

from __future__ import annotations

import re
import signal
import smtplib
import subprocess
import time
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.test_make_run import clean_env, copy_of_the_tree, free_port, serves, wait_until

SEPARATOR = b"\n" + b"-" * 79 + b"\n"


def sent_mail(folder: Path) -> list[EmailMessage]:
    """Every email the file backend wrote, oldest first."""
    messages = []
    for path in sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime):
        messages += sent_mail_in(path)
    return messages


def sent_mail_in(path: Path) -> list[EmailMessage]:
    """The emails of one file the file backend wrote."""
    chunks = path.read_bytes().split(SEPARATOR)
    parse = BytesParser(policy=policy.default).parsebytes
    return [parse(chunk.lstrip()) for chunk in chunks if chunk.strip()]


def turn_emails(folder: Path) -> list[EmailMessage]:
    return [m for m in sent_mail(folder) if str(m["Subject"]).startswith("Your turn in")]


def body_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def send_reply(port: int, to_email: EmailMessage, text: str) -> None:
    reply = EmailMessage()
    reply["From"] = str(to_email["To"])
    reply["To"] = str(to_email["Reply-To"])
    reply["Subject"] = "Re: " + str(to_email["Subject"])
    quoted = "\n".join("> " + line for line in body_of(to_email).splitlines()[:20])
    reply.set_content(f"{text}\n\nOn Fri, 4 Dec 2026 at 10:00, Saboteur wrote:\n{quoted}\n")
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.send_message(reply)


@pytest.mark.slow
def test_a_reply_makes_the_move_and_another_talks_to_the_table_live(tmp_path, browser):
    tree = copy_of_the_tree(tmp_path)
    port, smtp_port = free_port(), free_port()
    env = clean_env()
    env.update(
        RUN_ADDR=f"127.0.0.1:{port}",
        INBOUND_SMTP_ADDR=f"127.0.0.1:{smtp_port}",
        PYTHONUNBUFFERED="1",
    )
    site = f"http://127.0.0.1:{port}"
    output = tmp_path / "run.out"
    mail = tree / ".run" / "mail"
    with output.open("w") as out:
        script = subprocess.Popen(
            ["bash", "scripts/run.sh"], cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
        )  # fmt: skip
    context = None
    try:
        wait_until(lambda: serves(f"{site}/health/"), "the site serves", 240, output, script)
        inbound = tree / ".run" / "logs" / "inbound.log"
        wait_until(
            lambda: inbound.exists() and "Taking replies" in inbound.read_text(),
            "the local SMTP server listens", 60, inbound,
        )  # fmt: skip
        # The demo game's player to move (run.sh says who) has the demo's one email, their
        # "your turn" of now, in the file run.sh names: the one a newcomer answers (issue 47).
        printed = output.read_text()
        who = re.search(r"it is (\w+)'s turn", printed)[1]
        mover = f"{who}@example.com"
        named = re.search(r"\"Your turn\" email, to answer by reply .*: (\S+)$", printed, re.M)
        assert named is not None, printed
        [first] = sent_mail(mail)
        [in_file] = sent_mail_in(tree / named[1])
        assert first["Message-ID"] == in_file["Message-ID"]
        assert str(first["To"]) == mover and str(first["Subject"]).startswith("Your turn in")
        assert re.fullmatch(r"reply\+[a-z2-7]{37}@localhost", str(first["Reply-To"]))
        assert "Reply to this email with the number of a move" in body_of(first)
        # The first move listed: a move's number ("1"), or, when the demo's deal gave the mover
        # no action card, a pass by its card's number in the hand ("pass 2").
        listed = re.search(r"^- ((?:pass )?\d+)\. ", body_of(first), re.M)
        assert listed is not None, body_of(first)

        before = len(turn_emails(mail))
        send_reply(smtp_port, first, listed[1])
        # The move is made: the next player's turn email goes out, and the mover gets an answer.
        nxt = wait_until(
            lambda: [m for m in turn_emails(mail)[before:] if str(m["To"]) != mover],
            "the next player's turn email", 120, output,
        )[-1]  # fmt: skip
        answer = wait_until(
            lambda: [m for m in sent_mail(mail) if str(m["Subject"]).startswith("Your reply")],
            "the answer to the reply", 60, output,
        )[-1]  # fmt: skip
        assert str(answer["To"]) == mover and "Done in" in body_of(answer)

        # The table, open in a browser, sees the next player's emailed message live.
        context = browser.new_context()
        context.set_default_timeout(20_000)
        page = context.new_page()
        page.goto(f"{site}/accounts/login/")
        page.get_by_label("Email").fill(mover)
        page.get_by_label("Password").fill("saboteur-demo")
        page.get_by_role("button", name="Sign In").click()
        page.wait_for_url(f"{site}/")
        game_link = re.search(r"Open the game: (\S+)", body_of(nxt))[1]
        page.goto(game_link)
        chat = page.locator("#chat")
        expect(chat).to_be_visible()
        words = f"Hello from my inbox {int(time.time())}"
        send_reply(smtp_port, nxt, words)
        expect(chat).to_contain_text(words, timeout=30_000)
    finally:
        if context is not None:
            context.close()
        script.send_signal(signal.SIGINT)
        try:
            script.wait(timeout=60)
        except subprocess.TimeoutExpired:
            script.kill()
