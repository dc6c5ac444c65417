"""The two lock files match pyproject.toml (run `make lock` after changing a range):

- requirements.lock, what `make run` installs: the site's dependencies and nothing of the dev
  and bench extras (browser driver, load tester, pytest...);
- requirements-dev.lock, what `make test` installs: the site's packages at the very same
  versions, plus the extras.

Every direct dependency is pinned inside its range, with hashes, for Python 3.12 and 3.13.
"""

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")
SITE, DEV = "requirements.lock", "requirements-dev.lock"
PYTHONS = ["3.12", "3.13"]


def pins(lock: str) -> list[tuple[str, str, str | None, frozenset[str]]]:
    """(name, version, marker, hashes) for every pin of a lock file."""
    found, current = [], None
    for line in (ROOT / lock).read_text().splitlines():
        match = PIN.match(line)
        if match:
            name, version, marker = match.groups()
            current = [canonicalize_name(name), version, marker, set()]
            found.append(current)
        elif line.strip().startswith("--hash=sha256:") and current is not None:
            current[3].add(line.strip().removesuffix("\\").strip())
    return [(name, version, marker, frozenset(hashes)) for name, version, marker, hashes in found]


def locked(lock: str, python: str) -> dict[str, tuple[str, frozenset[str]]]:
    """What pip installs from ``lock`` on ``python``: name -> (version, hashes)."""
    environment = {**default_environment(), "python_version": python}
    environment["python_full_version"] = f"{python}.0"
    chosen = {}
    for name, version, marker, hashes in pins(lock):
        if marker is None or Marker(marker).evaluate(environment):
            assert name not in chosen, f"{name} pinned twice for Python {python} in {lock}"
            chosen[name] = (version, hashes)
    return chosen


def requirements(*groups: str) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lists = {"site": project["dependencies"], **project["optional-dependencies"]}
    return [Requirement(r) for group in groups for r in lists[group]]


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize(("lock", "groups"), [(SITE, ["site"]), (DEV, ["site", "dev", "bench"])])
def test_every_direct_dependency_is_pinned_inside_its_range(lock, groups, python):
    versions = {name: version for name, (version, _) in locked(lock, python).items()}
    for requirement in requirements(*groups):
        name = canonicalize_name(requirement.name)
        assert name in versions, f"{name} is not in {lock}: run `make lock`"
        assert requirement.specifier.contains(versions[name], prereleases=True), (
            f"{name}=={versions[name]} is outside {requirement.specifier}: run `make lock`"
        )
    # What the extras bring: celery[redis], psycopg[binary,pool].
    assert {"redis", "psycopg-binary", "psycopg-pool"} <= set(versions)


@pytest.mark.parametrize("lock", [SITE, DEV])
def test_every_pin_has_hashes(lock):
    missing = [name for name, _, _, hashes in pins(lock) if not hashes]
    assert pins(lock) and missing == []


@pytest.mark.parametrize("python", PYTHONS)
def test_the_sites_lock_holds_no_test_or_benchmark_tool(python):
    tools = {canonicalize_name(r.name) for r in requirements("dev", "bench")}
    assert {"playwright", "locust", "pytest"} <= tools  # the check means something
    assert tools & set(locked(SITE, python)) == set()


@pytest.mark.parametrize("python", [*PYTHONS, "3.14"])
def test_the_dev_lock_holds_the_sites_packages_at_the_same_versions(python):
    site, dev = locked(SITE, python), locked(DEV, python)
    assert {name: dev.get(name) for name in site} == site


def run_ensure_venv(tmp_path, *kinds, uv_fails=False):
    """lib.sh's ensure_venv for each kind in turn, against stand-ins for .venv/bin/python and
    .venv/bin/uv that record their arguments (``python: ...``, ``uv: ...``) instead of running
    pip or uv; with ``uv_fails``, uv's stand-in exits 1. Returns every line recorded so far."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    log = tmp_path / "python.log"
    for name, status in (("python", 0), ("uv", 1 if uv_fails else 0)):
        stand_in = venv / "bin" / name
        stand_in.write_text(f'#!/bin/sh\necho "{name}: $*" >>"{log}"\nexit {status}\n')
        stand_in.chmod(0o755)
    steps = "; ".join(f"ensure_venv {kind}" for kind in kinds)
    subprocess.run(
        ["bash", "-c", f'source scripts/lib.sh && VENV="{venv}" && {steps}'],
        cwd=ROOT,
        env={**os.environ},
        check=True,
        capture_output=True,
        timeout=30,
    )
    return log.read_text().splitlines() if log.exists() else []


def installed_locks(lines):
    return [Path(line.split(" -r ")[1]).name for line in lines if " -r " in line]


def test_make_run_installs_the_sites_lock_and_make_test_the_dev_lock(tmp_path):
    run = (ROOT / "scripts" / "run.sh").read_text()
    test = (ROOT / "scripts" / "test.sh").read_text()
    assert "\nensure_venv site\n" in run and "\nensure_venv dev\n" in test
    lines = run_ensure_venv(tmp_path, "site")
    assert installed_locks(lines) == [SITE]
    assert all("--require-hashes" in line for line in lines if " -r " in line)
    assert installed_locks(run_ensure_venv(tmp_path, "site")) == [SITE]  # nothing new: reused
    assert installed_locks(run_ensure_venv(tmp_path, "dev")) == [SITE, DEV]
    # After the dev install, `make run` needs nothing more.
    assert installed_locks(run_ensure_venv(tmp_path, "site")) == [SITE, DEV]
    # uv installs (pip only brings it), and compiles what it installs.
    assert all(line.startswith("uv: pip install ") for line in lines if " -r " in line)
    assert all("--compile-bytecode" in line for line in lines if line.startswith("uv: "))


def test_pip_installs_the_lock_when_uv_cannot(tmp_path):
    lines = run_ensure_venv(tmp_path, "dev", uv_fails=True)
    assert [line.split(" -r ")[0].split(":")[0] for line in lines if " -r " in line] == [
        "uv",
        "python",  # python -m pip, after uv failed
    ]
    assert installed_locks(lines) == [DEV, DEV]
    assert all("--require-hashes" in line for line in lines if " -r " in line)
    assert lines[-1] == "python: -m pip check"
