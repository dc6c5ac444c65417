"""A pytest plugin: each failure is named, with its traceback, the moment it happens, not only in
the summary at the end of a ten-minute run. With `make test`'s several processes pytest-xdist
hands every report to the controller, which prints it; the workers print nothing themselves.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    config = _state.get("config")
    if not report.failed or config is None or hasattr(config, "workerinput"):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    stage = "" if report.when == "call" else f" (in {report.when})"
    reporter.write_line("")
    reporter.write_sep("-", f"FAILED {report.nodeid}{stage}", red=True, bold=True)
    reporter.write_line(report.longreprtext)
    reporter.write_sep("-", "the run goes on", red=True)


_state: dict = {}


def pytest_configure(config):
    _state["config"] = config
