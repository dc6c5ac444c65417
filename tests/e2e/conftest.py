import os
from pathlib import Path

import pytest
from django.core.cache import cache
from playwright.sync_api import sync_playwright

# Playwright's sync API keeps an event loop in this thread; the Django calls made here
# (fixtures, outbox) are synchronous and safe. The test script sets this as well.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class CspWatcher:
    """Collects the browser's CSP violation reports from the console."""

    def __init__(self):
        self.violations: list[str] = []

    def attach(self, page):
        page.on("console", self._on_console)
        return page

    def _on_console(self, message):
        if "Content Security Policy" in message.text:
            self.violations.append(message.text)


@pytest.fixture
def csp_watcher():
    return CspWatcher()


@pytest.fixture
def new_page(browser, csp_watcher):
    contexts = []

    def make():
        context = browser.new_context()
        context.set_default_timeout(15_000)
        contexts.append(context)
        return csp_watcher.attach(context.new_page())

    yield make
    for context in contexts:
        context.close()
