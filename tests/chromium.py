"""The browsers of the browser tests (tests/e2e, tests/production): Debian's Chromium packages,
since Playwright's own download is not possible here.

Most tests run in ``chromium-headless-shell``, Chromium's headless browser (what Playwright itself
launches for headless tests): the same Blink and V8 as the full browser without its windowing
layers. A whole game played by three browsers took 26 CPU seconds of the machine in it against 36
in the full ``chromium``, and the browser tests a third less CPU in all.

The shell lacks two things the site uses: web push (no ``PushManager``, so the page never offers
notifications) and a service worker that caches pages (the page crashes). Tests that need them
are marked ``full_chromium`` and get the full browser, launched once per test process when the
first of them asks (the fixtures below, which the two conftests import).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHELL = Path(os.environ.get("CHROMIUM_SHELL_PATH", "/usr/bin/chromium-headless-shell"))
FULL = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PACKAGES = {SHELL: "chromium-headless-shell", FULL: "chromium"}


def launch_args(base: dict, executable: Path) -> dict:
    """pytest-playwright's launch arguments, for ``executable``."""
    if not executable.exists():
        pytest.fail(
            f"{executable} is missing: apt-get install -y {PACKAGES.get(executable, 'chromium')} "
            "(.ci/run does this)"
        )
    return {**base, "executable_path": str(executable), "headless": True, "args": ARGS}


# The fixtures: a browser tests' conftest imports these three names.


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return launch_args(browser_type_launch_args, SHELL)


@pytest.fixture(scope="session")
def full_chromium(browser_type, browser_type_launch_args):
    browser = browser_type.launch(**launch_args(browser_type_launch_args, FULL))
    yield browser
    browser.close()


@pytest.fixture
def browser(browser, request):
    """pytest-playwright's browser (the shell), or the full one for a ``full_chromium`` test."""
    if request.node.get_closest_marker("full_chromium") is not None:
        return request.getfixturevalue("full_chromium")
    return browser
