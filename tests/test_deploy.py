"""The systemd units in ``deploy/systemd/`` run exactly the processes the README's "Running in
production" tells an operator to run, each restarted whenever it ends (issue 48).

Beat used to exit on a Redis restart and nothing started it again: every long-running process
now has a unit with a restart policy. The commands are read from both sides, the README's code
spans and the units' ``ExecStart``, so that one cannot change without the other.
"""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNITS = ROOT / "deploy" / "systemd"
SERVERS = {"gunicorn", "uvicorn", "celery"}  # the programs that run for good, not once
VENV_BIN = "/srv/saboteur/.venv/bin/"


def production_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Running in production\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def readme_commands() -> list[list[str]]:
    """The README's long-running commands: its code spans that run a server program (with
    arguments: the queue's name `celery` is no command)."""
    prose = re.sub(r"```.*?```", "", production_section(), flags=re.DOTALL)  # nginx's example
    spans = (span.split() for span in re.findall(r"`([^`]+)`", prose))
    return [shlex.split(" ".join(w)) for w in spans if len(w) > 1 and w[0] in SERVERS]


def units() -> dict[str, configparser.ConfigParser]:
    found = {}
    for path in sorted(UNITS.glob("*.service")):
        unit = configparser.ConfigParser(interpolation=None, strict=True)
        unit.optionxform = str  # systemd's keys are case-sensitive
        unit.read_string(path.read_text())
        found[path.name] = unit
    return found


def unit_command(unit: configparser.ConfigParser) -> list[str]:
    """A unit's command as the README writes it: the program by name, not its path."""
    program, *arguments = shlex.split(unit["Service"]["ExecStart"])
    assert program.startswith(VENV_BIN), program
    return [program.removeprefix(VENV_BIN), *arguments]


def test_the_readme_gives_the_four_long_running_commands():
    """Control: the parse finds the web, the streams, the workers and beat."""
    commands = readme_commands()
    assert [words[0] for words in commands] == ["gunicorn", "uvicorn", "celery", "celery"]
    assert [words[4] for words in commands if words[0] == "celery"] == ["worker", "beat"]


def test_each_unit_runs_one_of_the_readmes_commands_and_each_command_has_its_unit():
    commands = sorted(readme_commands())
    assert sorted(unit_command(unit) for unit in units().values()) == commands


@pytest.mark.parametrize("name", sorted(path.name for path in UNITS.glob("*.service")))
def test_each_unit_is_restarted_whenever_it_ends_and_never_given_up(name):
    unit = units()[name]
    service = unit["Service"]
    assert service["Restart"] == "always"
    assert 1 <= int(service["RestartSec"]) <= 30
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"  # tried again until it can start
    assert service["WorkingDirectory"] == "/srv/saboteur"  # uvicorn's --log-config is relative
    assert service["EnvironmentFile"] == "/etc/saboteur/env"
    assert service["User"] == "saboteur"
    assert unit["Unit"]["PartOf"] == unit["Install"]["WantedBy"] == "saboteur.target"
    assert (UNITS / "saboteur.target").exists()


def test_the_readme_names_every_unit():
    section = production_section()
    for path in UNITS.iterdir():
        assert f"`{path.name}`" in section, path.name
