#!/usr/bin/env bash
# `make run`: the site on http://127.0.0.1:8000 with a real Celery worker and beat,
# SQLite, an embedded broker (.run/broker/) and email written to .run/mail/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

export DJANGO_ENV="${DJANGO_ENV:-development}"
export DJANGO_DEBUG="${DJANGO_DEBUG:-1}"
export PYTHONUNBUFFERED=1
# Run mode has no servers to depend on: SQLite, filesystem broker, file mail.
unset REDIS_URL CELERY_BROKER_URL CELERY_RESULT_BACKEND
export DATABASE_URL="${DATABASE_URL:-sqlite:///$ROOT/db.sqlite3}"
export EMAIL_BACKEND="${EMAIL_BACKEND:-django.core.mail.backends.filebased.EmailBackend}"
export EMAIL_FILE_PATH="${EMAIL_FILE_PATH:-$ROOT/.run/mail}"
HOST_PORT="${RUN_ADDR:-127.0.0.1:8000}"
# Emails and the demo banner link to the address the site is served on.
export SITE_URL="${SITE_URL:-$(site_url_for "$HOST_PORT")}"

ensure_venv
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
    trap - INT TERM EXIT
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
