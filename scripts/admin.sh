#!/usr/bin/env bash
# `make admin EMAIL=you@example.com NAME="Your name"` (or `bash scripts/admin.sh EMAIL [NAME]`):
# an administrator account that can log in at once (staff, superuser, verified address), in the
# database `make run` uses. The password comes from ADMIN_PASSWORD, else a random one is printed.
# With DJANGO_ENV=production set, the environment is used as it is (see the README).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

email="${1:-}" name="${2:-}"
[ -n "$email" ] || die 'give the address: make admin EMAIL=you@example.com NAME="Your name"'

if [ "${DJANGO_ENV:-development}" != "production" ]; then
    run_mode_env beside # links to where `make run` serves (lib.sh)
    ensure_venv site
    python manage.py migrate --noinput --verbosity 0
else
    ensure_venv site
fi
exec python manage.py admin_create "$email" --name "$name"
