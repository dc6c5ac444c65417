"""`make test` names each failure as it happens (tests/failures_at_once.py), before the rest of
the run and its summary, with one process or several."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest_plugins = ["pytester"]

PROBE = """
def test_first_fails():
    assert 6 * 7 == 43

def test_second_passes():
    pass

def test_third_passes():
    pass
"""


@pytest.mark.parametrize("processes", [[], ["-n", "2"]], ids=["one process", "two processes"])
def test_a_failure_is_named_before_the_summary(pytester, processes, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin, from the project
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess(
        "-p", "tests.failures_at_once", "-p", "no:django", "-p", "no:cacheprovider", *processes
    )
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    named = output.index("FAILED test_probe.py::test_first_fails -")
    assert ">       assert 6 * 7 == 43" in output[named : output.index("the run goes on")]
    assert named < output.index("= FAILURES =")
