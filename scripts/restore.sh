#!/usr/bin/env bash
# Restore a dump made by scripts/backup.sh into a NEW database, then bring its schema up to
# this code's migrations. It refuses a database that already exists: restoring over the live
# one is never what a tired operator meant. Point the site's DATABASE_URL at it afterwards.
#
#   bash scripts/restore.sh FILE postgres://user:password@host:5432/NEW_NAME
#
# The role in the URL must be allowed to create databases. Whatever happened after the dump
# (moves, emails) is not in it; docs/reliability.md says what that means for the players.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() { echo "error: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: bash scripts/restore.sh FILE postgres://user@host:5432/NEW_NAME"
file="$1" target="$2"
[ -r "$file" ] || die "cannot read $file"
case "$target" in
    postgres://*/* | postgresql://*/*) ;;
    *) die "the target must be a PostgreSQL URL with a database name" ;;
esac
rest="${target##*/}"          # NEW_NAME?options
name="${rest%%\?*}"
options="${rest#"$name"}"      # ?options or empty
[[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "database name must be letters, digits and _: $name"
maintenance="${target%/*}/postgres$options"

if [ "$(psql "$maintenance" -v ON_ERROR_STOP=1 -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$name'")" = "1" ]; then
    die "database $name already exists: restore into a new one"
fi
psql "$maintenance" -v ON_ERROR_STOP=1 -qc "CREATE DATABASE \"$name\""
# One transaction: a dump that cannot be restored whole leaves the new database empty.
pg_restore --no-owner --no-privileges --exit-on-error --single-transaction \
    --dbname="$target" "$file"

python="python"
[ -x .venv/bin/python ] && python=.venv/bin/python
DATABASE_URL="$target" "$python" manage.py migrate --noinput
echo "restored $file into $name"
