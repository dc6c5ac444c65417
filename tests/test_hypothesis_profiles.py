"""HYPOTHESIS_PROFILE picks the Hypothesis profile of a run (tests/conftest.py), and the run's
header says which one it used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest

from tests.conftest import HYPOTHESIS_EXAMPLES, hypothesis_profile, scaled_examples

ROOT = Path(__file__).resolve().parent.parent


def test_the_variable_names_the_profile():
    for name in HYPOTHESIS_EXAMPLES:
        assert hypothesis_profile({"HYPOTHESIS_PROFILE": name}) == name
    with pytest.raises(pytest.UsageError, match="choose one of dev, ci, thorough"):
        hypothesis_profile({"HYPOTHESIS_PROFILE": "fast"})


def test_this_run_uses_the_profile_it_was_given(request):
    import tests.conftest

    # The conftest pytest loaded is the module the tests import scaled_examples from.
    loaded = [
        plugin
        for plugin in request.config.pluginmanager.get_plugins()
        if getattr(plugin, "__file__", None) == tests.conftest.__file__
    ]
    assert loaded == [tests.conftest]
    given = os.environ.get("HYPOTHESIS_PROFILE")
    if given:
        assert hypothesis.settings.get_current_profile_name() == given
    active = hypothesis.settings.default
    assert (
        active.max_examples == HYPOTHESIS_EXAMPLES[hypothesis.settings.get_current_profile_name()]
    )
    assert scaled_examples(2) == 2 * active.max_examples
    assert scaled_examples(0.001) == 1


def test_the_profiles_keep_their_order():
    """dev is quicker than ci, thorough several times ci; ci alone is the same every run."""
    assert HYPOTHESIS_EXAMPLES["dev"] < HYPOTHESIS_EXAMPLES["ci"]
    assert HYPOTHESIS_EXAMPLES["thorough"] >= 3 * HYPOTHESIS_EXAMPLES["ci"]
    assert hypothesis.settings.get_profile("ci").derandomize
    assert hypothesis.settings.get_profile("ci").database is None
    assert not hypothesis.settings.get_profile("thorough").derandomize
    assert not hypothesis.settings.get_profile("dev").derandomize  # even where CI is detected


def test_a_run_started_with_the_variable_loads_it_and_says_so():
    """A pytest run of its own with the variable set names that profile and its example count in
    its header, and the test above, run there, finds that profile loaded."""
    name = "thorough"
    env = {**os.environ, "HYPOTHESIS_PROFILE": name}
    for inherited in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID", "PYTEST_ADDOPTS"):
        env.pop(inherited, None)
    found = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
        + ["tests/test_hypothesis_profiles.py::test_this_run_uses_the_profile_it_was_given"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 0, found.stdout + found.stderr
    header = f"hypothesis profile {name!r} (HYPOTHESIS_PROFILE): "
    assert f"{header}max_examples={HYPOTHESIS_EXAMPLES[name]}," in found.stdout
    assert "1 passed" in found.stdout
