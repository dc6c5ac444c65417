#!/usr/bin/env bash
# Back up the site's PostgreSQL database: one consistent dump (pg_dump's custom format), taken
# while the site runs (pg_dump reads one snapshot; players and workers go on meanwhile).
#
#   DATABASE_URL=postgres://user:password@host:5432/saboteur bash scripts/backup.sh [FILE]
#
# FILE defaults to backups/saboteur-<UTC time>.dump. The dump is written next to FILE first and
# renamed once pg_restore can read its table of contents, so FILE is never a half-written dump.
# Restore it with scripts/restore.sh (docs/reliability.md, "Backups").
set -euo pipefail

url="${DATABASE_URL:?DATABASE_URL is not set (the database to back up)}"
case "$url" in
    postgres://* | postgresql://*) ;;
    *) echo "error: DATABASE_URL must be a PostgreSQL URL, not ${url%%:*}" >&2; exit 2 ;;
esac
file="${1:-backups/saboteur-$(date -u +%Y%m%dT%H%M%SZ).dump}"
mkdir -p "$(dirname "$file")"
partial="$file.partial"
trap 'rm -f "$partial"' EXIT

# No owners or grants: the dump restores as whichever role restores it.
pg_dump --format=custom --no-owner --no-privileges --file="$partial" --dbname="$url"
pg_restore --list "$partial" >/dev/null
mv "$partial" "$file"
echo "$file"
