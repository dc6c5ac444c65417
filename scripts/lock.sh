#!/usr/bin/env bash
# `make lock`: rewrites both lock files from pyproject.toml's ranges, exact versions with hashes
# of every file, resolved for Python >= 3.12 on every platform at once:
# - requirements-dev.lock: the site and the dev and bench extras (what `make test` installs);
# - requirements.lock: the site alone (what `make run` installs), held to the versions of the
#   first, so that installing the dev tools on top changes nothing the site uses.
# uv comes from PyPI into .venv when it is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
# A venv for uv alone: not ensure_venv, whose install of the old lock fails its `pip check` when
# pyproject.toml has just gained a dependency (the very moment to lock).
if [ ! -x "$VENV/bin/python" ]; then
    "$(find_python)" -m venv "$VENV"
fi
export PATH="$VENV/bin:$PATH"
command -v uv >/dev/null 2>&1 || "$VENV/bin/python" -m pip install --quiet "uv>=0.9"
uv pip compile pyproject.toml --extra dev --extra bench --generate-hashes --universal \
    --python-version 3.12 --quiet --output-file requirements-dev.lock
uv pip compile pyproject.toml --constraint requirements-dev.lock --generate-hashes --universal \
    --python-version 3.12 --quiet --output-file requirements.lock
say "requirements.lock and requirements-dev.lock written; commit them with pyproject.toml"
