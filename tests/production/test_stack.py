"""The suite's own watchmen can fail, and beat really drives the worker.

The controls check that what fails the other tests is seen at all: a plain-text line or an
error's line in a process's output, a 5xx answer passing the proxy. The last test (run after
all the others: ``after_the_rest``) waits for beat's minute sweep to be carried out by the worker.
"""

from __future__ import annotations

import http.client
import json
import urllib.request
from urllib.error import HTTPError

import pytest

from .stack import LogCheck, line_problems, wait_until


def test_a_plain_line_or_an_error_in_the_output_is_a_problem(tmp_path):
    """Control for the log check: stderr takes JSON objects only; ERROR and CRITICAL lines fail
    from either stream; INFO lines and plain stdout (a command's report) pass."""
    info = json.dumps({"level": "INFO", "logger": "x", "message": "fine"})
    error = json.dumps({"level": "ERROR", "logger": "django.request", "message": "boom"})
    assert line_problems(info, is_stderr=True) == []
    assert line_problems("Booting worker with pid: 1", is_stderr=True) == ["not a JSON object"]
    assert line_problems("[1, 2]", is_stderr=True) == ["not a JSON object"]
    assert line_problems(error, is_stderr=True) == ["level ERROR"]
    assert line_problems(error, is_stderr=False) == ["level ERROR"]
    assert line_problems("Operations to perform:", is_stderr=False) == []

    check = LogCheck()
    check.watch_text("command", stderr=f"{info}\nTraceback (most recent call last):\n", stdout="",
                     folder=tmp_path)  # fmt: skip
    [problem] = check.problems()
    assert "command stderr: not a JSON object: Traceback" in problem
    assert check.problems() == []  # each line is reported once


def test_the_proxy_records_every_answer_by_upstream(stack):
    """Control for the 5xx check: the proxy records each answer's status and server (the live
    path goes to uvicorn, anything else to gunicorn), and a 5xx among them is a problem."""
    with pytest.raises(HTTPError) as missing:
        urllib.request.urlopen(f"{stack.origin}/no-such-page/", timeout=30)  # noqa: S310
    assert missing.value.code == 404
    [answer] = stack.proxy.to("gunicorn", r"^/no-such-page/$")
    assert (answer.method, answer.status) == ("GET", 404)
    # A stranger asks for the stream of a game that does not exist (redirects not followed).
    connection = http.client.HTTPConnection("127.0.0.1", stack.proxy.port, timeout=30)
    try:
        connection.request("GET", "/games/999999/live/")
        status = connection.getresponse().status  # the body is not read: a stream may last
    finally:
        connection.close()
    [answer] = stack.proxy.to("uvicorn", r"^/games/999999/live/$")
    assert answer.status == status < 500

    # What a 5xx would do: the stack reports it once (and this test then has nothing to answer).
    stack.proxy._record("GET", "/control/", 502, "gunicorn")
    assert "gunicorn answered 502 to GET /control/" in stack.problems()
    assert stack.problems() == []


@pytest.mark.after_the_rest
def test_beat_has_the_worker_sweep_every_minute(stack):
    """Beat sends the minute sweep (deadlines, digests, the outbox) to this run's queue and the
    worker carries it out: its task line is in the worker's log within ~a minute of the start."""
    worker_log = stack.processes["worker"].stderr_path

    def swept():
        for line in worker_log.read_text().splitlines():
            record = json.loads(line) if line.startswith("{") else {}
            if record.get("task") == "games.tasks.sweep" and record.get("state") == "SUCCESS":
                return record
        return None

    record = wait_until(swept, timeout=150, what="the worker's sweep sent by beat", every=1)
    assert record["logger"] == "saboteur.task"
