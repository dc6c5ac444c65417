"""The page shown when a page cannot load tells the two cases apart (issue 35, point 2): the
browser offline ("You are offline"), or the network up and the site not answering ("The site is
not answering": `make run`'s server stopped, a restart). In the second case it asks again every
few seconds and reloads the page by itself when the site is back.

The site runs here in a server thread of the test's own on a fixed port, so that the test can
stop it (the browser's connections are refused, as when `make run` has stopped) and start it
again at the same address (the service worker belongs to that origin).
"""

from __future__ import annotations

import re
import socket
from contextlib import contextmanager

import pytest
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.servers.basehttp import ThreadedWSGIServer
from django.test.testcases import LiveServerThread
from playwright.sync_api import expect

from .test_game_play import WAIT
from .test_installable import controlled

pytestmark = pytest.mark.django_db(transaction=True)

# The page retries every 5 s; a loaded machine gets some slack on top.
RETRY_WAIT = 30_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server(ThreadedWSGIServer):
    """Django's test server, which can also drop the connections it has open: stopping it
    otherwise leaves the browser's keep-alive connections served by their threads, where a
    stopped `make run` leaves nothing."""

    def __init__(self, *args, **kwargs):
        # The same port again after a stop (the sockets of the first one are in TIME_WAIT).
        super().__init__(*args, **{**kwargs, "allow_reuse_address": True})
        self.connections = []

    def get_request(self):
        connection, address = super().get_request()
        self.connections.append(connection)
        return connection, address

    def drop_connections(self):
        for connection in self.connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ServerThread(LiveServerThread):
    server_class = Server

    def terminate(self):
        if hasattr(self, "httpd"):
            self.httpd.drop_connections()
        super().terminate()


@contextmanager
def site_on(port: int):
    """The site served on 127.0.0.1:``port`` until the block ends (then connections are
    refused, and those open are closed)."""
    server = ServerThread("127.0.0.1", StaticFilesHandler, port=port)
    server.daemon = True
    server.start()
    server.is_ready.wait(timeout=30)
    if server.error:
        raise server.error
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return True
    return False


def test_a_stopped_site_is_not_answering_and_the_page_comes_back_by_itself_offline_is_offline(
    new_page, settings
):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    port = free_port()
    page = new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda m: "Content Security Policy" in m.text and errors.append(m.text),
    )
    offline, silent = page.get_by_test_id("offline"), page.get_by_test_id("not-answering")
    sign_in = page.get_by_role("button", name="Sign In")

    with site_on(port) as origin:
        login = f"{origin}/accounts/login/"
        page.goto(login)
        controlled(page)  # the service worker is installed (offline page cached) and in charge
        expect(sign_in).to_be_visible()
    assert refused(port)

    # The network is up (the browser is online), the server is gone.
    page.goto(login)
    expect(silent).to_be_visible(timeout=WAIT)
    expect(offline).to_be_hidden()
    expect(silent.get_by_role("heading")).to_have_text("The site is not answering")
    expect(page).to_have_title("The site is not answering · Saboteur")
    assert page.evaluate("navigator.onLine") is True
    assert page.evaluate("document.body.dataset.state") == "not-answering"
    expect(silent.get_by_role("link", name="Try again")).to_have_attribute("href", login)
    assert page.url == login  # shown at the address of the page that failed

    # The server comes back: the page notices by itself and loads the login page.
    with site_on(port):
        expect(sign_in).to_be_visible(timeout=RETRY_WAIT)
        expect(page).not_to_have_title(re.compile("not answering"))
        assert page.url == login

        # The browser offline, the server up: "You are offline".
        page.context.set_offline(True)
        try:
            page.goto(login)
            expect(offline).to_be_visible(timeout=WAIT)
            expect(silent).to_be_hidden()
            expect(page).to_have_title("You are offline · Saboteur")
            assert page.evaluate("document.body.dataset.state") == "offline"
        finally:
            page.context.set_offline(False)
        # Back online: the page checks at once and loads the login page again.
        expect(sign_in).to_be_visible(timeout=RETRY_WAIT)
    assert errors == [], errors


def test_the_offline_page_opened_at_its_own_address_stays_put(new_page, live_server):
    """/offline/ itself (what the service worker caches) has no failed page to reload: its script
    stops at once instead of checking and reloading it in a loop while the site answers. Had it
    gone on, it would have set the body's data-state before the page's load event."""
    page = new_page()
    page.goto(f"{live_server.url}/offline/")
    expect(page.get_by_test_id("offline")).to_be_visible()
    expect(page.get_by_test_id("not-answering")).to_be_hidden()
    assert page.evaluate("document.body.dataset.state") is None
