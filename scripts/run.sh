#!/usr/bin/env bash
# `make run`: the site on http://127.0.0.1:8000 with a real Celery worker and beat,
# SQLite, an embedded broker (.run/broker/) and email written to .run/mail/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

# Run mode has no servers to depend on: SQLite, filesystem broker, file mail (lib.sh).
run_mode_env
export PYTHONUNBUFFERED=1

ensure_venv site
mkdir -p .run/mail .run/broker .run/logs

# Push notifications: a VAPID key pair made once under .run/ (production sets its own).
if [ -z "${VAPID_PRIVATE_KEY:-}" ]; then
    python manage.py vapid_keys .run/vapid/private_key
    VAPID_PRIVATE_KEY="$(cat .run/vapid/private_key)"
    export VAPID_PRIVATE_KEY
fi

say "Migrating the database"
python manage.py migrate --noinput
python manage.py createcachetable

say "Demo players (log in with these):"
python manage.py seed_demo
python manage.py seed_demo_game

# Each child runs in its own process group (setsid). Stopping: first TERM to the group leader
# only (Celery's main process then shuts its pool and beat down in order; signalling them all
# at once can hang it), then TERM/KILL to whatever is left in the group (runserver's
# autoreloader child survives its parent otherwise).
pids=()
cleanup() {
    # Ignore further signals while stopping: `make` passes its own TERM on to this script, and
    # a second TERM must not cut the cleanup short and leave the worker and the server running.
    trap '' INT TERM
    trap - EXIT
    say "Stopping"
    local pid killer
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    # Whatever has not stopped within 20 seconds is killed.
    setsid bash -c "sleep 20; kill -KILL -- ${pids[*]/#/-} 2>/dev/null" &
    killer=$!
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    sleep 1
    for pid in "${pids[@]}"; do
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    kill -- "-$killer" 2>/dev/null || true
    wait "$killer" 2>/dev/null || true
}
trap cleanup INT TERM EXIT

say "Starting the Celery worker and beat (logs: .run/logs/celery.log)"
setsid celery -A saboteur_site worker --beat --loglevel=info --concurrency=2 \
    --schedule="$ROOT/.run/celerybeat-schedule" >>.run/logs/celery.log 2>&1 &
pids+=($!)

say "Serving $SITE_URL/ (mail goes to .run/mail/; Ctrl-C stops everything)"
setsid python manage.py runserver "$HOST_PORT" &
pids+=($!)

# Stop everything as soon as either process dies, or on Ctrl-C.
wait -n "${pids[@]}" || true
