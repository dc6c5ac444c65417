#!/usr/bin/env bash
# Rewrites requirements.lock from pyproject.toml's ranges (`make lock`): exact versions with
# hashes of every file, resolved for Python >= 3.12 on every platform at once, dev and bench
# tools included. uv comes from PyPI into .venv when it is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_venv
command -v uv >/dev/null 2>&1 || "$VENV/bin/python" -m pip install --quiet "uv>=0.9"
uv pip compile pyproject.toml --extra dev --extra bench --generate-hashes --universal \
    --python-version 3.12 --quiet --output-file requirements.lock
say "requirements.lock written; commit it with pyproject.toml"
