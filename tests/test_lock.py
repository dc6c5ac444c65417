"""requirements.lock matches pyproject.toml: every direct dependency is pinned, with hashes,
inside its range, for Python 3.12 and 3.13 (run `make lock` after changing a range)."""

import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def pins() -> list[tuple[str, str, str | None, int]]:
    """(name, version, marker, number of hashes) for every pin of the lock file."""
    found, current = [], None
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = PIN.match(line)
        if match:
            name, version, marker = match.groups()
            current = [canonicalize_name(name), version, marker, 0]
            found.append(current)
        elif line.strip().startswith("--hash=sha256:") and current is not None:
            current[3] += 1
    return [tuple(pin) for pin in found]


def direct_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in [*project["dependencies"], *extras["dev"], *extras["bench"]]]


@pytest.mark.parametrize("python", ["3.12", "3.13"])
def test_every_direct_dependency_is_pinned_inside_its_range(python):
    environment = {**default_environment(), "python_version": python}
    environment["python_full_version"] = f"{python}.0"
    locked = {}
    for name, version, marker, _ in pins():
        if marker is None or _marker_holds(marker, environment):
            assert name not in locked, f"{name} pinned twice for Python {python}"
            locked[name] = version
    for requirement in direct_requirements():
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"{name}=={locked[name]} is outside {requirement.specifier}: run `make lock`"
        )
    # What the extras bring: celery[redis], psycopg[binary,pool].
    assert {"redis", "psycopg-binary", "psycopg-pool"} <= set(locked)


def test_every_pin_has_hashes():
    missing = [name for name, _, _, hashes in pins() if hashes == 0]
    assert pins() and missing == []


def _marker_holds(marker: str, environment: dict) -> bool:
    from packaging.markers import Marker

    return Marker(marker).evaluate(environment)
